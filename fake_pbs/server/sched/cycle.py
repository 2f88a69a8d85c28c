"""One scheduling cycle, as a pure function of the server's attribute dicts and ``now``.

What OpenPBS's default scheduler does with the default sched_config (``by_queue``, no
``job_sort_key``, ``preemptive_sched: true``): consider the queued jobs in preemption-priority
order, then queue ``Priority``, then ``job_sort_formula`` value, then submission order; run each job
whose chunks fit (``placement``) on the vnodes its queue may use (a queue's own vnodes, else those
of no queue), tried in ``node_sort_key`` order, within each vnode's run limits; comment the others
with PBS's reasons; and when a high-priority job (``preempt_prio``) cannot run, pick lower-priority
running victims, most recently started first, with the methods each can take. Jobs that share a
queue/select/place (and owner, under a vnode's per-user limits) fail the same way within a cycle, so
the cost of a cycle with thousands of queued jobs grows with the jobs that can actually run.
"""
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple, Union

from fake_pbs.model import formula, preempt_targets, runlimits
from fake_pbs.model.pools import Pools
from fake_pbs.model.resources import SERVER_ASSIGNED
from fake_pbs.model.entlimits import Entity
from fake_pbs.model.errors import PbsError
from fake_pbs.model.jobdefaults import prefixed
from fake_pbs.model.nodes import DEFAULT_CONSUMABLES, VNode, build_vnodes, job_owner, \
    parse_exec_host, parse_exec_vnode, resource_amount
from fake_pbs.model.placement import Eligible, Failure, Placement, Psets, commit, place_job
from fake_pbs.model.sched_config import NodeSortKey
from fake_pbs.model.preempt import DEFAULT_ORDER, DEFAULT_PRIO, DEFAULT_QUEUE_PRIO, OrderStep, \
    methods_for, parse_preempt_order, parse_preempt_prio, usable_methods
from fake_pbs.model.resources import default_resources
from fake_pbs.model.select import Chunk, Place, parse_place, parse_select
from fake_pbs.server.sched.reserved import NOT_STARTED, Reserved

__all__ = ["Run", "Preemption", "Considered", "CycleResult", "run_cycle", "RUN", "RESUME",
           "PREEMPT", "FAIL", "SCHED_SUSPENDED"]

Attrs = Mapping[str, str]


class Run(NamedTuple):
    """Start ``jobid`` on these vnodes. ``hosts``: one dict per chunk (host, ncpus, mpiprocs,
    ngpus, mem, ompthreads) in select order, for the mom's PBS_NODEFILE."""

    jobid: str
    exec_vnode: str
    exec_host: str
    hosts: List[Dict[str, object]]


class Preemption(NamedTuple):
    """``run`` (the high-priority job's planned start) once every victim is out of the way.

    ``victims``: ``(victim_jobid, methods)`` with the methods to try in order (``["S", "R"]``).
    """

    run: Run
    victims: List[Tuple[str, List[str]]]


# What became of each job the cycle considered, in the order it considered them (the
# scheduler's log: "Considering job to run", then "Job run" or the reason).
RUN = "run"            # started: one of ``runs``
RESUME = "resume"      # a job the scheduler suspended gets its vnodes back
PREEMPT = "preempt"    # starts once the victims of one of ``preempt`` are out of the way
FAIL = "fail"          # cannot run; ``detail`` is the comment
SCHED_SUSPENDED = "45"  # substate of a job suspended by preemption (the scheduler resumes it)


class Considered(NamedTuple):
    jobid: str
    outcome: str
    detail: str = ""


class CycleResult(NamedTuple):
    runs: List[Run]
    comments: Dict[str, str]
    preempt: List[Preemption]
    considered: List[Considered] = []


def _false(value: Optional[str]) -> bool:
    return value is not None and value.strip().lower() in ("false", "f", "0", "n", "no")


