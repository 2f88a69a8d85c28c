"""Reservations as data: their states, the order PBS lists their attributes in, and the
scheduler's question "do these chunks fit on these vnodes for this whole window?".

States and substates are ``enum resv_states`` (pbs_ifl.h); the attribute order is
``master_resv_attr_def.xml``'s.  A reservation record is a dict of PBS attribute strings plus
private ``_`` fields, like a job's.  No I/O and no clock: the time is an argument.
"""
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from fake_pbs.model.attrs import is_true
from fake_pbs.model.nodes import DEFAULT_CONSUMABLES, VNode, parse_exec_vnode, resource_amount
from fake_pbs.model.placement import Failure, Placement, commit, place_job
from fake_pbs.model.select import parse_place, parse_select

# enum resv_states (pbs_ifl.h): reserve_state travels as the number, as PBS sends it.
UNCONFIRMED = 1
CONFIRMED = 2
RUNNING = 5
BEING_DELETED = 7
DELETING_JOBS = 9  # the substate of a reservation whose jobs are being killed (R28b, R52e)

#: reserve_start PBS's pbs_rsub sends for an ASAP reservation (PBS_RESV_FUTURE_SCH).
FUTURE_SCH = 1893488460

#: delete_idle_time of an ASAP reservation when none is given (R25b).
ASAP_IDLE = "00:10:00"

#: The order pbs_rstat -f lists a reservation's attributes in (master_resv_attr_def.xml).
ATTR_ORDER: Sequence[str] = (
    "Reserve_Name", "Reserve_Owner", "reserve_state", "reserve_substate", "reserve_start",
    "reserve_end", "reserve_duration", "queue", "Resource_List", "resv_nodes", "User_List",
    "group_list", "Authorized_Users", "Authorized_Groups", "Authorized_Hosts", "server",
    "Account_Name", "ctime", "Mail_Points", "Mail_Users", "mtime", "Priority",
    "Variable_List", "qmove", "reserve_standing", "reserve_rrule", "reserve_index",
    "reserve_count", "reserve_execvnodes", "reserve_timezone", "reserve_retry",
    "delete_idle_time", "partition",
)

#: Attributes a client may send with ``resv_submit`` (everything else is refused).
SETTABLE = frozenset((
    "reserve_start", "reserve_end", "reserve_duration", "Reserve_Name", "User_List",
    "group_list", "Authorized_Users", "Authorized_Groups", "Authorized_Hosts", "Account_Name",
    "Mail_Points", "Mail_Users", "Priority", "interactive", "Variable_List", "qmove",
    "reserve_standing", "reserve_rrule", "reserve_timezone", "delete_idle_time",
))


class Holding(NamedTuple):
    """Consumables held on vnodes from ``start`` until ``end`` (None: with no end known)."""

    amounts: Dict[str, Dict[str, int]]  # vnode -> resource -> amount
    start: int
    end: Optional[int]


def amounts_of(exec_vnode: str, consumables: Sequence[str]) -> Dict[str, Dict[str, int]]:
    """``(vm:ncpus=1)+(vm:ncpus=1)`` -> ``{"vm": {"ncpus": 2}}``."""
    held: Dict[str, Dict[str, int]] = {}
    for chunk in parse_exec_vnode(exec_vnode):
        per = held.setdefault(chunk["vnode"], {})
        for res in consumables:
            if res in chunk:
                try:
                    per[res] = per.get(res, 0) + resource_amount(res, chunk[res])
                except ValueError:
                    continue
    return held


def add_amounts(into: Dict[str, Dict[str, int]],
                amounts: Mapping[str, Mapping[str, int]]) -> None:
    """Add ``amounts`` (vnode -> resource -> amount) into ``into``."""
    for vnode, per in amounts.items():
        target = into.setdefault(vnode, {})
        for res, amount in per.items():
            target[res] = target.get(res, 0) + amount


def _overlaps(holding: Holding, start: int, end: int) -> bool:
    return holding.start < end and (holding.end is None or holding.end > start)


