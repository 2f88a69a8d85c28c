"""Route queues: each job of a started route queue goes to the first of its
``route_destinations`` that takes it (src/server/job_route.c queue_route, job_route,
default_router; svr_movejob.c local_move with MOVE_TYPE_Route, should_retry_route).

- A queued job is routed; a held one only with ``route_held_jobs``, a waiting one only with
  ``route_waiting_jobs``.  A route queue that is not ``started`` routes nothing.
- A destination takes the job when svr_chkque does (server/enqueue.py; a route may enter a
  ``from_route_only`` queue).  A refusal that may pass later (queue disabled, a job count or
  resource limit: should_retry_route) keeps the job for another try; when every destination
  refuses for good, the job is aborted ("Job rejected by all possible destinations"), as it is
  when it stayed longer than ``route_lifetime`` seconds ("Route queue lifetime exceeded").
- PBS's server tries the route queues on each pass of its main loop and waits
  ``route_retry_time`` before trying a job again; the fake routes whenever its scheduler loop
  runs (each submission, qmove, qrls or job end, and every ``scheduler_iteration``).
"""
from typing import Any, Dict, Iterable, List

from fake_pbs.model import states as st
from fake_pbs.model.attrs import is_true
from fake_pbs.model.errors import (PBSE_ENTLIMCT, PBSE_ENTLIMRESC, PBSE_MAXQUED, PBSE_QUNOENB,
                                   PbsError)
from fake_pbs.server import accounting, enqueue, lifecycle

Job = Dict[str, Any]

REJECTED = "Job rejected by all possible destinations"
EXPIRED = "Route queue lifetime exceeded"
#: should_retry_route: refusals that may pass later
_RETRY = frozenset((PBSE_MAXQUED, PBSE_QUNOENB, PBSE_ENTLIMCT, PBSE_ENTLIMRESC))


def is_route(queue: Dict[str, str]) -> bool:
    return str(queue.get("queue_type", "Execution"))[:1].lower() == "r"


def _destinations(queue: Dict[str, str]) -> List[str]:
    return [d.strip().split("@")[0] for d in str(queue.get("route_destinations", "")).split(",")
            if d.strip()]


def _routable(job: Job, queue: Dict[str, str]) -> bool:
    state = job.get("job_state")
    if state == st.QUEUED:
        return True
    if state == st.HELD:
        return is_true(queue.get("route_held_jobs", "False"))
    if state == st.WAITING:
        return is_true(queue.get("route_waiting_jobs", "False"))
    return False


def route_all(app: Any) -> bool:
    """Try every job of every started route queue; True when a job moved or ended."""
    state = app.state
    changed = False
    routes = {name: q for name, q in state.queues.items()
              if is_route(q) and is_true(q.get("started", "False"))}
    if not routes:
        return False
    jobs: Iterable[Job] = [j for j in state.live_jobs() if j.get("queue") in routes
                           and not j.get("array_id")]
    for job in jobs:
        queue = routes[str(job["queue"])]
        lifetime = queue.get("route_lifetime")
        if lifetime and int(job.get("qtime", "0") or 0) + int(lifetime) < app.now():
            _abort(app, job, EXPIRED)
            changed = True
            continue
        if not _routable(job, queue):
            continue
        changed = _route_one(app, job, _destinations(queue)) or changed
    return changed


def _route_one(app: Any, job: Job, destinations: List[str]) -> bool:
    retry = False
    for dest in destinations:
        if dest not in app.state.queues:
            continue
        trial = dict(job)
        try:
            enqueue.check(app, trial, dest, new_job=False, from_route=True)
        except PbsError as err:
            retry = retry or err.code in _RETRY
            continue
        enqueue.adopt(job, trial)
        job["queue"] = dest
        job["qtime"] = str(app.now())
        lifecycle.touch(app, job)
        app.log.job(job["_id"], "enqueuing into %s, state %s hop 1" % (
            dest, job.get("job_state", "Q")), 0x0100)
        app.acct.record("Q", job["_id"], accounting.job_fields(job, "Q"))
        lifecycle.save(app, job)
        return True
    if retry:
        return False
    _abort(app, job, REJECTED)
    return True


def _abort(app: Any, job: Job, text: str) -> None:
    """job_abt for a job that is not running: the text logged and accounted (A), then
    history."""
    app.log.job(job["_id"], text)
    app.acct.record("A", job["_id"], text)
    job["comment"] = text
    lifecycle.to_history(app, job, st.SUB_TERMINATED, ran=False)
