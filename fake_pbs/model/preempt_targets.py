"""A job's ``preempt_targets``: which running jobs it may preempt.

OpenPBS 23.06: the server checks the request (server/resc_attr.c ``preempt_targets_action``:
each item is ``queue=<an existing queue>`` or ``Resource_List.<a defined resource>=<value>``,
or ``none`` alone; an unknown queue is 15018, an unknown resource 15035, anything else
15014); the scheduler, while its ``preempt_targets_enable`` is true, lets a job naming ``none``
preempt nothing and a job naming targets preempt only running jobs that match one of them
(job_info.cpp ``preempt_job_set_filter``: the job's queue, or the resource's value as
requested, compared as text).
"""
from typing import Callable, List, Mapping, Optional, Tuple

from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_UNKQUE, PBSE_UNKRESC, PbsError

NONE = "none"

#: one target: ("queue", name, "") or ("Resource_List", resource, value)
Target = Tuple[str, str, str]


def _items(value: str) -> List[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def check(value: str, queue_exists: Callable[[str], bool],
          resource_known: Callable[[str], bool]) -> None:
    """preempt_targets_action's verdict on a request's value (nothing when it is good)."""
    items = _items(value)
    if not items:
        raise PbsError(PBSE_BADATVAL)
    for item in items:
        if item.lower().startswith(NONE):
            if len(items) > 1:
                raise PbsError(PBSE_BADATVAL)
            return
        cut = min((at for at in (item.find("."), item.find("=")) if at >= 0), default=-1)
        if cut < 0:
            raise PbsError(PBSE_BADATVAL)
        head, sep, rest = item[:cut], item[cut], item[cut + 1:]
        if head.lower() == "resource_list" and sep == ".":
            name, equals, _ = rest.partition("=")
            if not equals:
                raise PbsError(PBSE_BADATVAL)
            if not resource_known(name):
                raise PbsError(PBSE_UNKRESC)
        elif head.lower() == "queue" and sep == "=":
            if not queue_exists(rest):
                raise PbsError(PBSE_UNKQUE)
        else:
            raise PbsError(PBSE_BADATVAL)


def parse(value: Optional[str]) -> Optional[List[Target]]:
    """The targets of a request's value: None when it names none (no limit), [] when the job
    may preempt nothing (``none``)."""
    if not value:
        return None
    items = _items(value)
    if any(item.lower() == NONE for item in items):
        return []
    targets: List[Target] = []
    for item in items:
        if item.lower().startswith("queue="):
            targets.append(("queue", item[len("queue="):], ""))
        elif item.lower().startswith("resource_list."):
            name, _, wanted = item[len("resource_list."):].partition("=")
            targets.append(("Resource_List", name, wanted))
    return targets


def matches(job: Mapping[str, str], targets: List[Target]) -> bool:
    """Whether the running ``job`` is one of ``targets``."""
    for kind, name, wanted in targets:
        if kind == "queue" and job.get("queue") == name:
            return True
        if kind == "Resource_List" and job.get("Resource_List." + name) == wanted:
            return True
    return False
