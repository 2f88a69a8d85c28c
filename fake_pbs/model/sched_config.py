"""``sched_priv/sched_config``: the scheduler's file, of which the fake reads ``resources:``.

PBS's scheduler schedules (checks, assigns, shows in exec_vnode) only the resources named on the
``resources:`` line, ``ncpus, mem, arch, host, vnode, aoe, eoe`` in a fresh install; a site that
creates a consumable resource adds it there (extra case n02: with ``ngpus`` created but not on
the line, ``select=1:ncpus=1:ngpus=4`` runs on a 2-gpu vnode and exec_vnode shows only ncpus; once
on the line, it is assigned, shown and refused with ``Insufficient amount of resource``).  The
scheduler reads the file at start and again when the server sends it SCH_CONFIGURE (any ``set
sched``, ``create``/``delete resource``), never in between (fifo.cpp ``schedule``).
"""
from typing import Iterable, List, Optional, Tuple

# A fresh install's line (sched_config of OpenPBS 23.06, n02p shows it with ngpus appended).
DEFAULT_RESOURCES: Tuple[str, ...] = ("ncpus", "mem", "arch", "host", "vnode", "aoe", "eoe")

_HEADER = """\
# This is the config file for the scheduling policy (fake_pbs reads the resources line).
# resources: the resources the scheduler checks, assigns and shows in exec_vnode.
# ncpus is always scheduled; add a site's consumable resources (ngpus, ...) here, then
# make the scheduler re-read this file with any "qmgr -c 'set sched ...'".

"""


def render(resources: Iterable[str]) -> str:
    """The file a new install writes, with ``resources`` on its ``resources:`` line."""
    return _HEADER + 'resources: "%s"\n' % ", ".join(resources)


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
