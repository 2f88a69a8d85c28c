"""The server's and each queue's ``resources_available``: pools a job's request draws from.

OpenPBS 23.06 scheduler, check.cpp ``is_ok_to_run``: a job's ``Resource_List`` amount of a
scheduled consumable (sched_config's ``resources:`` line) must fit in what its queue's
``resources_available`` leaves over its ``resources_assigned`` (INSUFFICIENT_QUEUE_RESOURCE),
then in what the server's leaves (INSUFFICIENT_SERVER_RESOURCE; not for a job of a
reservation, whose resources the reservation holds); a request larger than the pool's total
can never run.  A resource without ``resources_available`` on the object is no limit.  What
is assigned is the running jobs' amounts of the resources the server totals (PBS's built-ins
with the RASSN flag, a site's resources with flag ``q``); a job the cycle starts adds its
amounts of every pooled resource (update_server_on_run, update_queue_on_run).
"""
from typing import Dict, Iterable, Mapping, Optional, Sequence, Tuple

from fake_pbs.model.nodes import HOLDING_STATES, resource_amount
from fake_pbs.model.placement import format_amount

Attrs = Mapping[str, str]

# the texts of job_info.cpp's table, without "Not Running: " / "Can Never Run: "
QUEUE_SHORT = "Insufficient amount of queue resource: %s %s"
SERVER_SHORT = "Insufficient amount of server resource: %s %s"


def _amount(name: str, value: Optional[str]) -> Optional[int]:
    if value in (None, ""):
        return None
    try:
        return resource_amount(name, str(value))
    except (ValueError, TypeError):
        return None


def _available(attrs: Attrs, consumables: Sequence[str]) -> Dict[str, int]:
    found = {}
    for name in consumables:
        amount = _amount(name, attrs.get("resources_available." + name))
        if amount is not None:
            found[name] = amount
    return found


class Pools:
    """The pools of one cycle: ``""`` is the server's, any other key a queue's."""

    def __init__(self, server: Attrs, queues: Mapping[str, Attrs], jobs: Iterable[Attrs],
                 consumables: Sequence[str], totalled: Iterable[str]) -> None:
        self.available: Dict[str, Dict[str, int]] = {}
        server_pool = _available(server, consumables)
        if server_pool:
            self.available[""] = server_pool
        for name, queue in queues.items():
            pool = _available(queue, consumables)
            if pool:
                self.available[name] = pool
        self.assigned: Dict[str, Dict[str, int]] = {key: {} for key in self.available}
        if not self.available:
            return
        counted = set(totalled)
        for job in jobs:
            if job.get("job_state") in HOLDING_STATES and job.get("array") != "True":
                self._add(job, [res for res in consumables if res in counted])

    @property
    def active(self) -> bool:
        return bool(self.available)

    def _add(self, job: Attrs, names: Iterable[str]) -> None:
        for key in ("", job.get("queue", "")):
            pool = self.assigned.get(key)
            if pool is None:
                continue
            for name in names:
                amount = _amount(name, job.get("Resource_List." + name))
                if amount:
                    pool[name] = pool.get(name, 0) + amount

    def short(self, job: Attrs, in_reservation: bool) -> Optional[Tuple[bool, str]]:
        """``(never, reason)`` when the job's request does not fit its queue's pool or the
        server's, else None."""
        scopes = [(job.get("queue", ""), QUEUE_SHORT)]
        if not in_reservation:
            scopes.append(("", SERVER_SHORT))
        for key, text in scopes:
            pool = self.available.get(key)
            if pool is None:
                continue
            for name, total in pool.items():
                wanted = _amount(name, job.get("Resource_List." + name))
                if not wanted:
                    continue
                left = total - self.assigned[key].get(name, 0)
                if wanted > left:
                    never = wanted > total  # compared with the total, which A: then shows
                    shown = total if never else max(left, 0)
                    return never, text % (name, "(R: %s A: %s T: %s)" % (
                        format_amount(name, wanted), format_amount(name, shown),
                        format_amount(name, total)))
        return None

    def take(self, job: Attrs) -> None:
        """The job starts in this cycle: its amounts are assigned."""
        if self.available:
            names = {name for pool in self.available.values() for name in pool}
            self._add(job, sorted(names))
