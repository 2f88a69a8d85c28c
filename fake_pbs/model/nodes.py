"""Vnodes as the scheduler sees them: what each offers, what is in use, and whether it is free.

Built from the server's node attribute dicts (``resources_available.*``,
``resources_assigned.*``, ``state``, ``sharing``, and what limits the jobs a vnode takes:
``queue``, ``max_running``, ``max_user_run``, ``max_group_run``, ``no_multinode_jobs``,
``Priority``) and the running jobs (``exec_vnode``, ``exec_host``), then changed in place as
a scheduling cycle places jobs, so later jobs in the same cycle see the earlier ones.
"""
import re
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from fake_pbs.model.select import SIZE_RESOURCES, parse_size, size_kb

__all__ = ["VNode", "DEFAULT_CONSUMABLES", "build_vnodes", "parse_exec_vnode", "parse_exec_host",
           "HOLDING_STATES", "resource_amount", "job_owner"]

# The consumable resources a scheduler with PBS's default sched_config ``resources:`` line
# schedules (ncpus first); a site's line adds its own (model/sched_config.py: ngpus on the
# default fake cluster, extra case n02). Sizes are kept in kb.
DEFAULT_CONSUMABLES: Tuple[str, ...] = ("ncpus", "mem")

# Job states whose exec_vnode still holds resources (E keeps them until the final release).
HOLDING_STATES = frozenset({"R", "E"})

# States that make a vnode ineligible; only "free" is free (node_info.cpp add_node_state).
_FREE = "free"

_EXEC_HOST_RE = re.compile(r"^(.*)/(\d+)(?:\*(\d+))?$")


def resource_amount(name: str, value: str) -> int:
    """A consumable amount as an integer: sizes in kb, counts as they are."""
    if name in SIZE_RESOURCES:
        return size_kb(parse_size(value))
    return int(value)


class VNode:
    """One vnode during a cycle. ``avail``/``assigned`` map consumable names to amounts."""

    def __init__(self, name: str, attrs: Mapping[str, str],
                 consumables: Sequence[str] = DEFAULT_CONSUMABLES) -> None:
        self.name = name
        self.host = attrs.get("resources_available.host", name)
        self.states: Set[str] = {word.strip() for word in attrs.get("state", _FREE).split(",")}
        self.sharing = attrs.get("sharing", "default_shared")
        self.avail: Dict[str, int] = {}
        self.assigned: Dict[str, int] = {}
        self.strings: Dict[str, str] = {"host": self.host, "vnode": name}
        for key, value in attrs.items():
            if key.startswith("resources_available."):
                res = key[len("resources_available."):]
                if res in consumables:
                    self.avail[res] = _amount_or_zero(res, value)
                elif res not in ("host", "vnode"):
                    self.strings[res] = value
        self.has_assigned_attrs = any(key.startswith("resources_assigned.") for key in attrs)
        for res in consumables:
            key = "resources_assigned." + res
            self.assigned[res] = _amount_or_zero(res, attrs[key]) if key in attrs else 0
        self.used_slots: Set[int] = set()
        self.job_count = 0
        self.exclusive_job = "job-exclusive" in self.states
        # node_info.cpp: the vnode's own limits (is_vnode_eligible), its queue and priority
        self.queue = attrs.get("queue", "")
        self.priority = _integer(attrs.get("Priority")) or 0
        self.max_running = _integer(attrs.get("max_running"))
        self.max_user_run = _integer(attrs.get("max_user_run"))
        self.max_group_run = _integer(attrs.get("max_group_run"))
        self.no_multinode = attrs.get("no_multinode_jobs", "").lower() in ("true", "t", "1", "y")
        # the jobs on the vnode (each once), and how many of them each user and group has
        self.jobs: Set[str] = set()
        self.user_jobs: Dict[str, int] = {}
        self.group_jobs: Dict[str, int] = {}

    @property
    def has_run_limits(self) -> bool:
        return (self.max_running, self.max_user_run, self.max_group_run) != (None, None, None)

    def note_job(self, jobid: str, user: str, group: str) -> None:
        """``jobid`` (of ``user`` and ``group``) runs here: it counts towards the limits."""
        if jobid in self.jobs:
            return
        self.jobs.add(jobid)
        self.user_jobs[user] = self.user_jobs.get(user, 0) + 1
        self.group_jobs[group] = self.group_jobs.get(group, 0) + 1

    def run_limit(self, user: str, group: str) -> Optional[str]:
        """The vnode's run limit one more job of ``user`` and ``group`` would pass (the
        scheduler's reason), or None."""
        if self.max_running is not None and self.max_running <= len(self.jobs):
            return "Node has reached job run limit"
        if self.max_user_run is not None and self.max_user_run <= self.user_jobs.get(user, 0):
            return "Node has reached user run limit"
        if self.max_group_run is not None and \
                self.max_group_run <= self.group_jobs.get(group, 0):
            return "Node has reached group run limit"
        return None

    @property
    def usable(self) -> bool:
        """Up, not offline, and not reserved: its state is only ``free`` (busy is computed)."""
        return self.states <= {_FREE, "job-busy", "job-sharing"} and not self.exclusive_job

    @property
    def is_free(self) -> bool:
        """Free as the scheduler counts free nodes: usable and not every cpu in use."""
        return self.usable and not self.cpus_full

    @property
    def cpus_full(self) -> bool:
        total = self.avail.get("ncpus", 0)
        return total > 0 and self.assigned.get("ncpus", 0) >= total

    def free(self, res: str) -> int:
        return self.avail.get(res, 0) - self.assigned.get(res, 0)

    def first_free_slot(self) -> int:
        slot = 0
        while slot in self.used_slots:
            slot += 1
        return slot

    def take_slots(self, count: int) -> int:
        """Claim ``count`` cpu slots; return the first index, as exec_host shows it."""
        first = self.first_free_slot()
        for _ in range(count):
            self.used_slots.add(self.first_free_slot())
        return first

    def allocate(self, amounts: Mapping[str, int], slots: int) -> int:
        for res, amount in amounts.items():
            self.assigned[res] = self.assigned.get(res, 0) + amount
        self.job_count += 1
        return self.take_slots(slots)

    def release(self, amounts: Mapping[str, int], slots: Sequence[int]) -> None:
        for res, amount in amounts.items():
            self.assigned[res] = self.assigned.get(res, 0) - amount
        self.job_count = max(self.job_count - 1, 0)
        self.used_slots.difference_update(slots)


