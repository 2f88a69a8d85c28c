"""Preemption settings of the scheduler object and the methods a victim can be preempted with.

``preempt_order`` is ``<letters> [<pct> <letters> ...]``: letters from S (suspend), C (checkpoint),
R (requeue), D (delete), each at most once per group; the numbers are the percentage of the job's
requested time *remaining* at which the next group takes over (``"SCR 80 SC 50 S"``: 100..81 %
uses SCR, 80..51 % SC, 50..0 % S). Anything else is PBSE_BADATVAL (reference §7.1, §9.3; PTL
pbs_preempt_params.py; transcripts d08*).
"""
from typing import List, Mapping, NamedTuple, Sequence, Tuple

from fake_pbs.model.errors import PBSE_BADATVAL, PbsError

__all__ = ["OrderStep", "parse_preempt_order", "parse_preempt_prio", "check_preempt_sort",
           "check_preempt_queue_prio", "check_sched_value", "methods_for", "usable_methods",
           "DEFAULT_ORDER", "DEFAULT_PRIO", "DEFAULT_QUEUE_PRIO", "DEFAULT_SORT",
           "walltime_seconds"]

DEFAULT_ORDER = "SCR"
DEFAULT_PRIO = "express_queue, normal_jobs"
DEFAULT_QUEUE_PRIO = "150"
DEFAULT_SORT = "min_time_since_start"

_MAX_GROUPS = 20
_PRIO_WORDS = frozenset({
    "express_queue", "starving_jobs", "normal_jobs", "fairshare", "queue_softlimits",
    "server_softlimits",
})


class OrderStep(NamedTuple):
    """Use ``methods`` while the remaining percentage is above ``above`` (the next group's pct)."""

    methods: str
    above: int


def _bad() -> PbsError:
    return PbsError(PBSE_BADATVAL)


def parse_preempt_order(text: str) -> List[OrderStep]:
    """Validate and parse a preempt_order; raise PbsError 15014 when PBS would reject it.

    As ``verify_value_preempt_order``: the first token is letters; letter groups and integers
    alternate (a trailing integer is accepted); each group uses S, C, R, D at most once; at most
    20 integers.
    """
    tokens = text.split()
    if not tokens or tokens[0][0].isdigit():
        raise _bad()
    groups: List[str] = []
    limits: List[int] = []
    for index, token in enumerate(tokens):
        if len(limits) >= _MAX_GROUPS:
            raise _bad()
        if index % 2 == 0:
            if any(char not in "SCRD" for char in token) or len(set(token)) != len(token):
                raise _bad()
            groups.append(token)
        elif token.isdigit():
            limits.append(int(token))
        else:
            raise _bad()
    return [OrderStep(methods, limits[index] if index < len(limits) else -1)
            for index, methods in enumerate(groups)]


def parse_preempt_prio(text: str, need_normal: bool = True) -> List[List[str]]:
    """``express_queue, normal_jobs, express_queue+fairshare`` -> levels, highest first.

    The scheduler needs a ``normal_jobs`` level to rank the others against; qmgr checks only the
    words (``need_normal=False``).
    """
    levels: List[List[str]] = []
    for item in text.split(","):
        words = [word.strip() for word in item.split("+")]
        if not all(word in _PRIO_WORDS for word in words):
            raise _bad()
        levels.append(words)
    if need_normal and not any("normal_jobs" in level for level in levels):
        raise _bad()
    return levels


def check_sched_value(name: str, value: str) -> None:
    """Raise PBSE_BADATVAL when qmgr may not set sched attribute ``name`` to ``value``."""
    if name == "preempt_order":
        parse_preempt_order(value)
    elif name == "preempt_prio":
        parse_preempt_prio(value, need_normal=False)
    elif name == "preempt_sort":
        check_preempt_sort(value)


def check_preempt_sort(text: str) -> str:
    """Only ``min_time_since_start`` is allowed."""
    if text != DEFAULT_SORT:
        raise _bad()
    return text


def check_preempt_queue_prio(text: str) -> int:
    if not text.isdigit():
        raise _bad()
    return int(text)


def walltime_seconds(text: str) -> int:
    """``HH:MM:SS`` / ``MM:SS`` / seconds (possibly fractional) -> seconds."""
    total = 0.0
    for part in text.split(":"):
        total = total * 60 + float(part or 0)
    return int(total + 0.5)


def _requested_time(job: Mapping[str, str]) -> Tuple[int, str]:
    """The time the percentage is taken from: walltime, soft_walltime, else cput."""
    for res in ("walltime", "soft_walltime", "cput"):
        value = job.get("Resource_List." + res)
        if value:
            try:
                return walltime_seconds(value), res
            except ValueError:
                continue
    return 0, ""


def _used_time(job: Mapping[str, str], res: str, now: float) -> float:
    """Time used so far: the mom's last report, or the time since the start when that is more
    (the fake's moms report resources_used only at the end; PBS's every few seconds)."""
    reported = 0.0
    used = job.get("resources_used." + ("walltime" if res != "cput" else "cput"))
    if used:
        try:
            reported = float(walltime_seconds(used))
        except ValueError:
            pass
    if res == "cput":
        return reported
    started = job.get("stime")
    if started:
        try:
            return max(now - float(started), reported)
        except ValueError:
            pass
    return reported


def methods_for(job: Mapping[str, str], order: Sequence[OrderStep], now: float) -> str:
    """The letters of ``order`` that apply to ``job`` now, by its percentage of time remaining.

    A job without a requested time uses the first group (100 % remaining).
    """
    requested, res = _requested_time(job)
    percent = 100.0
    if requested > 0:
        left = requested - _used_time(job, res, now)
        percent = max(left, 0.0) * 100.0 / requested
    for step in order:
        if percent > step.above:
            return step.methods
    return order[-1].methods


def usable_methods(job: Mapping[str, str], methods: str, checkpoint_configured: bool) -> List[str]:
    """Filter ``methods`` to those that can apply to this victim (job_info.cpp 3440-3462).

    S always; C if the job's Checkpoint is not ``n`` and the site has a checkpoint action;
    R if the job is rerunnable; D always.
    """
    usable = []
    for method in methods:
        if method == "C" and (job.get("Checkpoint", "u") == "n" or not checkpoint_configured):
            continue
        if method == "R" and job.get("Rerunable", "True") != "True":
            continue
        usable.append(method)
    return usable
