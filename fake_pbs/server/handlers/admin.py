"""``ping``, ``shutdown``, ``reset`` (test harness), ``schedule`` and ``preempt``."""
import os
import time
from typing import Any, Dict, List

from fake_pbs.model import states as st
from fake_pbs.model.errors import PBSE_NOSUP, PbsError, message_for
from fake_pbs.server import lifecycle
from fake_pbs.server.handlers.common import require_manager
from fake_pbs.server.handlers.registry import Context, handler

_RESET_WAIT = 15.0
_SHUTDOWN_EVENT = 0x0086  # PBSEVENT_SYSTEM | PBSEVENT_ADMIN | PBSEVENT_DEBUG (req_shutdown.c)


@handler("ping")
def ping(ctx: Context, request: Dict[str, Any]) -> Dict[str, Any]:
    return {"server_name": ctx.app.server_name, "pid": os.getpid()}


@handler("shutdown", locked=False)
def shutdown(ctx: Context, request: Dict[str, Any]) -> None:
    """Stop the server (the listener closes after replying); running jobs keep running.

    Phased unless ``now``: no job starts any more, and the starts already sent to a mom settle
    (the job shell runs, or the run ends) within a bound, so that nothing is half-started.
    """
    with ctx.app.state.lock:
        require_manager(ctx)
    manner = str(request.get("manner") or "quick")
    if manner not in ("quick",) or request.get("secondary"):
        # qterm -t immediate|delay requeue or kill running jobs (req_shutdown.c
        # rerun_or_kill); -f/-F/-i address a failover secondary; neither is modelled
        what = "qterm -t %s" % manner if manner != "quick" else "a secondary server"
        raise PbsError(PBSE_NOSUP, "%s (fake_pbs does not model %s: docs/differences.md)"
                       % (message_for(PBSE_NOSUP), what))
    ctx.app.log.server("Shutdown request from %s " % ctx.caller.name, _SHUTDOWN_EVENT)
    ctx.app.log.server("Starting to shutdown the server, type is Quick", _SHUTDOWN_EVENT)
    if request.get("moms"):
        ctx.app.stop_moms = True  # qterm -m: told once the server's main loop has ended
    if not request.get("now"):
        from fake_pbs.server.drain import drain  # the stop path only
        drain(ctx.app)
    return None


@handler("reset", locked=False)
def reset(ctx: Context, request: Dict[str, Any]) -> None:
    """Forget all jobs and configuration (fake-only, for ``fake_pbs.testing``'s per-test reset).

    Running jobs are killed and their ends awaited (bounded), then every mom forgets its jobs, so
    that job ids can start again from 0 without meeting an old job of the same id.
    """
    require_manager(ctx)
    app = ctx.app
    with app.state.lock:
        hosts = list(app.state.nodes)
        for job in app.state.iter_jobs():
            if job.get("job_state") in st.ACTIVE_STATES and app.execs is not None:
                job["_deleted_by"] = ctx.caller.name
                try:
                    app.execs.signal(job["_id"], "SIGKILL")
                except PbsError:
                    job["_exit"] = 265
                    lifecycle.complete(app, job)
    deadline = time.monotonic() + _RESET_WAIT
    while time.monotonic() < deadline:
        with app.state.lock:
            if not any(j.get("job_state") in st.ACTIVE_STATES for j in app.state.jobs.values()):
                break
        time.sleep(0.05)
    with app.state.lock:
        app.state.reset()
        app.install_defaults()
        # The moms read hook definitions from the published file: withdraw the old hooks too.
        from fake_pbs.hooks import events
        from fake_pbs.server import hookfiles, hookpoints
        events.publish_hooks(app.home, [])
        hookfiles.clear(app.home)
        hookpoints.current().forget_compiled(None)
        if app.execs is not None:
            _forget_on_moms(app.execs, hosts)
    return None


def _forget_on_moms(execs: Any, hosts: List[str]) -> None:
    for host in hosts:
        try:
            listing = execs.request(host, "status")
        except PbsError:
            continue
        for entry in listing.get("jobs", []):
            try:
                execs.request(host, "discard", job=entry["id"])
            except PbsError:
                pass


@handler("schedule", locked=False)
def schedule(ctx: Context, request: Dict[str, Any]) -> Dict[str, int]:
    """Run one scheduling cycle now (fake-only; tests use it instead of waiting).

    Only a manager or operator may, as only they may ask PBS for a cycle (``qmgr -c 'set
    server scheduling=true'``, an operator-writable attribute) or run a job (qrun): an
    ordinary user's 15007.  Unlocked: a cycle that preempts waits for its victims without
    the model lock.
    """
    with ctx.app.state.lock:
        require_manager(ctx)
    from fake_pbs.server.sched.loop import Scheduler
    scheduler = ctx.app.scheduler
    if isinstance(scheduler, Scheduler):
        scheduler.cycle()
        return {"cycles": scheduler.cycles}
    return {"cycles": 0}


@handler("preempt", locked=False)
def preempt(ctx: Context, request: Dict[str, Any]) -> Dict[str, str]:
    """``pbs_preempt_jobs``: preempt ``ids`` by the preempt_order methods that apply.

    Answers each id's letter (S, C, Q for requeue, D, or 0 when it could not be preempted)
    once every victim is really out of the way (``fake_pbs.server.preemption``).
    """
    from fake_pbs.server import preemption
    app = ctx.app
    with app.state.lock:
        require_manager(ctx)
        ids: List[str] = [str(i) for i in request.get("ids") or []]
        pending = preemption.begin(app, ids, ctx.caller.name)
    return preemption.wait(app, pending)