def _integer(value: Optional[str]) -> Optional[int]:
    try:
        return int(value) if value not in (None, "") else None
    except ValueError:
        return None


def _amount_or_zero(res: str, value: str) -> int:
    try:
        return resource_amount(res, value)
    except ValueError:
        return 0


def parse_exec_vnode(text: str) -> List[Dict[str, str]]:
    """``(a:ncpus=2:mem=1kb)+(b:ncpus=1)`` -> ``[{"vnode": "a", "ncpus": "2", ...}, ...]``."""
    chunks: List[Dict[str, str]] = []
    for part in text.split("+"):
        part = part.strip().strip("()")
        if not part:
            continue
        words = part.split(":")
        chunk = {"vnode": words[0]}
        for word in words[1:]:
            name, _, value = word.partition("=")
            chunk[name] = value
        chunks.append(chunk)
    return chunks


def parse_exec_host(text: str) -> List[List[int]]:
    """``a/0*2+b/1`` -> the cpu slot indices of each chunk: ``[[0, 1], [1]]``."""
    slots: List[List[int]] = []
    for part in text.split("+"):
        match = _EXEC_HOST_RE.match(part.strip())
        if match is None:
            slots.append([])
            continue
        first, count = int(match.group(2)), int(match.group(3) or 1)
        slots.append(list(range(first, first + count)))
    return slots


def build_vnodes(nodes: Mapping[str, Mapping[str, str]],
                 jobs: Sequence[Mapping[str, str]],
                 consumables: Sequence[str] = DEFAULT_CONSUMABLES) -> Dict[str, VNode]:
    """The cycle's vnodes, with what the running jobs hold.

    ``resources_assigned.*`` from the server is the truth when present; otherwise the amounts come
    from the exec_vnode of the jobs that still hold resources. Slots always come from exec_host.
    """
    vnodes = {name: VNode(name, attrs, consumables) for name, attrs in nodes.items()}
    for job in jobs:
        if job.get("job_state") not in HOLDING_STATES or not job.get("exec_vnode"):
            continue
        exclusive = is_exclusive(job)
        user, group = job_owner(job)
        chunks = parse_exec_vnode(job["exec_vnode"])
        slot_lists = parse_exec_host(job.get("exec_host", ""))
        for index, chunk in enumerate(chunks):
            vnode = vnodes.get(chunk["vnode"])
            if vnode is None:
                continue
            vnode.job_count += 1
            vnode.note_job(str(job.get("id", "")), user, group)
            if exclusive:
                vnode.exclusive_job = True
            if not vnode.has_assigned_attrs:
                for res in consumables:
                    if res in chunk:
                        vnode.assigned[res] += _amount_or_zero(res, chunk[res])
            if index < len(slot_lists):
                vnode.used_slots.update(slot_lists[index])
    return vnodes


def job_owner(job: Mapping[str, str]) -> Tuple[str, str]:
    """The user and group a job runs as (``euser``/``egroup``; the owner's name before)."""
    return (job.get("euser") or job.get("Job_Owner", "").split("@")[0],
            job.get("egroup", ""))


def is_exclusive(attrs: Mapping[str, str]) -> bool:
    """A job's or reservation's ``Resource_List.place`` asks for ``excl`` or ``exclhost``."""
    place = attrs.get("Resource_List.place", "")
    return any(word in ("excl", "exclhost") for word in place.split(":"))