def peak_use(holdings: Sequence[Holding], start: int, end: int) -> Dict[str, Dict[str, int]]:
    """The most each vnode has in use at any moment of ``[start, end)``."""
    inside = [h for h in holdings if _overlaps(h, start, end)]
    moments = sorted({start} | {h.start for h in inside if start < h.start < end})
    peak: Dict[str, Dict[str, int]] = {}
    for moment in moments:
        use: Dict[str, Dict[str, int]] = {}
        for holding in inside:
            if holding.start <= moment and (holding.end is None or holding.end > moment):
                add_amounts(use, holding.amounts)
        for vnode, amounts in use.items():
            top = peak.setdefault(vnode, {})
            for res, amount in amounts.items():
                top[res] = max(top.get(res, 0), amount)
    return peak


def plan(select: str, place: str, nodes: Mapping[str, Mapping[str, str]],
         holdings: Sequence[Holding], start: int, end: int,
         consumables: Sequence[str] = DEFAULT_CONSUMABLES) -> Union[str, Failure]:
    """The ``resv_nodes`` the chunks get for the whole window, or why they do not fit.

    Only vnodes with ``resv_enable`` (default True) count; what they have in use is the
    peak of the other reservations' and the running jobs' holdings over the window.
    """
    chunks = parse_select(select or "1:ncpus=1")
    how = parse_place(place or "free")
    vnodes: Dict[str, VNode] = {}
    peak = peak_use(holdings, start, end)
    for name, attrs in nodes.items():
        if not is_true(attrs.get("resv_enable", "True")):
            continue
        shown = {k: v for k, v in attrs.items() if not k.startswith("resources_assigned.")}
        vnode = VNode(name, shown, consumables)
        vnode.states -= {"job-busy", "job-sharing", "job-exclusive", "resv-exclusive"}
        vnode.exclusive_job = False
        for res, amount in peak.get(name, {}).items():
            vnode.assigned[res] = vnode.assigned.get(res, 0) + amount
        vnodes[name] = vnode
    outcome = place_job(chunks, how, vnodes, consumables)
    if not isinstance(outcome, Placement):
        return outcome
    exec_vnode, _, _ = commit(outcome, how, vnodes)
    return exec_vnode


def first_fit(select: str, place: str, nodes: Mapping[str, Mapping[str, str]],
              holdings: Sequence[Holding], now: int, duration: int,
              consumables: Sequence[str] = DEFAULT_CONSUMABLES) -> Optional[Tuple[int, str]]:
    """An ASAP reservation's window: the first moment from ``now`` at which the chunks fit
    for ``duration`` seconds (now, or the end of one of the holdings), with its vnodes."""
    moments = sorted({now} | {h.end for h in holdings if h.end is not None and h.end > now})
    for moment in moments:
        found = plan(select, place, nodes, holdings, moment, moment + duration, consumables)
        if isinstance(found, str):
            return moment, found
    return None


#: The order a reservation's Resource_List is kept in: the derived ones, then the request's
#: select and place, then walltime (R04), then any other by name.
RESOURCE_ORDER: Sequence[str] = ("ncpus", "nodect", "select", "place", "walltime")


def resource_key(res: str) -> Tuple[int, str]:
    if res in RESOURCE_ORDER:
        return RESOURCE_ORDER.index(res), ""
    return len(RESOURCE_ORDER), res.lower()


def ordered(attrs: Mapping[str, str]) -> Dict[str, str]:
    """The public attributes in pbs_rstat -f's order (R04, R25b, R40b)."""
    rank = {name: index for index, name in enumerate(ATTR_ORDER)}

    def key(name: str) -> Tuple[int, Tuple[int, str], str]:
        base, _, res = name.partition(".")
        return rank.get(base, len(rank)), resource_key(res) if res else (0, ""), name

    names = [n for n in attrs if not n.startswith("_") and n != "interactive"]
    return {name: attrs[name] for name in sorted(names, key=key)}


def is_standing(resv: Mapping[str, str]) -> bool:
    return bool(resv.get("reserve_rrule"))


def chunk_list(resv_nodes: str) -> List[Dict[str, str]]:
    return parse_exec_vnode(resv_nodes)
