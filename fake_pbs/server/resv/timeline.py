"""A reservation's time: its window begins, ends, moves to the next occurrence; it is deleted.

What the server does at each point (OpenPBS ``Time4resv``, ``Time4resvFinish``,
``resv_purge``/``req_deleteReservation``; transcripts R22, R28, R30, R31, R52, R53):
- begin: RUNNING (state and substate 5), the queue started, the ``B`` record;
- end: the queue disabled and stopped at request of root, its jobs killed
  (``terminated by root@<host>``, Exit_status 271, no ``D`` record), the ``K`` record
  (``requestor=root@<host>``); a standing reservation moves to its next occurrence instead,
  its queued jobs kept for it;
- delete (pbs_rdel): the ``k`` record, each job deleted as by qdel of the requestor (``D``
  record; a queued one ends F with ``... and terminated``);
- while killed jobs are still ending the reservation shows BEING_DELETED (7, substate 9);
  once its queue is empty it is gone.
"""
from typing import Any, Dict, List

from fake_pbs.model import resv as rmodel
from fake_pbs.model import states as st
from fake_pbs.model.ecl import parse_time
from fake_pbs.server.app import ServerApp
from fake_pbs.server import jobdelete, mail
from fake_pbs.server.resv import hooks, records
from fake_pbs.server.resv.records import Resv

_LIVE = frozenset((st.QUEUED, st.HELD, st.WAITING, st.RUNNING, st.EXITING, st.SUSPENDED,
                   "T", "B", "U"))


def jobs_in(app: ServerApp, resv: Resv) -> List[Dict[str, Any]]:
    queue = resv.get("queue")
    return [job for job in app.state.live_jobs()
            if job.get("queue") == queue and job.get("job_state") in _LIVE]


def tick(app: ServerApp, now: int) -> bool:
    """Apply what the clock says to every reservation; True when jobs may now run."""
    changed = False
    for resv in records.all_resvs(app):
        with app.state.store.batch():  # one reservation's step: one commit
            changed = _step(app, resv, now) or changed
    return changed


def _step(app: ServerApp, resv: Resv, now: int) -> bool:
    """One reservation's transition due at ``now``, if any; True when one happened."""
    state = int(resv.get("reserve_state", 0))
    start, end = int(resv["reserve_start"]), int(resv["reserve_end"])
    if state == rmodel.BEING_DELETED:
        if not jobs_in(app, resv):
            records.forget(app, resv)
        return False
    if state == rmodel.CONFIRMED and start <= now < end:
        begin(app, resv, now)
    elif state in (rmodel.CONFIRMED, rmodel.RUNNING) and now >= end:
        finish(app, resv, now)
    elif state == rmodel.RUNNING and _idle_too_long(app, resv, now):
        delete(app, resv, "root@%s" % app.host, account=False, by_server=True)
    else:
        return False
    return True


def begin(app: ServerApp, resv: Resv, now: int) -> None:
    resv["reserve_state"] = resv["reserve_substate"] = str(rmodel.RUNNING)
    resv["mtime"] = str(now)
    resv["_idle_since"] = now
    records.save(app, resv)
    records.set_queue(app, resv, "pbs_server@%s" % app.host, started="True")
    records.mark_exclusive(app, resv, True)
    records.account(app, "B", resv, records.begin_record(resv))
    hooks.run(app, "resv_begin", resv)
    mail.send_resv(app, resv, mail.BEGIN)


def finish(app: ServerApp, resv: Resv, now: int) -> None:
    """The window is over: stop the queue, end its jobs, go on to the next occurrence."""
    root = "root@%s" % app.host
    records.set_queue(app, resv, root, enabled="False", started="False")
    records.mark_exclusive(app, resv, False)
    later = [int(s) for s in resv.get("_later", [])]
    for job in jobs_in(app, resv):
        # an occurrence's end kills the running jobs; the queued ones wait for the next
        state = job.get("job_state")
        if state != st.EXITING and (not later or state in st.ACTIVE_STATES):
            jobdelete.delete_one(app, job, False, root, manager=True)
    hooks.run(app, "resv_end", resv)
    mail.send_resv(app, resv, mail.END)
    resv["mtime"] = str(now)
    if later:
        duration = int(resv["reserve_duration"])
        resv["reserve_start"], resv["reserve_end"] = str(later[0]), str(later[0] + duration)
        resv["_later"] = later[1:]
        resv["reserve_index"] = str(int(resv.get("reserve_index", "1")) + 1)
        resv["reserve_state"] = resv["reserve_substate"] = str(rmodel.CONFIRMED)
        records.save(app, resv)
        records.set_queue(app, resv, "pbs_server@%s" % app.host, enabled="True")
        return
    records.account(app, "K", resv, "requestor=%s" % root)
    _wind_up(app, resv)


def delete(app: ServerApp, resv: Resv, who: str, manager: bool = True,
           account: bool = True, by_server: bool = False) -> None:
    """pbs_rdel (req_deleteReservation) by ``who``, or the server's own delete: the
    reservation's jobs go, then it."""
    if account:
        records.account(app, "k", resv, "requestor=%s" % who)
    # resv_mailAction: the owner hears who asked; the server's own request forces the mail
    mail.send_resv(app, resv, mail.ABORT, "Requesting party: %s" % who, force=by_server)
    resv["mtime"] = str(app.now())
    for job in jobs_in(app, resv):
        if job.get("job_state") == st.EXITING:
            continue
        app.acct.record("D", job["_id"], "requestor=%s" % who)
        jobdelete.delete_one(app, job, False, who, manager)
    # process_hooks: every PBS_BATCH_DeleteResv runs the resv_end hooks, whatever the state
    hooks.run(app, "resv_end", resv)
    _wind_up(app, resv)


def _wind_up(app: ServerApp, resv: Resv) -> None:
    if jobs_in(app, resv):
        resv["reserve_state"] = str(rmodel.BEING_DELETED)
        resv["reserve_substate"] = str(rmodel.DELETING_JOBS)
        records.save(app, resv)
    else:
        records.forget(app, resv)


def _idle_too_long(app: ServerApp, resv: Resv, now: int) -> bool:
    """``delete_idle_time``: a running reservation with no job for that long is deleted."""
    idle = resv.get("delete_idle_time")
    if not idle:
        return False
    if jobs_in(app, resv):
        resv["_idle_since"] = now
        return False
    try:
        limit = parse_time(idle)
    except Exception:
        return False
    return now - int(resv.get("_idle_since", now)) >= limit
