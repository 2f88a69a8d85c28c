"""Where a job's chunks go: PBS's node search over vnodes, and the strings it produces.

Follows the OpenPBS 23.06 scheduler (``is_ok_to_run`` -> ``resresv_can_fit_nodepart`` -> node
search): first a quick check of the whole complex (free nodes, job-wide sums), repeated against
the totals to tell ``Not Running`` from ``Can Never Run``; then a first-fit search in node order
honouring ``place`` (pack: one host; scatter/vscatter: one chunk per host/vnode; free: anywhere;
excl/exclhost: vnodes nobody else uses) and each vnode's own rules (``is_vnode_eligible``: its
run limits, through the caller's ``eligible``, and ``no_multinode_jobs``). Failure texts are
PBS's (transcripts j09b, j10b-d, n01c, n02t, k06a; job_info.cpp's table for the vnode rules).
"""
from typing import Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from fake_pbs.model.nodes import DEFAULT_CONSUMABLES, VNode, resource_amount
from fake_pbs.model.select import SIZE_RESOURCES, Chunk, Place, chunk_default

__all__ = ["Unit", "Placement", "Failure", "place_job", "commit", "format_amount", "MSG",
           "Eligible", "uses_multinode", "Psets", "placement_sets", "CANT_SPAN", "SET_TOO_SMALL"]

# Scheduler reasons (job_info.cpp sched_error table), without the "Not Running: " prefix.
MSG = {
    "no_free": "Not enough free nodes available",
    "no_total": "Not enough total nodes available",
    "insufficient": "Insufficient amount of resource: %s %s",
    "not_excl": "Job is requesting an exclusive node and node is in use",
    "no_multi": "Node can't satisfy a multi-node job",
}

#: a vnode's own verdict on the job being placed: None, or why the job may not use it
Eligible = Callable[[VNode], Optional[str]]

# Non-consumable resources the fake's scheduler matches (sched_config resources line).
_MATCHED_STRINGS = ("host", "vnode", "arch")


class Unit(NamedTuple):
    """One chunk copy: its consumable amounts (kb for sizes) and the values exec_vnode shows."""

    amounts: Dict[str, int]
    shown: Tuple[Tuple[str, str], ...]
    strings: Dict[str, str]
    ncpus: int
    mpiprocs: int
    ompthreads: int
    ngpus: int
    mem: str


class Placement(NamedTuple):
    """A solution: the vnode of each unit, in select order."""

    units: List[Unit]
    vnodes: List[str]


class Failure(NamedTuple):
    """Why the job cannot run now (``never`` False) or ever on these nodes (``never`` True)."""

    never: bool
    reason: str

    @property
    def comment(self) -> str:
        return ("Can Never Run: " if self.never else "Not Running: ") + self.reason


