"""``sched_priv/sched_config``: the scheduler's file, of which the fake reads ``resources:``.

PBS's scheduler schedules (checks, assigns, shows in exec_vnode) only the resources named on the
``resources:`` line, ``ncpus, mem, arch, host, vnode, aoe, eoe`` in a fresh install; a site that
creates a consumable resource adds it there (extra case n02: with ``ngpus`` created but not on
the line, ``select=1:ncpus=1:ngpus=4`` runs on a 2-gpu vnode and exec_vnode shows only ncpus; once
on the line, it is assigned, shown and refused with ``Insufficient amount of resource``).  The
scheduler reads the file at start and again when the server sends it SCH_CONFIGURE (any ``set
sched``, ``create``/``delete resource``), never in between (fifo.cpp ``schedule``).

Of the other lines the fake acts on ``node_sort_key`` (the vnode order of the node search:
``sort_priority`` and consumable resources, HIGH or LOW, by total, unused or assigned amount)
and ``preemptive_sched``.  Every other key is taken when it holds the value of PBS's stock file
(what the fake does anyway, or a setting of a feature that is off); any other value, and any
key PBS does not know, is listed in :attr:`SchedConfig.unmodelled`, which the scheduler logs at
each read: never taken and silently ignored (docs/differences.md).
"""
from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Tuple

# A fresh install's line (sched_config of OpenPBS 23.06, n02p shows it with ngpus appended).
DEFAULT_RESOURCES: Tuple[str, ...] = ("ncpus", "mem", "arch", "host", "vnode", "aoe", "eoe")

_HEADER = """\
# This is the config file for the scheduling policy.  fake_pbs acts on resources,
# node_sort_key and preemptive_sched; other keys are taken with PBS's stock values only
# (the scheduler log names any other line).  Make the scheduler re-read this file with any
# "qmgr -c 'set sched ...'".
# resources: the resources the scheduler checks, assigns and shows in exec_vnode.
# ncpus is always scheduled; add a site's consumable resources (ngpus, ...) here.

"""

#: the node order of PBS's stock file: the vnodes' Priority, highest first
STOCK_NODE_SORT = 'node_sort_key: "sort_priority HIGH"\tALL\n'


def render(resources: Iterable[str]) -> str:
    """The file a new install writes, with ``resources`` on its ``resources:`` line."""
    return _HEADER + STOCK_NODE_SORT + 'resources: "%s"\n' % ", ".join(resources)


def default_text(site: Iterable[str] = ()) -> str:
    """A fresh file: PBS's line plus the site's scheduled resources (in order, once)."""
    names = list(DEFAULT_RESOURCES)
    names.extend(name for name in site if name not in names)
    return render(names)


def parse_resources(text: str) -> Optional[List[str]]:
    """The names of the last ``resources:`` line (comments ignored), or None without one."""
    found: Optional[List[str]] = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        key, sep, value = line.partition(":")
        if not sep or key.strip() != "resources":
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        found = [word.strip() for word in value.split(",") if word.strip()]
    return found


def scheduled(text: Optional[str]) -> Tuple[str, ...]:
    """The resources the scheduler schedules for this file's text (ncpus always; PBS's default
    line when the file or its line is missing)."""
    names = parse_resources(text) if text is not None else None
    if names is None:
        names = list(DEFAULT_RESOURCES)
    if "ncpus" not in names:
        names.insert(0, "ncpus")
    return tuple(names)


class NodeSortKey(NamedTuple):
    """One ``node_sort_key``: ``sort_priority`` or a resource, HIGH first or LOW first, by
    the vnode's ``total`` (resources_available), ``unused`` or ``assigned`` amount."""

    name: str
    high: bool
    kind: str = "total"


class SchedConfig(NamedTuple):
    """What the fake's scheduler takes from the file."""

    resources: Tuple[str, ...]
    node_sort: Tuple[NodeSortKey, ...]
    preemptive: bool
    #: ``line N: text`` for each line the fake does not act on
    unmodelled: Tuple[str, ...]


