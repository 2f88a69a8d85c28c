"""Vnode bookkeeping: which CPU slots and resources each running job holds on each node.

``exec_vnode`` looks like ``(node1:ncpus=2:mem=1gb)+(node2:ncpus=1)``.  Each node keeps a private
``_slots`` list (one entry per CPU: job id or "") so that ``jobs`` shows ``12.vm/0, 12.vm/1`` and
``exec_host`` indexes (``node1/0*2``) agree with it, as PBS's do.

A job's charge on a node is made once and undone once: each node lists the jobs it has charged
(``_charged``), as PBS's ``JOB_SVFLG_RescAssn`` guards ``set_resc_assigned`` and
``deallocate_job_from_node`` frees only the jobs a vnode still holds.  A second release of the
same run (its end applied twice) must not free another job's cpus: ``resources_assigned`` would
drop below what the running jobs hold and the scheduler would place a job on a cpu slot beyond
``ncpus`` (``vm/2`` on a 2-cpu node; release set b08c, b22, b22e).
"""
from typing import Any, Callable, Dict, List, Optional, Tuple

from fake_pbs.model import node_states
from fake_pbs.server.defaults import format_kb, mem_bytes

Attrs = Dict[str, Any]
Chunk = Tuple[str, Dict[str, str]]

#: Called as ``fn(name, node, old_state)`` when a job makes a vnode job-busy or free again; the
#: running server sets it (its ``set_vnode_state`` log line, fake_pbs/server/vnodestate.py).
state_observer: Optional[Callable[[str, Attrs, str], None]] = None


def parse_exec_vnode(exec_vnode: str) -> List[Chunk]:
    """``(a:ncpus=1)+(b:ncpus=2:mem=1gb)`` -> [("a", {"ncpus": "1"}), ("b", {...})]."""
    chunks: List[Chunk] = []
    for part in exec_vnode.replace("(", "").replace(")", "").split("+"):
        if not part:
            continue
        name, *resources = part.split(":")
        values: Dict[str, str] = {}
        for item in resources:
            key, _, value = item.partition("=")
            values[key] = value
        chunks.append((name, values))
    return chunks


def _slots(node: Attrs) -> List[str]:
    total = int(node.get("resources_available.ncpus", "0") or 0)
    slots = list(node.get("_slots") or [])
    if len(slots) < total:
        slots.extend([""] * (total - len(slots)))
    return slots


def assign(nodes: Dict[str, Attrs], jobid: str, exec_vnode: str) -> str:
    """Charge ``exec_vnode`` to the nodes; returns the matching ``exec_host``."""
    hosts: List[str] = []
    # Nodes this job is charged on already: an assign of a run that holds them changes nothing.
    held = {name for name, node in nodes.items() if _is_charged(node, jobid)}
    for name, values in parse_exec_vnode(exec_vnode):
        node = nodes.get(name)
        ncpus = int(values.get("ncpus", "0") or 0)
        if node is None:
            hosts.append("%s/0" % name)
            continue
        if name in held:
            hosts.append(_held_host(name, node, jobid, ncpus))
            continue
        slots = _slots(node)
        taken = [i for i, owner in enumerate(slots) if not owner][:ncpus]
        while len(taken) < ncpus:  # oversubscription (qrun onto a full node): grow the list
            slots.append("")
            taken.append(len(slots) - 1)
        for i in taken:
            slots[i] = jobid
        node["_slots"] = slots
        first = taken[0] if taken else 0
        hosts.append("%s/%d%s" % (name, first, "*%d" % ncpus if ncpus > 1 else ""))
        _charge(node, values, +1)
        _mark_charged(node, jobid, True)
        _refresh(name, node)
    return "+".join(hosts)


def release(nodes: Dict[str, Attrs], jobid: str, exec_vnode: str) -> None:
    """Give back what :func:`assign` charged; a node that no longer holds the job gives
    nothing back (a release of a run already released changes nothing)."""
    held = {name for name, node in nodes.items() if _is_charged(node, jobid)}
    for name, values in parse_exec_vnode(exec_vnode):
        node = nodes.get(name)
        if node is None or name not in held:
            continue
        _charge(node, values, -1)
    for name in held:
        _mark_charged(nodes[name], jobid, False)
    for name, node in nodes.items():
        if jobid in (node.get("_slots") or []):
            node["_slots"] = ["" if owner == jobid else owner for owner in node["_slots"]]
            _refresh(name, node)


def _is_charged(node: Attrs, jobid: str) -> bool:
    charged = node.get("_charged")
    if charged is None:  # a node stored before ``_charged`` existed: its slots tell
        return jobid in (node.get("_slots") or [])
    return jobid in charged


def _mark_charged(node: Attrs, jobid: str, on: bool) -> None:
    charged = [j for j in node.get("_charged") or [] if j != jobid]
    node["_charged"] = charged + [jobid] if on else charged


def _held_host(name: str, node: Attrs, jobid: str, ncpus: int) -> str:
    """The exec_host entry of a chunk the job holds already: its first slot there."""
    slots = [i for i, owner in enumerate(node.get("_slots") or []) if owner == jobid]
    first = slots[0] if slots else 0
    return "%s/%d%s" % (name, first, "*%d" % ncpus if ncpus > 1 else "")


def _charge(node: Attrs, values: Dict[str, str], sign: int) -> None:
    for key, value in values.items():
        attr = "resources_assigned." + key
        if key in ("mem", "vmem"):
            now = mem_bytes(node.get(attr, "0kb")) + sign * mem_bytes(value)
            node[attr] = format_kb(max(now, 0))
        else:
            try:
                now_i = int(node.get(attr, "0") or 0) + sign * int(value)
            except ValueError:
                continue
            node[attr] = str(max(now_i, 0))


def _refresh(name: str, node: Attrs) -> None:
    """Recompute ``jobs`` and the job-busy flag of ``state`` from the slots."""
    old_state = str(node.get("state", "free"))
    slots = node.get("_slots") or []
    entries = ["%s/%d" % (owner, i) for i, owner in enumerate(slots) if owner]
    if entries:
        node["jobs"] = ", ".join(entries)
    else:
        node.pop("jobs", None)
    flags = [f for f in str(node.get("state", "free")).split(",") if f not in ("free", "job-busy")]
    total = int(node.get("resources_available.ncpus", "0") or 0)
    busy = total > 0 and sum(1 for owner in slots if owner) >= total
    if busy:
        flags.append("job-busy")
    node["state"] = node_states.compose(flags)
    if state_observer is not None and node["state"] != old_state:
        state_observer(name, node, old_state)
