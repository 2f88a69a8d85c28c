"""Validation of the scheduler's preemption attributes as qmgr sets them (d08*, PTL
pbs_preempt_params.py).  Used when ``fake_pbs.model.preempt.parse_preempt_order`` is absent.

A bad value is ``Illegal attribute or resource value`` (PBSE_BADATVAL, exit 166).
"""
from typing import List, Tuple, Union

from fake_pbs.model.errors import PBSE_BADATVAL, PbsError

_METHODS = "SCRD"
_PRIO_ITEMS = ("express_queue", "normal_jobs", "fairshare", "queue_softlimits",
               "server_softlimits", "starving_jobs")


def parse_preempt_order(value: str) -> List[Tuple[str, int]]:
    """``"SCR 80 SC 50 S"`` -> ``[("SCR", 100), ("SC", 80), ("S", 50)]``: each method string
    with the upper bound (percent of walltime used) from which it applies."""
    tokens = value.split()
    if not tokens:
        raise PbsError(PBSE_BADATVAL)
    result: List[Tuple[str, int]] = []
    bound = 100
    expect_methods = True
    for token in tokens:
        if expect_methods:
            if not token or any(c not in _METHODS for c in token) or len(set(token)) != len(token):
                raise PbsError(PBSE_BADATVAL)
            result.append((token, bound))
        else:
            if not token.isdigit() or not 0 < int(token) < bound:
                raise PbsError(PBSE_BADATVAL)
            bound = int(token)
        expect_methods = not expect_methods
    if expect_methods:  # ended on a percentage
        raise PbsError(PBSE_BADATVAL)
    return result


def check_preempt_prio(value: str) -> None:
    for item in value.split(","):
        parts = [p.strip() for p in item.split("+")]
        if not all(p in _PRIO_ITEMS for p in parts):
            raise PbsError(PBSE_BADATVAL)


def check_sched_value(name: str, value: str) -> None:
    """Raise PBSE_BADATVAL when ``value`` is not acceptable for sched attribute ``name``."""
    checker: Union[None, object] = None
    if name == "preempt_order":
        try:
            from fake_pbs.model import preempt  # the scheduler engineer's parser, when present
            checker = getattr(preempt, "parse_preempt_order", None)
        except ImportError:
            checker = None
        if callable(checker):
            try:
                checker(value)
            except PbsError:
                raise
            except Exception:
                raise PbsError(PBSE_BADATVAL) from None
        else:
            parse_preempt_order(value)
    elif name == "preempt_prio":
        check_preempt_prio(value)
    elif name == "preempt_sort" and value != "min_time_since_start":
        raise PbsError(PBSE_BADATVAL)