def _true(value: Optional[str]) -> bool:
    return value is not None and value.strip().lower() in ("true", "t", "1", "y", "yes")


def _number(value: Optional[str], default: float = 0.0) -> float:
    try:
        return float(value) if value not in (None, "") else default
    except ValueError:
        return default


# config.h PREEMPT_PRIORITY_HIGH and PREEMPT_PRIORITY_STEP
_PRIORITY_HIGH = 100000
_PRIORITY_STEP = 1000


class _Policy:
    """The scheduler object's preemption settings, with PBS's defaults for bad values."""

    def __init__(self, sched: Attrs, preemptive: bool = True) -> None:
        try:
            self.order: List[OrderStep] = parse_preempt_order(
                sched.get("preempt_order", DEFAULT_ORDER))
        except PbsError:
            self.order = parse_preempt_order(DEFAULT_ORDER)
        try:
            self.levels = parse_preempt_prio(sched.get("preempt_prio", DEFAULT_PRIO))
        except PbsError:
            self.levels = parse_preempt_prio(DEFAULT_PRIO)
        self.queue_prio = _number(sched.get("preempt_queue_prio"), float(DEFAULT_QUEUE_PRIO))
        self.enabled = preemptive and not _false(sched.get("preemptive_sched"))
        # No checkpoint action can be configured in the fake: C is never usable (reference §7.2).
        self.checkpoint = False

    def level(self, queue: Attrs, over_queue: bool = False, over_server: bool = False) -> int:
        """Preemption priority of a job in ``queue`` (``over_*``: its owner is over a soft
        limit of the queue or the server): higher preempts lower.  As PBS's set_preempt_prio:
        the job's statuses (express, queue_softlimits, server_softlimits; normal_jobs when it
        has none) are matched against preempt_prio's entries, those of more words first, and
        the first entry whose words it all has gives the level: 100000 for the first entry
        listed, 1000 less for each next one, plus the queue's Priority on an express entry (a
        job of a higher express queue preempts one of a lower one).  No match: normal_jobs's."""
        priority = int(_number(queue.get("Priority")))
        status = set()
        if priority >= self.queue_prio:
            status.add("express_queue")
        if over_queue:
            status.add("queue_softlimits")
        if over_server:
            status.add("server_softlimits")
        if not status:
            status.add("normal_jobs")
        normal = 0
        listed = list(enumerate(self.levels))
        for index, words in sorted(listed, key=lambda item: -len(item[1])):
            rank = _PRIORITY_HIGH - index * _PRIORITY_STEP
            if set(words) <= status:
                return rank + (priority if "express_queue" in words else 0)
        for index, words in listed:
            if words == ["normal_jobs"]:
                normal = _PRIORITY_HIGH - index * _PRIORITY_STEP
        return normal


class _Request(NamedTuple):
    chunks: List[Chunk]
    place: Place


def _request(job: Attrs) -> Optional[_Request]:
    try:
        # the scheduler's select: the job's with each chunk's default_chunk resources
        chunks = parse_select(job.get("schedselect") or job.get("Resource_List.select")
                              or "1:ncpus=1")
        place = parse_place(job.get("Resource_List.place") or "pack")
    except PbsError:
        return None
    return _Request(chunks, place)


def _suspended_by_scheduler(job: Attrs) -> bool:
    return job.get("job_state") == "S" and job.get("substate") == SCHED_SUSPENDED


def _eligible(job: Attrs, queues: Mapping[str, Attrs], now: float) -> bool:
    if _suspended_by_scheduler(job):
        return job.get("queue", "") in queues
    if job.get("job_state") != "Q" or job.get("array") == "True":
        return False
    queue = queues.get(job.get("queue", ""))
    if queue is None or queue.get("queue_type", "Execution")[:1].lower() == "r":
        return False
    if _false(queue.get("started")):
        return False
    return _number(job.get("Execution_Time")) <= now


#: resource name -> type, for comparing amounts against the run limits
_KINDS = {name: defn.type for name, defn in default_resources().items()}


