"""Which resources a scheduling cycle counts: the consumable ones of the ``resources:`` line.

A name on the line that the server does not define (yet) is skipped, as PBS's scheduler skips
it; a defined resource without the consumable flag (``n``/``f``) is matched, not counted.
"""
from typing import Any, Mapping, Optional, Sequence, Tuple

from fake_pbs.server import resourcing


def consumables_of(scheduled: Sequence[str],
                   custom: Optional[Mapping[str, Any]] = None) -> Tuple[str, ...]:
    """``scheduled`` (sched_config's line) reduced to its consumables, ncpus first."""
    table = resourcing.table(custom)
    names = ["ncpus"]
    for name in scheduled:
        defn = table.get(name)
        if name not in names and defn is not None and defn.consumable:
            names.append(name)
    return tuple(names)


#: resource types the scheduler counts in a pool (resource.cpp: numeric is consumable there)
_NUMERIC = frozenset(("long", "size", "float", "time"))


def pooled_of(scheduled: Sequence[str],
              custom: Optional[Mapping[str, Any]] = None) -> Tuple[str, ...]:
    """``scheduled`` reduced to the numeric resources, which the server's and the queues'
    ``resources_available`` pools hold back (model/pools.py), whatever their flags."""
    table = resourcing.table(custom)
    return tuple(name for name in scheduled
                 if name in table and table[name].type in _NUMERIC)
