"""A stand-in first-fit placement used only while ``fake_pbs.server.sched.cycle`` is missing.

It places ``select`` chunks (ncpus, mem, ngpus) FIFO on vnodes with free CPUs, honouring
``place=scatter`` (one chunk per host).  The real scheduler replaces it entirely.
"""
from typing import Any, Dict, List, NamedTuple, Optional

from fake_pbs.server.defaults import mem_bytes

Attrs = Dict[str, str]


class Run(NamedTuple):
    jobid: str
    exec_vnode: str
    exec_host: str
    hosts: List[Dict[str, Any]]


class CycleResult(NamedTuple):
    runs: List[Run]
    comments: Dict[str, str]


def _chunks(select: str) -> List[Dict[str, str]]:
    chunks: List[Dict[str, str]] = []
    for spec in select.split("+"):
        parts = spec.split(":")
        count = 1
        if parts and parts[0].isdigit():
            count = int(parts.pop(0))
        values = dict(p.partition("=")[::2] for p in parts if p)
        values.setdefault("ncpus", "1")
        chunks.extend(dict(values) for _ in range(count))
    return chunks


def _free(node: Attrs, key: str) -> int:
    avail = node.get("resources_available." + key, "0")
    used = node.get("resources_assigned." + key, "0")
    if key == "mem":
        return mem_bytes(avail) - mem_bytes(used)
    return int(avail or 0) - int(used or 0)


def _fits(node: Attrs, chunk: Dict[str, str], taken: Dict[str, int]) -> bool:
    for key, value in chunk.items():
        if key in ("ncpus", "ngpus"):
            if _free(node, key) - taken.get(key, 0) < int(value):
                return False
        elif key == "mem":
            if _free(node, "mem") - taken.get("mem", 0) < mem_bytes(value):
                return False
    return True


def place(job: Attrs, nodes: Dict[str, Attrs]) -> Optional[str]:
    chunks = _chunks(job.get("Resource_List.select", "1:ncpus=1"))
    scatter = "scatter" in job.get("Resource_List.place", "pack")
    usable = {n: a for n, a in nodes.items()
              if not any(f in a.get("state", "free")
                         for f in ("offline", "down", "unknown", "maintenance"))}
    taken: Dict[str, Dict[str, int]] = {n: {} for n in usable}
    parts: List[str] = []
    used_hosts: List[str] = []
    for chunk in chunks:
        for name, node in usable.items():
            if scatter and name in used_hosts:
                continue
            if _fits(node, chunk, taken[name]):
                for key, value in chunk.items():
                    if key in ("ncpus", "ngpus"):
                        taken[name][key] = taken[name].get(key, 0) + int(value)
                    elif key == "mem":
                        taken[name]["mem"] = taken[name].get("mem", 0) + mem_bytes(value)
                res = ":".join("%s=%s" % (k, chunk[k]) for k in ("ncpus", "mem", "ngpus")
                               if k in chunk)
                parts.append("(%s:%s)" % (name, res))
                used_hosts.append(name)
                break
        else:
            return None
    return "+".join(parts)


def run_cycle(server: Attrs, sched: Attrs, queues: Dict[str, Attrs], nodes: Dict[str, Attrs],
              jobs: List[Attrs], now: int) -> CycleResult:
    runs: List[Run] = []
    comments: Dict[str, str] = {}
    scratch = {n: dict(a) for n, a in nodes.items()}
    for job in jobs:
        if job.get("job_state") != "Q" or job.get("array") == "True":
            continue
        queue = queues.get(job.get("queue", ""), {})
        if queue.get("started", "True") != "True":
            continue
        exec_vnode = place(job, scratch)
        if exec_vnode is None:
            comments[job["id"]] = "Not Running: Not enough free nodes available"
            continue
        for part in exec_vnode.split("+"):
            name, *res = part.strip("()").split(":")
            for item in res:
                key, _, value = item.partition("=")
                attr = "resources_assigned." + key
                if key == "mem":
                    scratch[name][attr] = "%db" % (mem_bytes(scratch[name].get(attr, "0"))
                                                   + mem_bytes(value))
                else:
                    scratch[name][attr] = str(int(scratch[name].get(attr, "0") or 0)
                                              + int(value))
        runs.append(Run(job["id"], exec_vnode, "", []))
    return CycleResult(runs, comments)
