"""A vnode's ``state``: PBS keeps it as bits and writes the set names in one fixed order.

The order is OpenPBS's state table (attr_node_func.c ``ns[]``): a node taken offline while it
runs a job is ``offline,job-busy`` whichever came first; ``free`` only when no other state is set.
"""
from typing import Iterable

ORDER = ("state-unknown", "unknown", "down", "stale", "offline", "job-busy", "job-exclusive",
         "busy", "initializing", "provisioning", "wait-provisioning", "resv-exclusive",
         "unresolvable", "offline_by_mom", "maintenance", "sleep")
_RANK = {name: rank for rank, name in enumerate(ORDER)}
FREE = "free"


def compose(flags: Iterable[str]) -> str:
    """The state text for a set of state names (``free`` when there is none)."""
    names = []
    for flag in flags:
        flag = flag.strip()
        if flag and flag != FREE and flag not in names:
            names.append(flag)
    names.sort(key=lambda name: _RANK.get(name.lower(), len(ORDER)))
    return ",".join(names) if names else FREE
