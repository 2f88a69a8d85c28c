"""The server's half of a phased stop (``fake-pbs stop``): start nothing new, let what is
starting settle, within a bound.

Flux's perilog lost its processes on a broker restart (seed 003); its proposed cure was a
phased shutdown: new work stops, work in flight finishes under a timeout.  Here "in flight" is a
job run sent to (or about to be sent to) its mom whose job shell has not started yet: the
prologue and launch hooks run then.  Running jobs keep running under their shepherds and are
followed again when the server comes back; every state change is already committed.
"""
import time
from typing import List

from fake_pbs.model import states as st
from fake_pbs.server.app import ServerApp

DRAIN_SECONDS = 10.0
_POLL = 0.05


def starting(app: ServerApp) -> List[str]:
    """Ids of the runs whose start is in flight."""
    with app.state.lock:
        return [job["_id"] for job in app.state.iter_jobs()
                if job.get("job_state") == st.RUNNING and not job.get("_started")
                and job.get("_exit") is None]


def drain(app: ServerApp, seconds: float = DRAIN_SECONDS) -> List[str]:
    """Stop scheduling, wait (bounded) for in-flight starts; returns those still unsettled."""
    app.draining.set()
    with app.state.lock:
        pass  # a scheduling cycle in progress (it holds the lock) finishes first
    deadline = time.monotonic() + seconds
    pending = starting(app)
    while pending and time.monotonic() < deadline:
        time.sleep(_POLL)
        pending = starting(app)
    if pending:
        app.log.server("shutdown: starts still in flight after %ds: %s (they are resumed at "
                       "the next start)" % (int(seconds), " ".join(pending)))
    return pending
