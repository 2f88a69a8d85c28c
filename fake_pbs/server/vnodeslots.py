"""Vnode bookkeeping: which CPU slots and resources each running job holds on each node.

``exec_vnode`` looks like ``(node1:ncpus=2:mem=1gb)+(node2:ncpus=1)``.  Each node keeps a private
``_slots`` list (one entry per CPU: job id or "") so that ``jobs`` shows ``12.vm/0, 12.vm/1`` and
``exec_host`` indexes (``node1/0*2``) agree with it, as PBS's do.
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
    for name, values in parse_exec_vnode(exec_vnode):
        node = nodes.get(name)
        ncpus = int(values.get("ncpus", "0") or 0)
        if node is None:
            hosts.append("%s/0" % name)
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
        _refresh(name, node)
    return "+".join(hosts)


def release(nodes: Dict[str, Attrs], jobid: str, exec_vnode: str) -> None:
    """Give back what :func:`assign` charged."""
    for name, values in parse_exec_vnode(exec_vnode):
        node = nodes.get(name)
        if node is None:
            continue
        _charge(node, values, -1)
    for name, node in nodes.items():
        if jobid in (node.get("_slots") or []):
            node["_slots"] = ["" if owner == jobid else owner for owner in node["_slots"]]
            _refresh(name, node)


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
