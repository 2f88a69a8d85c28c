"""Builders of the attribute dicts the server hands to ``run_cycle``."""
from typing import Dict, List, Optional, Sequence

from fake_pbs.model.select import derive_resources
from fake_pbs.server.sched.cycle import CycleResult, run_cycle

Attrs = Dict[str, str]


def node(ncpus: int = 2, mem: str = "16gb", ngpus: int = 0, state: str = "free",
         extra: Optional[Attrs] = None) -> Attrs:
    attrs = {"resources_available.ncpus": str(ncpus), "resources_available.mem": mem,
             "resources_available.ngpus": str(ngpus), "state": state}
    attrs.update(extra or {})
    return attrs


def queue(priority: int = 0, **extra: str) -> Attrs:
    attrs = {"queue_type": "Execution", "enabled": "True", "started": "True",
             "Priority": str(priority)}
    attrs.update(extra)
    return attrs


def job(seq: int, state: str = "Q", queue_name: str = "workq", qtime: Optional[int] = None,
        **resources: str) -> Attrs:
    """A job as the server stores it, Resource_List derived as qsub + queuejob would."""
    attrs = {"id": "%d.vm" % seq, "job_state": state, "queue": queue_name,
             "qtime": str(1000 + seq if qtime is None else qtime), "Rerunable": "True",
             "Checkpoint": "u"}
    attrs.update(resource_list(resources))
    return attrs


def resource_list(resources: Dict[str, str]) -> Attrs:
    return derive_resources({"Resource_List." + key: value for key, value in resources.items()})


def running(seq: int, exec_vnode: str, exec_host: str, stime: int = 0, **resources: str) -> Attrs:
    attrs = job(seq)
    attrs.update(resource_list(resources))
    attrs.update({"job_state": "R", "exec_vnode": exec_vnode, "exec_host": exec_host,
                  "stime": str(stime)})
    return attrs


# The consumables of a site that created ngpus and put it on sched_config's resources line (the
# default fake cluster; extra n02p-n02v): PBS's default line schedules ncpus and mem only.
SITE_CONSUMABLES = ("ncpus", "mem", "ngpus")


def cycle(nodes: Dict[str, Attrs], jobs: List[Attrs], queues: Optional[Dict[str, Attrs]] = None,
          server: Optional[Attrs] = None, sched: Optional[Attrs] = None,
          now: float = 5000.0,
          consumables: Sequence[str] = SITE_CONSUMABLES) -> CycleResult:
    return run_cycle(server or {"scheduling": "True"}, sched or {},
                     queues or {"workq": queue()}, nodes, jobs, now, consumables=consumables)
