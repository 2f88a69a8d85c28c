"""The scheduler's run limits and the comments it gives a job they hold back.

OpenPBS src/scheduler/limits.cpp: ``max_run`` and ``max_run_res.<r>`` (entity limits,
model/entlimits.py) of each queue and of the server, with the old-style limits turned into
generic ones as lim_setlimits does (``max_running`` is ``[o:PBS_ALL]``, ``max_user_run``
``[u:PBS_GENERIC]``, ``max_group_run`` ``[g:PBS_GENERIC]``, ``max_user_res.<r>`` and
``max_group_res.<r>`` likewise).  check_limits runs limfuncs[] in order: the queue's group,
project, overall and user job counts, then the server's, then the same for resources.  A count
limit holds a job when the running jobs already reach it (``limit <= used``); a resource limit
when the running jobs' amounts plus the job's would pass it; a specific limit
(``[u:bob=2]``) replaces the generic one.  Comments are job_info.cpp's res_to_str texts
(``QUEUE_USER_LIMIT_REACHED`` ...), given "Not Running: " by the caller.  Soft limits
(``max_run_soft``, ``max_run_res_soft.<r>`` and the old-style ``max_user_run_soft``...) hold
nothing back: an entity whose running jobs pass one is over it (``used > limit``), which
preemption ranks (:func:`over_soft`, limits.cpp check_soft_limits).
"""
from typing import Dict, Mapping, NamedTuple, Optional, Tuple

from fake_pbs.model import entlimits
from fake_pbs.model.entlimits import ALL, GENERIC, Entity, Limits
from fake_pbs.model.errors import PbsError
from fake_pbs.model.jobdefaults import prefixed

Attrs = Mapping[str, str]
_ORDER = ("g", "p", "o", "u")
_OLD_COUNTS = (("max_running", ("o", ALL)), ("max_user_run", ("u", GENERIC)),
               ("max_group_run", ("g", GENERIC)))
_OLD_RES = (("max_user_res", ("u", GENERIC)), ("max_group_res", ("g", GENERIC)))

_COUNT_TEXT = {
    (True, "g", False): "Group has reached queue {q} running limit.",
    (True, "g", True): "Queue {q} job limit reached for group {n}",
    (True, "p", False): "Project has reached queue {q}'s running limit.",
    (True, "p", True): "Queue {q} job limit reached for project {n}",
    (True, "o", True): "Queue {q} job limit has been reached.",
    (True, "u", False): "User has reached queue {q} running job limit.",
    (True, "u", True): "Queue {q} job limit reached for user {n}",
    (False, "g", False): "Group has reached server running limit.",
    (False, "g", True): "Server job limit reached for group {n}",
    (False, "p", False): "Project has reached server running limit.",
    (False, "p", True): "Server job limit reached for project {n}",
    (False, "o", True): "Server job limit has been reached.",
    (False, "u", False): "User has reached server running job limit.",
    (False, "u", True): "Server job limit reached for user {n}",
}
_KIND_WORD = {"u": "user", "g": "group", "p": "project"}


def _res_text(queue: bool, kind: str, specific: bool) -> str:
    where = "queue {q}" if queue else "complex"
    if kind == "o":
        return "would exceed overall limit on resource {r} in " + where
    if specific:
        return "would exceed %s {n}'s limit on resource {r} in %s" % (_KIND_WORD[kind], where)
    return "%s per-%s limit reached on resource {r}" % (
        "Queue {q}" if queue else "Server", _KIND_WORD[kind])


class ObjectLimits(NamedTuple):
    counts: Limits
    resources: Dict[str, Limits]


_OLD_SOFT_COUNTS = (("max_user_run_soft", ("u", GENERIC)),
                    ("max_group_run_soft", ("g", GENERIC)))
_OLD_SOFT_RES = (("max_user_res_soft", ("u", GENERIC)), ("max_group_res_soft", ("g", GENERIC)))


