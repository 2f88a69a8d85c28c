"""A job's Resource_List completed with its queue's and the server's defaults, and checked against
their ``resources_max`` / ``resources_min`` (the server's svr_jobfunc.c).

set_resc_deflt fills a resource the job did not ask for from, in order: the queue's
``resources_default``, the server's ``resources_default``, the queue's ``resources_max`` and the
server's ``resources_max`` (the last two never give ``select`` or ``place``); explicit values win.
Then the select is built from the job-wide resources when none was given (set_select_and_place,
model/select.py), and the scheduler's select (``schedselect``) adds to every chunk each
``default_chunk`` resource the chunk lacks, the queue's first (vnparse.c do_schedselect); the
job-wide sums (``ncpus``, ``mem``...) and ``nodect`` come from that select (set_chunk_sum).

chk_resc_limits: a job below the queue's ``resources_min`` or above ``resources_max`` (the
queue's value for a resource when the queue sets one, else the server's) violates the limits
(PBSE_EXCQRESC); only numbers, sizes and times are compared, ``nodes`` never.
"""
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from fake_pbs.model import entlimits
from fake_pbs.model.errors import PbsError
from fake_pbs.model.select import derive_resources, parse_select

Attrs = Mapping[str, str]

_SOURCES = (("queue", "resources_default", True), ("server", "resources_default", True),
            ("queue", "resources_max", False), ("server", "resources_max", False))


def prefixed(attrs: Attrs, prefix: str) -> Dict[str, str]:
    """``resources_max.ncpus = 2`` -> ``{"ncpus": "2"}`` for ``prefix`` resources_max."""
    start = prefix + "."
    return {key[len(start):]: value for key, value in attrs.items() if key.startswith(start)}


class Completed(NamedTuple):
    """Resource_List as stored, the scheduler's select, and the names that came from defaults."""

    resources: Dict[str, str]
    schedselect: str
    defaulted: List[str]


def complete(requested: Attrs, queue: Attrs, server: Attrs,
             known: Optional[Sequence[str]] = None) -> Completed:
    """set_resc_deflt for a job entering ``queue`` (PbsError as select/place parsing gives)."""
    res = dict(requested)
    defaulted: List[str] = []
    objects = {"queue": queue, "server": server}
    for owner, attr, with_select in _SOURCES:
        for name, value in prefixed(objects[owner], attr).items():
            if name in res or (not with_select and name in ("select", "place")):
                continue
            res[name] = value
            defaulted.append(name)
    derived = derive_resources(res, known)
    sched = schedselect(derived["select"], prefixed(queue, "default_chunk"),
                        prefixed(server, "default_chunk"))
    if sched != derived["select"]:
        sums = derive_resources({"select": sched, "place": derived.get("place", "free")}, known)
        for name, value in sums.items():
            if name not in ("select", "place"):
                derived[name] = value
        derived = {name: derived[name] for name in sorted(derived, key=str.lower)}
    for name in derived:
        if name not in requested and name not in defaulted:
            defaulted.append(name)
    return Completed(derived, sched, defaulted)


def schedselect(select: str, queue_chunk: Attrs, server_chunk: Attrs) -> str:
    """``select`` with each chunk given the default_chunk resources it lacks, queue's first."""
    if not queue_chunk and not server_chunk:
        return select
    terms = []
    for chunk in parse_select(select):
        pairs: List[Tuple[str, str]] = list(chunk.resources)
        have = {name.lower() for name, _ in pairs}
        for defaults in (queue_chunk, server_chunk):
            for name, value in defaults.items():
                if name.lower() not in have and name.lower() != "nchunk":
                    pairs.append((name, value))
                    have.add(name.lower())
        terms.append(":".join([str(chunk.copies)] + ["%s=%s" % pair for pair in pairs]))
    return "+".join(terms)


def _amount(kind: str, value: str) -> Optional[float]:
    if kind not in ("size", "time", "long", "float"):
        return None
    try:
        return entlimits.amount(kind, value)
    except (ValueError, PbsError):
        return None


def violates(resources: Attrs, kinds: Mapping[str, str], queue: Attrs, server: Attrs) -> bool:
    """chk_resc_limits: the job is below the queue's minimum or above the maximum that applies."""
    minimum = prefixed(queue, "resources_min")
    queue_max = prefixed(queue, "resources_max")
    server_max = prefixed(server, "resources_max")
    for name, value in resources.items():
        if name == "nodes":
            continue
        kind = kinds.get(name, "string")
        have = _amount(kind, value)
        if have is None:
            continue
        low = minimum.get(name)
        if low is not None:
            floor = _amount(kind, low)
            if floor is not None and floor > have:
                return True
        high = queue_max.get(name, server_max.get(name))
        if high is not None:
            ceiling = _amount(kind, high)
            if ceiling is not None and have > ceiling:
                return True
    return False
