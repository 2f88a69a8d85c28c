"""The attribute lists the coverage map must cover: OpenPBS's (vendored in
``pbs_attributes.tsv``) and the fake's own model tables."""
from pathlib import Path
from typing import Dict, List, Set, Tuple

from fake_pbs.model import hooks, job_attrs, qmgr_attrs, resources

HERE = Path(__file__).resolve().parent
PBS_LIST = HERE / "pbs_attributes.tsv"

#: the objects in the order docs/coverage.md shows them, with their headings
OBJECTS: Tuple[Tuple[str, str], ...] = (
    ("job", "Job"), ("server", "Server"), ("queue", "Queue"), ("node", "Node (vnode)"),
    ("sched", "Scheduler"), ("resource", "Resources (built-in)"),
    ("resourcedef", "Resource definitions (qmgr create resource)"), ("hook", "Hook"),
    ("resv", "Reservation"),
)


def pbs_attributes() -> List[Tuple[str, str, str]]:
    """(object, attribute, type) rows of OpenPBS 23.06's definition tables."""
    rows = []
    for line in PBS_LIST.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        obj, name, kind = line.split("\t")
        rows.append((obj, name, kind))
    return rows


def fake_attributes() -> Dict[str, Set[str]]:
    """object -> the attribute names the fake's model tables define."""
    found: Dict[str, Set[str]] = {
        "job": set(job_attrs.JOB_ATTRS),
        "resource": set(resources.BUILTIN),
        "resourcedef": {attr[0] for attr in qmgr_attrs.RESOURCE},
        "hook": set(hooks.HOOK_ATTRS),
    }
    for obj in ("server", "queue", "node", "sched"):
        found[obj] = {attr[0] for attr in qmgr_attrs.TABLES[obj]}
    return found