# PBS's keys (config.h PARSE_*) whose stock value the fake's behaviour is, with the values
# taken (lower case, unquoted); an empty set takes any value (the feature it tunes is off: fair
# share, prime time and dedicated time need files the fake has no use for).
_ANY: FrozenSet[str] = frozenset()
_TRUE = frozenset(("true", "t", "yes", "y", "1"))
_FALSE = frozenset(("false", "f", "no", "n", "0"))
STOCK: Dict[str, FrozenSet[str]] = {
    "round_robin": _FALSE, "by_queue": _TRUE, "strict_ordering": _FALSE,
    "backfill_prime": _FALSE, "prime_exempt_anytime_queues": _FALSE, "prime_spill": _ANY,
    "primetime_prefix": _ANY, "nonprimetime_prefix": _ANY, "dedicated_prefix": _ANY,
    "provision_policy": frozenset(("aggressive_provision",)),
    "smp_cluster_dist": frozenset(("pack",)), "fair_share": _FALSE,
    "fairshare_usage_res": _ANY, "fairshare_entity": _ANY, "fairshare_decay_time": _ANY,
    "fairshare_decay_factor": _ANY, "fairshare_enforce_no_shares": _ANY,
    "unknown_shares": _ANY, "half_life": _ANY, "help_starving_jobs": _TRUE,
    "max_starve": _ANY, "backfill": _TRUE, "sort_queues": _TRUE,
    "resource_unset_infinite": _ANY, "mom_resources": _ANY,
}

_PRIME_OPTIONS = frozenset(("all", "prime", "non_prime", "none"))
_SORT_KINDS = frozenset(("total", "unused", "assigned"))


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _split(line: str) -> Tuple[str, str, str]:
    """``key: value [prime option]`` -> (key, value, option); a quoted value keeps its words."""
    key, _, rest = line.partition(":")
    rest = rest.strip()
    if rest.startswith('"') and rest.find('"', 1) > 0:
        end = rest.find('"', 1)
        return key.strip(), rest[1:end], rest[end + 1:].strip().lower()
    words = rest.rsplit(None, 1)
    if len(words) == 2 and words[1].lower() in _PRIME_OPTIONS:
        return key.strip(), words[0], words[1].lower()
    return key.strip(), rest, ""


def parse_node_sort(value: str, consumables: Iterable[str]) -> Optional[NodeSortKey]:
    """``sort_priority HIGH`` or ``ncpus LOW unused``; None when PBS would refuse the line
    (a resource that is not consumable, a word it does not know)."""
    words = value.split()
    if len(words) not in (2, 3) or words[1].upper() not in ("HIGH", "LOW"):
        return None
    kind = words[2].lower() if len(words) == 3 else "total"
    if kind not in _SORT_KINDS:
        return None
    if words[0] != "sort_priority" and words[0] not in consumables:
        return None
    if words[0] == "sort_priority" and len(words) == 3:
        return None
    return NodeSortKey(words[0], words[1].upper() == "HIGH", kind)


def parse(text: Optional[str], consumables: Iterable[str] = DEFAULT_RESOURCES) -> SchedConfig:
    """The file's settings (``consumables``: the resources a ``node_sort_key`` may name).

    No file is PBS's stock file."""
    if text is None:
        text = render(DEFAULT_RESOURCES)
    known = set(consumables)
    node_sort: List[NodeSortKey] = []
    preemptive = True
    unmodelled: List[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, value, option = _split(line)
        if key == "resources" and ":" in line:
            continue
        if key == "node_sort_key":
            sort_key = parse_node_sort(value, known)
            if sort_key is not None and option in ("", "all", "none"):
                node_sort.append(sort_key)
                continue
        elif key == "preemptive_sched" and option in ("", "all"):
            if value.lower() in _TRUE | _FALSE:
                preemptive = value.lower() in _TRUE
                continue
        elif key in STOCK:
            taken = STOCK[key]
            if not taken or value.strip().lower() in taken:
                continue
        unmodelled.append("line %d: %s" % (number, line))
    return SchedConfig(scheduled(text), tuple(node_sort), preemptive, tuple(unmodelled))