def _not_started(job: Attrs, queues: Mapping[str, Attrs]) -> bool:
    """A queued job of a stopped execution queue (query_queues: QUEUE_NOT_STARTED)."""
    queue = queues.get(job.get("queue", ""))
    return (job.get("job_state") == "Q" and queue is not None and _false(queue.get("started"))
            and queue.get("queue_type", "Execution")[:1].lower() != "r")


def _rank(job: Attrs) -> Tuple[float, int]:
    """Submission order: qtime, then the job's number; a qorder'd job's ``qrank`` replaces
    both (``<qtime>.<number>``, server/handlers/jobctl.py)."""
    rank = job.get("qrank")
    if rank:
        seconds, _, number = rank.partition(".")
        return _number(seconds), int(number or 0)
    digits = job.get("id", "").split(".")[0].split("[")[0]
    return _number(job.get("qtime")), int(digits) if digits.isdigit() else 0


def _entity(job: Attrs) -> Entity:
    return Entity(job.get("euser") or job.get("Job_Owner", "").split("@")[0],
                  job.get("egroup", ""), job.get("project") or "_pbs_project_default")


def _sort_value(vnode: VNode, key: NodeSortKey) -> int:
    if key.name == "sort_priority":
        return vnode.priority
    total = vnode.avail.get(key.name, 0)
    if key.kind == "unused":
        return total - vnode.assigned.get(key.name, 0)
    if key.kind == "assigned":
        return vnode.assigned.get(key.name, 0)
    return total


def sort_vnodes(vnodes: Mapping[str, VNode],
                keys: Sequence[NodeSortKey]) -> Dict[str, VNode]:
    """The vnodes in ``node_sort_key`` order; ties keep the server's order (multi_node_sort)."""
    if not keys:
        return dict(vnodes)
    ordered = sorted(vnodes.values(), key=lambda vnode: tuple(
        -_sort_value(vnode, key) if key.high else _sort_value(vnode, key) for key in keys))
    return {vnode.name: vnode for vnode in ordered}


def _request_amounts(job: Attrs) -> Dict[str, str]:
    return prefixed(job, "Resource_List")


def _holding(job: Attrs, consumables: Sequence[str]
             ) -> List[Tuple[str, Dict[str, int], List[int]]]:
    """What a running job holds: (vnode, amounts, slots) per chunk."""
    held = []
    slots = parse_exec_host(job.get("exec_host", ""))
    for index, chunk in enumerate(parse_exec_vnode(job.get("exec_vnode", ""))):
        amounts = {}
        for res in consumables:
            if res in chunk:
                try:
                    amounts[res] = resource_amount(res, chunk[res])
                except ValueError:
                    continue
        held.append((chunk["vnode"], amounts, slots[index] if index < len(slots) else []))
    return held


def _release(vnodes: Mapping[str, VNode], job: Attrs, consumables: Sequence[str],
             back: bool = False) -> None:
    for name, amounts, slots in _holding(job, consumables):
        vnode = vnodes.get(name)
        if vnode is None:
            continue
        if back:
            vnode.allocate(amounts, 0)
            vnode.used_slots.update(slots)
        else:
            vnode.release(amounts, slots)


# Above every preempt_prio level: PBS gives a qrun'd job the top preemption priority.
_QRUN_LEVEL = 1 << 20