def format_amount(res: str, amount: int) -> str:
    """An amount as the scheduler prints it (``res_to_str``): sizes in tb/gb/mb/kb from kb."""
    if res not in SIZE_RESOURCES:
        return str(amount)
    if amount == 0:
        return "0kb"
    for unit, factor in (("tb", 1 << 30), ("gb", 1 << 20), ("mb", 1 << 10)):
        if amount % factor == 0:
            return "%d%s" % (amount // factor, unit)
    return "%dkb" % amount


def make_units(chunks: Sequence[Chunk],
               consumables: Sequence[str] = DEFAULT_CONSUMABLES) -> List[Unit]:
    """Expand ``N:`` counts and apply the per-chunk defaults (ncpus=1, mpiprocs=1, ompthreads).

    Only ``consumables`` (the scheduler's resources line) are counted and shown in exec_vnode:
    a chunk's other resources stay in Resource_List, unchecked (n02m, n02n)."""
    units: List[Unit] = []
    for chunk in chunks:
        ncpus = chunk_default(chunk, "ncpus")
        amounts = {"ncpus": ncpus}
        shown: List[Tuple[str, str]] = [("ncpus", str(ncpus))]
        for res in consumables:
            value = chunk.get(res) if res != "ncpus" else None
            if value is not None:
                amounts[res] = resource_amount(res, value)
                shown.append((res, "%dkb" % amounts[res] if res in SIZE_RESOURCES else value))
        strings = {res: value for res, value in chunk.resources if res in _MATCHED_STRINGS}
        mpiprocs = int(chunk.get("mpiprocs") or (1 if ncpus > 0 else 0))
        ompthreads = int(chunk.get("ompthreads") or max(ncpus, 1))
        unit = Unit(amounts, tuple(shown), strings, ncpus, mpiprocs, ompthreads,
                    amounts.get("ngpus", 0), chunk.get("mem") or "")
        units.extend([unit] * chunk.copies)
    return units


def _exclusive(place: Place, vnode: VNode) -> bool:
    """Whether this job needs the vnode to itself (place and the vnode's ``sharing``)."""
    if vnode.sharing.startswith("force_excl"):
        return True
    if vnode.sharing.startswith("ignore_excl"):
        return False
    if place.sharing == "shared":
        return False
    return place.exclusive or vnode.sharing.startswith("default_excl")


def _complex_check(units: Sequence[Unit], place: Place, vnodes: Sequence[VNode],
                   totals: bool) -> Optional[str]:
    """``resresv_can_fit_nodepart`` on the whole complex; the reason when it cannot fit."""
    count = len(vnodes) if totals else sum(1 for vnode in vnodes if vnode.is_free)
    lacking = MSG["no_total"] if totals else MSG["no_free"]
    if count == 0:
        return lacking
    if place.arrangement in ("scatter", "vscatter") and count < len(units):
        return lacking
    wanted: Dict[str, int] = {}
    for unit in units:
        for res, amount in unit.amounts.items():
            wanted[res] = wanted.get(res, 0) + amount
    for res in wanted:
        if not wanted[res]:
            continue
        total = sum(vnode.avail.get(res, 0) for vnode in vnodes)
        avail = total if totals else sum(max(vnode.free(res), 0)
                                         for vnode in vnodes if vnode.is_free)
        if avail < wanted[res]:
            return MSG["insufficient"] % (res, "(R: %s A: %s T: %s)" % (
                format_amount(res, wanted[res]), format_amount(res, avail),
                format_amount(res, total)))
    for unit in units:
        for res, value in unit.strings.items():
            offered = [vnode.strings.get(res) for vnode in vnodes]
            if value not in offered:
                return MSG["insufficient"] % (res, "(%s != %s)" % (
                    value, ",".join(str(item) for item in offered if item is not None)))
    return None


def _unit_fits(unit: Unit, vnode: VNode, extra: Mapping[str, int]) -> Optional[str]:
    """None when ``unit`` fits on ``vnode`` beside ``extra`` already taken by this job."""
    for res, value in unit.strings.items():
        if vnode.strings.get(res) != value:
            return MSG["insufficient"] % (res, "")
    for res, amount in unit.amounts.items():
        if amount and vnode.free(res) - extra.get(res, 0) < amount:
            return MSG["insufficient"] % (res, "")
    return None


def _add(into: Dict[str, int], amounts: Mapping[str, int]) -> None:
    for res, amount in amounts.items():
        into[res] = into.get(res, 0) + amount


class Psets(NamedTuple):
    """Placement sets (node_partition.cpp): the vnodes are grouped by each value of each key
    resource; ``span``: a job no set can ever hold is placed over all vnodes (the scheduler's
    ``do_not_span_psets`` false); ``explicit_only``: vnodes without the resource form no set
    (``only_explicit_psets``; else they form ``<res>=""``)."""

    keys: Tuple[str, ...]
    span: bool = True
    explicit_only: bool = False


CANT_SPAN = "can't fit in the largest placement set, and can't span psets"
SET_TOO_SMALL = "Placement set %s has too few free resources"


def uses_multinode(units: Sequence[Unit], place: Place) -> bool:
    """Whether a job counts as multi-node for ``no_multinode_jobs``: more than one chunk,
    unless packed on one host (eval_complex_selspec re-places a job whose chunks landed on such
    a vnode without it; a pack of several chunks never takes that path)."""
    return len(units) > 1 and place.arrangement != "pack"


def _search(units: Sequence[Unit], place: Place, vnodes: Sequence[VNode],
            eligible: Optional[Eligible] = None) -> Union[List[str], str]:
    """First fit in node order; the chosen vnode names, or the last node's reason."""
    reason = MSG["no_free"]
    candidates = []
    multinode = uses_multinode(units, place)
    for vnode in vnodes:
        if not vnode.is_free:
            continue
        if _exclusive(place, vnode) and (vnode.job_count or vnode.assigned.get("ncpus", 0)):
            reason = MSG["not_excl"]
            continue
        why = eligible(vnode) if eligible is not None else None
        if why is None and multinode and vnode.no_multinode:
            why = MSG["no_multi"]
        if why is not None:
            reason = why
            continue
        candidates.append(vnode)
    if place.arrangement == "pack":
        for vnode in candidates:
            extra: Dict[str, int] = {}
            for unit in units:
                why = _unit_fits(unit, vnode, extra)
                if why is not None:
                    reason = why
                    break
                _add(extra, unit.amounts)
            else:
                return [vnode.name] * len(units)
        return reason
    spread = place.arrangement in ("scatter", "vscatter")
    taken: Dict[str, Dict[str, int]] = {}
    hosts_used = set()
    chosen: List[str] = []
    for unit in units:
        for vnode in candidates:
            if spread and (vnode.name in taken if place.arrangement == "vscatter"
                           else vnode.host in hosts_used):
                continue
            why = _unit_fits(unit, vnode, taken.get(vnode.name, {}))
            if why is not None:
                reason = why
                continue
            _add(taken.setdefault(vnode.name, {}), unit.amounts)
            hosts_used.add(vnode.host)
            chosen.append(vnode.name)
            break
        else:
            return reason
    return chosen


def place_job(chunks: Sequence[Chunk], place: Place, vnodes: Mapping[str, VNode],
              consumables: Sequence[str] = DEFAULT_CONSUMABLES,
              eligible: Optional[Eligible] = None,
              psets: Optional[Psets] = None) -> Union[Placement, Failure]:
    """Find vnodes for every chunk, or the PBS reason why not (nothing is changed).

    ``vnodes`` in the order the search tries them; ``eligible``: the vnode's own run limits
    for this job (None: none apply, as for a qrun job); ``psets``: the server's or queue's
    node grouping, which the job's own ``place=group=<res>`` replaces."""
    units = make_units(chunks, consumables)
    if place.group:
        psets = Psets((place.group,), psets.span if psets else True,
                      psets.explicit_only if psets else False)
    if psets is not None and psets.keys:
        return _place_in_sets(units, place, vnodes, psets, eligible)
    return _place_anywhere(units, place, vnodes, eligible)


def placement_sets(vnodes: Mapping[str, VNode],
                   psets: Psets) -> List[Tuple[str, Dict[str, VNode]]]:
    """The sets in the order they are tried: smallest total ncpus, then mem, then free ncpus,
    then free mem first (sort.cpp cmp_placement_sets), ties in creation order."""
    sets: Dict[str, Dict[str, VNode]] = {}
    for key in psets.keys:
        for name, vnode in vnodes.items():
            raw = vnode.strings.get(key)
            if raw is None:
                if psets.explicit_only:
                    continue
                values = ['""']
            else:
                values = [value.strip() for value in raw.split(",") if value.strip()]
            for value in values:
                sets.setdefault("%s=%s" % (key, value), {})[name] = vnode

    def size(members: Mapping[str, VNode]) -> Tuple[int, int, int, int]:
        group = list(members.values())
        return (sum(v.avail.get("ncpus", 0) for v in group),
                sum(v.avail.get("mem", 0) for v in group),
                sum(max(v.free("ncpus"), 0) for v in group if v.is_free),
                sum(max(v.free("mem"), 0) for v in group if v.is_free))
    return sorted(sets.items(), key=lambda item: size(item[1]))


def _place_in_sets(units: Sequence[Unit], place: Place, vnodes: Mapping[str, VNode],
                   psets: Psets, eligible: Optional[Eligible]) -> Union[Placement, Failure]:
    """eval_selspec over placement sets: the first set the job fits in now; the first set's
    reason when none does but one could; over all vnodes (or CANT_SPAN) when none ever
    could."""
    first: Optional[Failure] = None
    could = False
    for name, members in placement_sets(vnodes, psets):
        ordered = list(members.values())
        if _complex_check(units, place, ordered, totals=False) is None:
            found = _search(units, place, ordered, eligible)
            if not isinstance(found, str):
                return Placement(list(units), found)
            first = first or Failure(False, found)
        else:
            first = first or Failure(False, SET_TOO_SMALL % name)
        if not could and _complex_check(units, place, ordered, totals=True) is None:
            could = True
    if could:
        return first or Failure(False, MSG["no_free"])
    if not psets.span:
        return Failure(True, CANT_SPAN)
    return _place_anywhere(units, place, vnodes, eligible)


def _place_anywhere(units: Sequence[Unit], place: Place, vnodes: Mapping[str, VNode],
                    eligible: Optional[Eligible]) -> Union[Placement, Failure]:
    ordered = list(vnodes.values())
    now_reason = _complex_check(units, place, ordered, totals=False)
    if now_reason is not None:
        never_reason = _complex_check(units, place, ordered, totals=True)
        if never_reason is not None:
            return Failure(True, never_reason)
        return Failure(False, now_reason)
    found = _search(units, place, ordered, eligible)
    if isinstance(found, str):
        return Failure(False, found)
    return Placement(list(units), found)


def commit(placement: Placement, place: Place,
           vnodes: Mapping[str, VNode]) -> Tuple[str, str, List[Dict[str, object]]]:
    """Allocate the placement on the vnodes; return exec_vnode, exec_host and the hosts list."""
    vnode_parts: List[str] = []
    host_parts: List[str] = []
    hosts: List[Dict[str, object]] = []
    for unit, name in zip(placement.units, placement.vnodes):
        vnode = vnodes[name]
        slot = vnode.allocate(unit.amounts, unit.ncpus)
        if _exclusive(place, vnode):
            vnode.exclusive_job = True
        vnode_parts.append("(%s)" % ":".join([name] + ["%s=%s" % pair for pair in unit.shown]))
        host_parts.append("%s/%d%s" % (vnode.host, slot,
                                       "*%d" % unit.ncpus if unit.ncpus > 1 else ""))
        hosts.append({"host": vnode.host, "ncpus": unit.ncpus, "mpiprocs": unit.mpiprocs,
                      "ngpus": unit.ngpus, "mem": unit.mem, "ompthreads": unit.ompthreads})
    return "+".join(vnode_parts), "+".join(host_parts), hosts
