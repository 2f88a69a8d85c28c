"""What reservations take from a scheduling cycle's vnodes (pure, like the cycle).

OpenPBS's scheduler gives a running reservation its own view of its vnodes (``resv_nodes``,
less what its jobs hold): a job in its queue is placed there and nowhere else, and the other
jobs see those resources as in use (R22d: resources_assigned counts the reservation's cpus;
R24b: ``Insufficient amount of resource: ncpus (R: 2 A: 1 T: 2)`` beside a running one).  A
confirmed reservation still to come holds its vnodes against any job that would still be
running when it begins (a job without walltime runs for ever).  A job queued in a reservation
whose window has not begun is ``Not Running: Queue not started.`` (R11).
"""
from typing import Dict, List, Mapping, Optional, Sequence

from fake_pbs.model import resv as rmodel
from fake_pbs.model.nodes import HOLDING_STATES, VNode, is_exclusive
from fake_pbs.model.preempt import walltime_seconds

Attrs = Mapping[str, str]

NOT_STARTED = "Not Running: Queue not started."


def _add(vnodes: Mapping[str, VNode], amounts: Mapping[str, Mapping[str, int]],
         sign: int) -> None:
    for name, per in amounts.items():
        vnode = vnodes.get(name)
        if vnode is None:
            continue
        for res, amount in per.items():
            vnode.assigned[res] = vnode.assigned.get(res, 0) + sign * amount


class Reserved:
    def __init__(self, resvs: Sequence[Attrs], nodes: Mapping[str, Attrs],
                 jobs: Sequence[Attrs], now: int, consumables: Sequence[str],
                 vnodes: Mapping[str, VNode]) -> None:
        self.now = now
        self.consumables = consumables
        self.queues: Dict[str, Attrs] = {str(r.get("queue")): r for r in resvs}
        self.views: Dict[str, Dict[str, VNode]] = {}
        self.future: List[rmodel.Holding] = []
        for resv in resvs:
            state = int(resv.get("reserve_state", "0") or 0)
            amounts = rmodel.amounts_of(resv.get("resv_nodes", ""), consumables)
            if state == rmodel.RUNNING:
                used = self._used_by_jobs(jobs, str(resv.get("queue")))
                self.views[str(resv["queue"])] = self._view(nodes, vnodes, amounts, used)
                _add(vnodes, self._less(amounts, used), 1)
                if is_exclusive(resv):  # as if resv-exclusive, whatever the node says
                    for name in amounts:
                        if name in vnodes:
                            vnodes[name].exclusive_job = True
            elif state == rmodel.CONFIRMED:
                self.future.append(rmodel.Holding(amounts, int(resv["reserve_start"]),
                                                  int(resv["reserve_end"])))

    def _used_by_jobs(self, jobs: Sequence[Attrs], queue: str) -> Dict[str, Dict[str, int]]:
        used: Dict[str, Dict[str, int]] = {}
        for job in jobs:
            if job.get("queue") != queue or job.get("job_state") not in HOLDING_STATES:
                continue
            rmodel.add_amounts(used, rmodel.amounts_of(job.get("exec_vnode", ""),
                                                       self.consumables))
        return used

    @staticmethod
    def _less(amounts: Mapping[str, Mapping[str, int]],
              used: Mapping[str, Mapping[str, int]]) -> Dict[str, Dict[str, int]]:
        return {name: {res: max(0, amount - used.get(name, {}).get(res, 0))
                       for res, amount in per.items()} for name, per in amounts.items()}

    def _view(self, nodes: Mapping[str, Attrs], vnodes: Mapping[str, VNode],
              amounts: Mapping[str, Mapping[str, int]],
              used: Mapping[str, Mapping[str, int]]) -> Dict[str, VNode]:
        view: Dict[str, VNode] = {}
        for name, per in amounts.items():
            attrs = {k: v for k, v in nodes.get(name, {}).items()
                     if not k.startswith(("resources_available.", "resources_assigned."))}
            attrs["resources_available.host"] = nodes.get(name, {}).get(
                "resources_available.host", name)
            vnode = VNode(name, attrs, self.consumables)
            vnode.avail = dict(per)
            vnode.assigned = {res: used.get(name, {}).get(res, 0) for res in per}
            main = vnodes.get(name)
            if main is not None:
                vnode.used_slots = main.used_slots  # one numbering of the host's cpus
                vnode.states = set(main.states) - {"resv-exclusive"}  # its own jobs go
            vnode.exclusive_job = False
            view[name] = vnode
        return view

    def is_resv_queue(self, queue: str) -> bool:
        return queue in self.queues

    def vnodes_for(self, job: Attrs) -> Optional[Dict[str, VNode]]:
        """The running reservation's own vnodes for a job in its queue (None: not such a job;
        an empty dict: the reservation is not running)."""
        queue = str(job.get("queue", ""))
        if queue not in self.queues:
            return None
        return self.views.get(queue, {})

    def ahead_of(self, job: Attrs) -> Dict[str, Dict[str, int]]:
        """What the reservations still to come hold while ``job`` would run from now."""
        wall = job.get("Resource_List.walltime")
        end = self.now + walltime_seconds(wall) if wall else None
        held: Dict[str, Dict[str, int]] = {}
        for holding in self.future:
            if end is not None and holding.start >= end:
                continue
            rmodel.add_amounts(held, holding.amounts)
        return held

    def hold(self, vnodes: Mapping[str, VNode], amounts: Mapping[str, Mapping[str, int]],
             on: bool) -> None:
        _add(vnodes, amounts, 1 if on else -1)