class _Cycle:
    def __init__(self, sched: Attrs, queues: Mapping[str, Attrs],
                 nodes: Mapping[str, Attrs], jobs: Sequence[Attrs], now: float,
                 qrun: Optional[str] = None,
                 consumables: Sequence[str] = DEFAULT_CONSUMABLES,
                 server: Optional[Attrs] = None,
                 resvs: Sequence[Attrs] = (),
                 node_sort: Sequence[NodeSortKey] = (),
                 preemptive: bool = True,
                 totalled: Sequence[str] = tuple(SERVER_ASSIGNED),
                 pooled: Optional[Sequence[str]] = None) -> None:
        self.qrun = qrun
        self.resource_pools = Pools(server or {}, queues, jobs,
                                    consumables if pooled is None else pooled, totalled)
        self.server_limits = runlimits.limits_of(server or {})
        self.queue_limits = {name: runlimits.limits_of(queue) for name, queue in queues.items()}
        self.server_soft = runlimits.limits_of(server or {}, soft=True)
        self.queue_soft = {name: runlimits.limits_of(queue, soft=True)
                           for name, queue in queues.items()}
        self.has_soft = any(limits.counts or limits.resources for limits in
                            [self.server_soft, *self.queue_soft.values()])
        # counting the running jobs is work for every cycle: only when a run limit is set
        self.limited = self.has_soft or any(
            limits.counts or limits.resources for limits in
            [self.server_limits, *self.queue_limits.values()])
        self.usage = runlimits.Usage()
        for job in jobs:
            if job.get("job_state") == "R":
                self.count_running(job)
        self.queues = queues
        self.jobs = jobs
        self.now = now
        self.sched = sched
        self.server = server or {}
        self.policy = _Policy(sched, preemptive)
        self.consumables = consumables
        self.node_sort = tuple(node_sort)
        self.vnodes = sort_vnodes(build_vnodes(nodes, jobs, consumables), self.node_sort)
        # an unused or assigned amount changes as jobs start: such an order is re-made per job
        self.resort = any(key.kind != "total" and key.name != "sort_priority"
                          for key in self.node_sort)
        self.node_limits = any(vnode.has_run_limits for vnode in self.vnodes.values())
        # queue -> its own vnodes (node_queue_action); "" -> the vnodes of no queue
        self.pools: Optional[Dict[str, Dict[str, VNode]]] = None
        if any(vnode.queue for vnode in self.vnodes.values()):
            self.pools = {}
            for name, vnode in self.vnodes.items():
                self.pools.setdefault(vnode.queue, {})[name] = vnode
        self.reserved = Reserved(resvs, nodes, jobs, int(now), consumables, self.vnodes)
        self.result = CycleResult([], {}, [], [])
        self.failed: Dict[Tuple[str, ...], Failure] = {}
        self.running: Optional[List[Attrs]] = None
        self.victimised: Set[str] = set()
        overs = ((False, True), (True, False), (True, True)) if self.has_soft else ()
        self.lowest = min([self.policy.level(queue) for queue in queues.values()] +
                          [self.policy.level(queue, *over) for queue in queues.values()
                           for over in overs], default=0)
        # job_sort_formula (the scheduler's, else the server's) and its threshold
        text = sched.get("job_sort_formula") or (server or {}).get("job_sort_formula")
        self.formula = formula.Evaluator(text) if text else None
        threshold = sched.get("job_sort_formula_threshold")
        self.threshold = _number(threshold) if threshold not in (None, "") else None
        self.formula_values: Dict[str, float] = {}
        self.subjob_caps = _subjob_caps(jobs)

    def order(self) -> List[Attrs]:
        """Preemption priority, then queue Priority, then submission (qtime, then input order)."""
        keyed = []
        # A subjob runs only while its array may: not while the parent is held or waiting
        # (a held array's subjobs are Q, j04h; qrls of the parent lets them run).
        stopped = {job.get("id") for job in self.jobs
                   if job.get("array") == "True" and job.get("job_state") not in ("Q", "B")}
        for index, job in enumerate(self.jobs):
            if not _eligible(job, self.queues, self.now) or job.get("array_id") in stopped:
                if _not_started(job, self.queues):
                    self.comment(job, "Not Running: Queue not started.")
                continue
            queue = self.queues[job.get("queue", "")]
            keyed.append(((-self.level(job), -_number(queue.get("Priority")),
                           -self.formula_value(job, queue), _rank(job), index), job))
        keyed.sort(key=lambda item: item[0])
        return [job for _, job in keyed]

    def formula_value(self, job: Attrs, queue: Attrs) -> float:
        """The job's job_sort_formula value (0 without a formula): within a queue, jobs are
        considered highest value first (sort.cpp cmp_sort: after preemption priority)."""
        if self.formula is None:
            return 0.0
        value, _ = self.formula.value(formula.job_values(
            job, _number(queue.get("Priority")), _KINDS))
        self.formula_values[job["id"]] = value
        return value

    def under_threshold(self, job: Attrs) -> bool:
        """fifo.cpp: a queued job whose formula value is at or below the scheduler's
        ``job_sort_formula_threshold`` does not run this cycle."""
        return (self.threshold is not None and job["id"] in self.formula_values
                and self.formula_values[job["id"]] <= self.threshold)

    def level(self, job: Attrs) -> int:
        """A job's preemption priority; a job being qrun outranks every other (k06)."""
        if self.qrun is not None and job.get("id") == self.qrun:
            return _QRUN_LEVEL
        queue_name = job.get("queue", "")
        queue = self.queues.get(queue_name, {})
        if not self.has_soft:
            return self.policy.level(queue)
        who, request = _entity(job), _request_amounts(job)
        soft = self.queue_soft.get(queue_name)
        over_queue = soft is not None and runlimits.over_soft(
            who, queue_name, request, _KINDS, soft, self.usage)
        over_server = runlimits.over_soft(who, None, request, _KINDS, self.server_soft,
                                          self.usage)
        return self.policy.level(queue, over_queue, over_server)

    def comment(self, job: Attrs, text: str) -> None:
        if job.get("comment") != text:
            self.result.comments[job["id"]] = text

    def considered(self, job: Attrs, outcome: str, detail: str = "") -> None:
        self.result.considered.append(Considered(job["id"], outcome, detail))

    def fail(self, job: Attrs, comment: str) -> None:
        self.comment(job, comment)
        self.considered(job, FAIL, comment)

    def run(self) -> CycleResult:
        for job in self.jobs if self.reserved.queues else ():
            if job.get("job_state") == "Q" and self.reserved.is_resv_queue(job.get("queue", "")) \
                    and _false(self.queues.get(job.get("queue", ""), {}).get("started")):
                self.fail(job, NOT_STARTED)
        for job in self.order():
            if _suspended_by_scheduler(job):
                self.resume(job)
                continue
            if self.under_threshold(job):
                self.fail(job, UNDER_THRESHOLD)
                continue
            # the walltime matters only when a reservation to come may be in the way
            key: Tuple[str, ...] = (
                job.get("queue", ""), job.get("Resource_List.select", ""),
                job.get("Resource_List.place", ""),
                job.get("Resource_List.walltime", "") if self.reserved.future else "")
            if self.node_limits or self.has_soft:
                # a vnode's per-user and per-group limits, and the soft limits that set a
                # job's preemption level, tell owners apart; so do the jobs a job may preempt
                key += job_owner(job)
            key += (job.get("Resource_List.preempt_targets", ""),)
            known = self.failed.get(key)
            if known is not None:
                # Same queue and request as a job that already failed this cycle: resources only
                # shrink during a cycle, so it fails the same way (PBS's equivalence classes).
                self.fail(job, known.comment)
                continue
            request = _request(job)
            if request is None:
                continue
            if self.capped(job):
                self.fail(job, MAX_RUN_SUBJOBS)
                continue
            held = self.held_back(job)
            if held is None and self.resource_pools.active:
                short = self.resource_pools.short(job, self.reserved.vnodes_for(job) is not None)
                if short is not None:
                    self.fail(job, ("Can Never Run: " if short[0] else "Not Running: ")
                              + short[1])
                    continue
            outcome = self.place(job, request, commit_run=held is None)
            if held is not None:
                # is_ok_to_run: a job that cannot fit gets that reason; limits come next
                if isinstance(outcome, Placement):
                    self.fail(job, "Not Running: " + held)
                else:
                    self.fail(job, outcome.comment)
                continue
            if isinstance(outcome, Placement):
                self.count_running(job)
                self.resource_pools.take(job)
                self.considered(job, RUN)
                self.count_subjob(job)
                continue
            if self.reserved.vnodes_for(job) is None and not outcome.never \
                    and self.try_preempt(job, request):
                self.resource_pools.take(job)
                self.considered(job, PREEMPT)
                continue
            self.failed[key] = outcome
            self.fail(job, outcome.comment)
        return self.result

    def count_running(self, job: Attrs) -> None:
        """``job`` runs: it counts towards the run limits (when any is set)."""
        if self.limited:
            self.usage.add(job.get("queue", ""), _entity(job), _request_amounts(job), _KINDS)

    def held_back(self, job: Attrs) -> Optional[str]:
        """check_limits (limits.cpp), which a qrun'd job bypasses (is_ok_to_run)."""
        if self.qrun is not None and job.get("id") == self.qrun:
            return None
        queue = job.get("queue", "")
        limits = self.queue_limits.get(queue)
        if limits is None or not (limits.counts or limits.resources or
                                  self.server_limits.counts or self.server_limits.resources):
            return None
        return runlimits.held_back(_entity(job), queue, _request_amounts(job), _KINDS,
                                   limits, self.server_limits, self.usage)

    def capped(self, job: Attrs) -> bool:
        """An array's ``max_run_subjobs`` reached: no more of its subjobs run now (qrun aside)."""
        cap = self.subjob_caps.get(job.get("array_id", ""))
        return (cap is not None and job.get("id") != self.qrun
                and cap[1] >= cap[0])

    def count_subjob(self, job: Attrs) -> None:
        cap = self.subjob_caps.get(job.get("array_id", ""))
        if cap is not None:
            cap[1] += 1

    def place(self, job: Attrs, request: _Request,
              commit_run: bool = True) -> Union[Placement, Failure]:
        """Place and commit ``job``: a reservation's job on its reservation's vnodes only,
        any other around the reservations (sched/reserved.py); ``commit_run``: take the
        vnodes (not when a run limit holds the job back)."""
        resv_vnodes = self.reserved.vnodes_for(job)
        ahead = {} if resv_vnodes is not None else self.reserved.ahead_of(job)
        vnodes = resv_vnodes if resv_vnodes is not None else self.pool(job)
        self.reserved.hold(vnodes, ahead, True)
        try:
            outcome = place_job(request.chunks, request.place, vnodes, self.consumables,
                                self.eligible(job), self.psets(job, resv_vnodes is not None))
            if isinstance(outcome, Placement) and commit_run:
                exec_vnode, exec_host, hosts = commit(outcome, request.place, vnodes)
                if resv_vnodes is not None:  # the host's cpus are in use for all to see
                    for name in set(outcome.vnodes):
                        self.vnodes[name].job_count += 1
                self.note(job, outcome)
                self.result.runs.append(Run(job["id"], exec_vnode, exec_host, hosts))
        finally:
            self.reserved.hold(vnodes, ahead, False)
        return outcome

    def pool(self, job: Attrs) -> Dict[str, VNode]:
        """The vnodes the job's queue may use, in the search's order: a queue with vnodes of
        its own uses only those, any other queue only the vnodes of no queue (is_ok_to_run:
        qinfo->nodes, else sinfo->unassoc_nodes)."""
        vnodes = self.vnodes
        if self.pools is not None:
            queue = job.get("queue", "")
            vnodes = self.pools[queue] if queue in self.pools else self.pools.get("", {})
        return sort_vnodes(vnodes, self.node_sort) if self.resort else vnodes

    def psets(self, job: Attrs, in_reservation: bool) -> Psets:
        """The node grouping for ``job`` (check.cpp check_normal_node_path): with the server's
        ``node_group_enable``, its queue's ``node_group_key``, else the server's; none for a
        reservation's job (its vnodes are its set).  The job's ``place=group`` replaces it
        (placement.place_job)."""
        keys: Tuple[str, ...] = ()
        if not in_reservation and _true(self.server.get("node_group_enable")):
            queue = self.queues.get(job.get("queue", ""), {})
            text = queue.get("node_group_key") or self.server.get("node_group_key") or ""
            keys = tuple(word.strip() for word in text.split(",") if word.strip())
        return Psets(keys, not _true(self.sched.get("do_not_span_psets")),
                     _true(self.sched.get("only_explicit_psets")))

    def eligible(self, job: Attrs) -> Optional[Eligible]:
        """The vnodes' run limits for ``job``; none for a qrun'd job (is_vnode_eligible)."""
        if not self.node_limits or (self.qrun is not None and job.get("id") == self.qrun):
            return None
        user, group = job_owner(job)
        return lambda vnode: vnode.run_limit(user, group)

    def note(self, job: Attrs, placed: Placement) -> None:
        """The job runs on these vnodes now: it counts towards their run limits."""
        if self.node_limits:
            user, group = job_owner(job)
            for name in set(placed.vnodes):
                self.vnodes[name].note_job(str(job.get("id", "")), user, group)

    def resume(self, job: Attrs) -> None:
        """A job suspended by preemption runs again on its own vnodes once they are free."""
        fits = True
        for name, amounts, _ in _holding(job, self.consumables):
            vnode = self.vnodes.get(name)
            if vnode is None or not vnode.usable or \
                    any(vnode.free(res) < amount for res, amount in amounts.items()):
                fits = False
        if not fits:
            self.fail(job, "Not Running: Not enough free nodes available")
            return
        _release(self.vnodes, job, self.consumables, back=True)
        self.considered(job, RESUME)

    def victims_for(self, level: int) -> List[Attrs]:
        """Running jobs of lower preemption priority with a usable method, newest first."""
        if self.running is None:
            self.running = [job for job in self.jobs
                            if job.get("job_state") == "R" and job.get("exec_vnode") and
                            not job.get("preempt_pending")]
        found = []
        for job in self.running:
            if job["id"] in self.victimised or self.reserved.is_resv_queue(job.get("queue", "")):
                continue  # a reservation's job holds the reservation's cpus, no one else's
            if self.level(job) >= level:
                continue
            if not self.methods(job):
                continue
            found.append(job)
        found.sort(key=lambda job: (_number(job.get("stime")), job["id"]), reverse=True)
        return found

    def methods(self, job: Attrs) -> List[str]:
        letters = methods_for(job, self.policy.order, self.now)
        return usable_methods(job, letters, self.policy.checkpoint)

    def try_preempt(self, job: Attrs, request: _Request) -> bool:
        if not self.policy.enabled:
            return False
        level = self.level(job)
        if level <= self.lowest:
            return False
        candidates = self.victims_for(level)
        if not _false(self.sched.get("preempt_targets_enable")):
            targets = preempt_targets.parse(job.get("Resource_List.preempt_targets"))
            if targets is not None:  # none: no victim; else only the targets' jobs
                candidates = [victim for victim in candidates
                              if preempt_targets.matches(victim, targets)]
        chosen: List[Attrs] = []
        placed: Optional[Placement] = None
        eligible = self.eligible(job)
        psets = self.psets(job, False)
        for victim in candidates:
            _release(self.vnodes, victim, self.consumables)
            chosen.append(victim)
            outcome = place_job(request.chunks, request.place, self.pool(job),
                                self.consumables, eligible, psets)
            if isinstance(outcome, Placement):
                placed = outcome
                break
        if placed is None:
            for victim in chosen:
                _release(self.vnodes, victim, self.consumables, back=True)
            return False
        # Spare the victims the job does not need after all (oldest-chosen last).
        for victim in list(reversed(chosen[:-1])):
            _release(self.vnodes, victim, self.consumables, back=True)
            outcome = place_job(request.chunks, request.place, self.pool(job),
                                self.consumables, eligible, psets)
            if isinstance(outcome, Placement):
                chosen.remove(victim)
                placed = outcome
            else:
                _release(self.vnodes, victim, self.consumables)
        exec_vnode, exec_host, hosts = commit(placed, request.place, self.vnodes)
        self.note(job, placed)
        run = Run(job["id"], exec_vnode, exec_host, hosts)
        victims = [(victim["id"], self.methods(victim)) for victim in chosen]
        self.victimised.update(victim["id"] for victim in chosen)
        self.result.preempt.append(Preemption(run, victims))
        return True


