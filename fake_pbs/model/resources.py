"""Resource definitions: PBS's built-in resources, their value types, and what a site adds.

The built-in list follows OpenPBS's ``master_resc_def_all.xml`` as a standard build compiles it
(``pe_mask`` is there only when ``PE_MASK`` is non-zero, which no build defines); a
server knows exactly these until a manager runs ``qmgr -c 'create resource ...'`` (extra case
n02: ``ngpus`` is not one of them).  The commands never know a site's resources (a real qsub
does not either: the server rejects unknown ones).

:data:`SITE_DEFAULTS` is what a default fake cluster creates at install, the way a site with
GPUs does (``create resource ngpus type=long, flag=nh`` plus ``ngpus`` on the scheduler's
``resources:`` line); ``cluster.json``'s ``site_resources`` replaces it (the fidelity replay
sets it empty, so that its server has PBS's built-ins only).

Flags use PBS's letters: ``h`` host-level (may appear inside a ``select`` chunk and is summed per
host), ``n`` consumable (the scheduler accounts for it on vnodes), ``q`` server/queue consumable.
"""
from __future__ import annotations

# qsub imports this module: ``typing`` (and the ``re`` it pulls in) stays out of its start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Mapping, Optional

# Value types, as PBS names them in `qmgr create resource ... type=`.
LONG = "long"
SIZE = "size"
TIME = "time"
STRING = "string"
BOOLEAN = "boolean"
FLOAT = "float"
STRING_ARRAY = "string_array"

TYPES = (LONG, SIZE, TIME, STRING, BOOLEAN, FLOAT, STRING_ARRAY)


class ResourceDef:
    """One resource: its name, value type and PBS flag letters (immutable by convention)."""

    __slots__ = ("name", "type", "flags")

    def __init__(self, name: str, type: str, flags: str = "") -> None:  # noqa: A002 (PBS's word)
        self.name = name
        self.type = type
        self.flags = flags

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResourceDef) and (self.name, self.type, self.flags) == (
            other.name, other.type, other.flags)

    def __hash__(self) -> int:
        return hash((self.name, self.type, self.flags))

    def __repr__(self) -> str:
        return "ResourceDef(name=%r, type=%r, flags=%r)" % (self.name, self.type, self.flags)

    @property
    def host_level(self) -> bool:
        """True when the resource may be requested inside a select chunk (flag ``h``)."""
        return "h" in self.flags

    @property
    def consumable(self) -> bool:
        """True when the scheduler accounts for it on vnodes (flag ``n`` or ``f``)."""
        return "n" in self.flags or "f" in self.flags


def _defs(*items: ResourceDef) -> Dict[str, ResourceDef]:
    return {item.name: item for item in items}


BUILTIN: Dict[str, ResourceDef] = _defs(
    ResourceDef("cput", TIME),
    ResourceDef("mem", SIZE, "hn"),
    ResourceDef("walltime", TIME),
    ResourceDef("soft_walltime", TIME),
    ResourceDef("min_walltime", TIME),
    ResourceDef("max_walltime", TIME),
    ResourceDef("ncpus", LONG, "hn"),
    ResourceDef("naccelerators", LONG, "hn"),
    ResourceDef("select", STRING),
    ResourceDef("place", STRING),
    ResourceDef("nodes", STRING),
    ResourceDef("nodect", LONG, "q"),
    ResourceDef("arch", STRING, "h"),
    ResourceDef("nchunk", LONG),
    ResourceDef("vntype", STRING_ARRAY, "h"),
    ResourceDef("mpiprocs", LONG, "h"),
    ResourceDef("ompthreads", LONG, "h"),
    ResourceDef("cpupercent", LONG),
    ResourceDef("energy", FLOAT),
    ResourceDef("file", SIZE),
    ResourceDef("pmem", SIZE),
    ResourceDef("vmem", SIZE, "hn"),
    ResourceDef("pvmem", SIZE),
    ResourceDef("nice", LONG),
    ResourceDef("pcput", TIME),
    ResourceDef("nodemask", STRING),
    ResourceDef("hpm", LONG),
    ResourceDef("ssinodes", LONG),
    ResourceDef("host", STRING, "h"),
    ResourceDef("vnode", STRING, "h"),
    ResourceDef("resc", STRING_ARRAY),
    ResourceDef("software", STRING),
    ResourceDef("site", STRING),
    ResourceDef("exec_vnode", STRING),
    ResourceDef("start_time", LONG),
    ResourceDef("partition", STRING),
    ResourceDef("aoe", STRING_ARRAY, "h"),
    ResourceDef("eoe", STRING, "h"),
    ResourceDef("preempt_targets", STRING_ARRAY),
    ResourceDef("accelerator", BOOLEAN, "h"),
    ResourceDef("accelerator_model", STRING, "h"),
    ResourceDef("accelerator_memory", SIZE, "hn"),
    ResourceDef("accelerator_group", STRING, "h"),
    ResourceDef("pstate", STRING, "h"),
    ResourceDef("hbmem", SIZE, "hn"),
    ResourceDef("pgov", STRING, "h"),
    ResourceDef("pcap_node", LONG),
    ResourceDef("pcap_accelerator", LONG),
)

# What a default fake cluster creates at install, as a site with GPUs does: each entry is a
# ``create resource NAME type=T, flag=F`` and, with ``sched``, the name added to the scheduler's
# ``resources:`` line (cluster.json ``site_resources`` replaces this list).
SITE_DEFAULTS = ({"name": "ngpus", "type": LONG, "flag": "nh", "sched": True},)

# Resources the server and queues total in ``resources_assigned`` for the jobs holding them
# (ATR_DFLAG_RASSN in master_resc_def_all.xml); custom ones with flag ``q`` are totalled too.
SERVER_ASSIGNED = frozenset(("mem", "ncpus", "naccelerators", "nodect", "mpiprocs", "vmem",
                             "hpm", "accelerator_memory", "hbmem"))


def default_resources() -> Dict[str, ResourceDef]:
    """A fresh server's resource table: PBS's built-ins (sites add theirs with qmgr)."""
    return dict(BUILTIN)


def lookup(name: str,
           table: Optional[Mapping[str, ResourceDef]] = None) -> Optional[ResourceDef]:
    """The definition of ``name`` in ``table`` (default: the built-ins), or None.

    PBS resource names are case-sensitive, so no folding happens here.
    """
    return (BUILTIN if table is None else table).get(name)