def limits_of(attrs: Attrs, soft: bool = False) -> ObjectLimits:
    """A queue's or the server's run limits (``soft``: its soft ones), old-style ones as
    generic entity limits."""
    suffix = "_soft" if soft else ""
    counts = dict(entlimits.parse(attrs.get("max_run" + suffix)))
    for name, key in _OLD_SOFT_COUNTS if soft else _OLD_COUNTS:
        if attrs.get(name):
            counts.setdefault(key, str(attrs[name]))
    resources = entlimits.by_resource(attrs, "max_run_res" + suffix)
    for name, key in _OLD_SOFT_RES if soft else _OLD_RES:
        for res, value in prefixed(attrs, name).items():
            resources.setdefault(res, {}).setdefault(key, value)
    return ObjectLimits(counts, resources)


class Usage:
    """Running jobs counted per scope (a queue's name, or None for the server)."""

    def __init__(self) -> None:
        self.counts: Dict[Tuple[Optional[str], str, str], int] = {}
        self.amounts: Dict[Tuple[Optional[str], str, str, str], float] = {}

    def add(self, queue: str, who: Entity, request: Mapping[str, str],
            kinds: Mapping[str, str]) -> None:
        for scope in (queue, None):
            for kind in _ORDER:
                key = (scope, kind, who.name(kind))
                self.counts[key] = self.counts.get(key, 0) + 1
                for res, value in request.items():
                    try:
                        amount = entlimits.amount(kinds.get(res, "long"), value)
                    except (ValueError, PbsError):
                        continue
                    rkey = (scope, kind, who.name(kind), res)
                    self.amounts[rkey] = self.amounts.get(rkey, 0.0) + amount


def held_back(who: Entity, queue: str, request: Mapping[str, str], kinds: Mapping[str, str],
              queue_limits: ObjectLimits, server_limits: ObjectLimits,
              usage: Usage) -> Optional[str]:
    """The comment (without "Not Running: ") of the first run limit that holds the job."""
    scopes = ((queue, queue_limits), (None, server_limits))
    for scope, limits in scopes:
        for kind in _ORDER:
            found = entlimits.limit_for(limits.counts, kind, who.name(kind))
            if found is None:
                continue
            try:
                limit = int(found[0])
            except ValueError:
                continue
            if limit <= usage.counts.get((scope, kind, who.name(kind)), 0):
                return _COUNT_TEXT[(scope is not None, kind, found[1] or kind == "o")].format(
                    q=queue, n=who.name(kind))
    for scope, limits in scopes:
        for kind in _ORDER:
            for res, value in request.items():
                res_limits = limits.resources.get(res)
                if not res_limits:
                    continue
                found = entlimits.limit_for(res_limits, kind, who.name(kind))
                if found is None:
                    continue
                kind_of = kinds.get(res, "long")
                try:
                    ceiling = entlimits.amount(kind_of, found[0])
                    wanted = entlimits.amount(kind_of, value)
                except (ValueError, PbsError):
                    continue
                used = usage.amounts.get((scope, kind, who.name(kind), res), 0.0)
                if used + wanted > ceiling:
                    return _res_text(scope is not None, kind, found[1]).format(
                        q=queue, n=who.name(kind), r=res)
    return None


def over_soft(who: Entity, scope: Optional[str], request: Mapping[str, str],
              kinds: Mapping[str, str], soft: ObjectLimits, usage: Usage) -> bool:
    """Whether ``who`` is over a soft limit of the queue ``scope`` (None: the server): its
    running jobs pass a count limit, or their amount of a resource the job requests passes
    that resource's limit (find_preempt_bits)."""
    for kind in _ORDER:
        found = entlimits.limit_for(soft.counts, kind, who.name(kind))
        if found is not None:
            try:
                if int(found[0]) < usage.counts.get((scope, kind, who.name(kind)), 0):
                    return True
            except ValueError:
                pass
        for res, res_limits in soft.resources.items():
            if res not in request:
                continue
            found = entlimits.limit_for(res_limits, kind, who.name(kind))
            if found is None:
                continue
            try:
                ceiling = entlimits.amount(kinds.get(res, "long"), found[0])
            except (ValueError, PbsError):
                continue
            if usage.amounts.get((scope, kind, who.name(kind), res), 0.0) > ceiling:
                return True
    return False