# fifo.cpp (JOB_UNDER_THRESHOLD, job_info.cpp's sched_error text)
UNDER_THRESHOLD = "Not Running: Job is under job_sort_formula threshold value"
# check.cpp:is_ok_to_run (MAX_RUN_SUBJOBS, job_info.cpp's sched_error text)
MAX_RUN_SUBJOBS = "Not Running: Number of concurrent running subjobs limit reached"


def _subjob_caps(jobs: Sequence[Attrs]) -> Dict[str, List[int]]:
    """array id -> [max_run_subjobs, subjobs running] for the arrays that set a cap."""
    caps = {job["id"]: [int(_number(job.get("max_run_subjobs"))), 0] for job in jobs
            if job.get("array") == "True" and job.get("max_run_subjobs", "") != ""}
    for job in jobs if caps else ():
        cap = caps.get(job.get("array_id", ""))
        if cap is not None and job.get("job_state") == "R":  # server_info.cpp: running_jobs
            cap[1] += 1
    return caps


def run_cycle(server: Attrs, sched: Attrs, queues: Mapping[str, Attrs],
              nodes: Mapping[str, Attrs], jobs: Sequence[Attrs], now: float,
              qrun: Optional[str] = None,
              consumables: Sequence[str] = DEFAULT_CONSUMABLES,
              resvs: Sequence[Attrs] = (),
              node_sort: Sequence[NodeSortKey] = (),
              preemptive: bool = True,
              totalled: Sequence[str] = tuple(SERVER_ASSIGNED),
              pooled: Optional[Sequence[str]] = None) -> CycleResult:
    """One cycle: the jobs to start, the comments that changed, and the preemptions wanted.

    Nothing runs when ``scheduling`` is False on the server or the scheduler object. Jobs carry
    ``id`` and their attributes (``job_state``, ``queue``, ``Resource_List.*``, ``qtime`` epoch,
    ``exec_vnode``/``exec_host``/``stime`` when running). Victims of a preemption still under way
    should carry ``preempt_pending`` so they are not chosen twice, and the high-priority job
    should not be passed again until its preemption finished.
    ``qrun``: the id of a job a manager asked to run (``qrun`` without ``-H``): it is considered
    first and may preempt any running job with a usable method, as PBS's qrun'd job does (k06).
    ``consumables``: the consumable resources of the scheduler's ``resources:`` line, ncpus
    first (model/sched_config.py); others in a select are not checked or assigned (n02m).
    ``resvs``: the reservations' attributes (sched/reserved.py).
    ``node_sort``: sched_config's ``node_sort_key`` lines (none: the server's vnode order);
    ``preemptive``: its ``preemptive_sched``.  ``totalled``: the resources the server sums
    in ``resources_assigned`` (the server's and queues' pools count the running jobs' amounts
    of these, model/pools.py); ``pooled``: the numeric resources of the resources line, which
    those pools hold back (default: ``consumables``).
    """
    if _false(server.get("scheduling")) or _false(sched.get("scheduling")):
        return CycleResult([], {}, [], [])
    return _Cycle(sched, queues, nodes, jobs, now, qrun, consumables, server, resvs,
                  node_sort, preemptive, totalled, pooled).run()
