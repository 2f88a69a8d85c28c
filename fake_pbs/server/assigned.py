"""``resources_assigned`` of the server and its queues (extra set k08p, k08q, k10).

PBS adds a running job's ``Resource_List`` members that are server-assigned resources
(model/resources.py ``SERVER_ASSIGNED``, and a site's resources created with flag ``q``) to
its queue's and the server's
``resources_assigned`` when the job starts, and takes them off when it ends or is suspended
(k08p: two running jobs and a suspended one, ``ncpus=2``).  An attribute once set stays, at
0 (k08p: ``resources_assigned.mpiprocs=0`` long after i02's mpiprocs job ended), so the names
a queue or the server ever totalled are kept (``_assigned``, saved with it).
"""
from typing import Any, Dict, Iterable, List, Mapping, MutableMapping, Optional, Tuple

from fake_pbs.model import resources, states as st
from fake_pbs.server.defaults import format_kb, mem_bytes

Job = Dict[str, Any]

_HOLDING = (st.RUNNING, st.EXITING)


def totalled(site: Optional[Mapping[str, Mapping[str, Any]]] = None) -> Tuple[str, ...]:
    """The resources the server totals: PBS's built-ins with the RASSN flag and a site's
    resources created with flag ``q`` (resc_def_all.c, the ``q`` flag's ATR_DFLAG_RASSN)."""
    names = set(resources.SERVER_ASSIGNED)
    names.update(name for name, entry in (site or {}).items()
                 if "q" in str(entry.get("flag", "")))
    return tuple(sorted(names))


def job_names(job: Job,
              site: Optional[Mapping[str, Mapping[str, Any]]] = None) -> List[str]:
    """The server-assigned resources the job's Resource_List holds."""
    counted = set(totalled(site))
    names = (n.split(".", 1)[1] for n in job if n.startswith("Resource_List."))
    return sorted(n for n in names if n in counted)


def remember(record: MutableMapping[str, str], names: Iterable[str]) -> bool:
    """Add ``names`` to the record's kept names; True when that changed the record."""
    known = set(filter(None, record.get("_assigned", "").split(",")))
    merged = known.union(names)
    if merged == known:
        return False
    record["_assigned"] = ",".join(sorted(merged))
    return True


def totals(record: MutableMapping[str, str], jobs: Iterable[Job],
           site: Optional[Mapping[str, Mapping[str, Any]]] = None) -> Dict[str, str]:
    """``resources_assigned.*`` of a queue or the server over its jobs (array parents hold
    nothing; suspended jobs gave theirs back); ``site``: the site's resource definitions."""
    holding = [j for j in jobs if j.get("job_state") in _HOLDING and j.get("array") != "True"]
    names = set(filter(None, record.get("_assigned", "").split(",")))
    for job in holding:
        names.update(job_names(job, site))
    out: Dict[str, str] = {}
    for name in sorted(names):
        key = "Resource_List." + name
        definition = resources.lookup(name)
        site_type = str((site or {}).get(name, {}).get("type", ""))
        if site_type == "size" or (definition is not None
                                   and definition.type == resources.SIZE):
            value = format_kb(sum(mem_bytes(j[key]) for j in holding if key in j))
        else:
            value = str(sum(int(float(j.get(key, "0") or 0)) for j in holding))
        out["resources_assigned." + name] = value
    return out
