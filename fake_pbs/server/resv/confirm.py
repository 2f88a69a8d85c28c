"""The scheduler's side of a reservation: confirm it on vnodes or deny it.

OpenPBS's scheduler (``check_new_reservations`` -> ``confirm_reservation``) places the
reservation's chunks for each occurrence against the vnodes, the other confirmed reservations
and the running jobs (a job without walltime holds its vnodes for good), then the server
confirms it (``Y`` record, ``Reservation Confirmed``) or deletes it (R16, R31b: ``Reservation
denied``, ``K`` with ``requestor=Server@<host>@<host>``).  An ASAP reservation (``qmove``) gets
the first window in which the chunks fit (R25).
"""
from typing import Any, Dict, List, Optional

from fake_pbs.model import resv as rmodel
from fake_pbs.model import states as st
from fake_pbs.model.nodes import HOLDING_STATES
from fake_pbs.model.preempt import walltime_seconds
from fake_pbs.server import mail
from fake_pbs.server.app import ServerApp
from fake_pbs.server.resv import records
from fake_pbs.server.resv.records import Resv

#: sched log event of the reservation lines (R31c: 0200)
_SCHED_RESV = 0x0200
_HELD_STATES = (rmodel.CONFIRMED, rmodel.RUNNING, rmodel.BEING_DELETED)


def windows(resv: Resv) -> List[List[int]]:
    """The reservation's windows: the current one, then each later occurrence's."""
    duration = int(resv["reserve_duration"])
    starts = [int(resv["reserve_start"])] + [int(s) for s in resv.get("_later", [])]
    return [[start, start + duration] for start in starts]


def holdings(app: ServerApp, skip: str, consumables: Any) -> List[rmodel.Holding]:
    """What the other reservations and the running jobs outside reservations hold."""
    held: List[rmodel.Holding] = []
    for other in records.table(app).values():
        if other["_id"] == skip or int(other.get("reserve_state", 0)) not in _HELD_STATES:
            continue
        amounts = rmodel.amounts_of(other.get("resv_nodes", ""), consumables)
        for start, end in windows(other):
            held.append(rmodel.Holding(amounts, start, end))
    resv_queues = {r.get("queue") for r in records.table(app).values()}
    for job in app.state.live_jobs():
        if job.get("job_state") not in HOLDING_STATES and job.get("job_state") != st.SUSPENDED:
            continue
        if job.get("queue") in resv_queues or not job.get("exec_vnode"):
            continue
        start = int(job.get("stime", app.now()))
        wall = job.get("Resource_List.walltime")
        until = start + walltime_seconds(wall) if wall else None
        held.append(rmodel.Holding(rmodel.amounts_of(job["exec_vnode"], consumables),
                                   start, until))
    return held


def confirm(app: ServerApp, resv: Resv) -> bool:
    """Confirm ``resv`` or deny it; True when confirmed."""
    span = windows(resv)
    app.sched_log.write(_SCHED_RESV, "Resv", resv["_id"],
                        "Confirming %d Occurrences" % len(span))
    if resv.get("qmove") and int(resv["reserve_start"]) == rmodel.FUTURE_SCH:
        consumables = app.sched_consumables()
        found = rmodel.first_fit(resv.get("Resource_List.select", "1:ncpus=1"),
                                 resv.get("Resource_List.place", "free"),
                                 _unassociated_nodes(app),
                                 holdings(app, resv["_id"], consumables), app.now(),
                                 int(resv["reserve_duration"]), consumables)
        if found is None:
            return _deny(app, resv)
        start, resv_nodes = found
        resv["reserve_start"] = str(start)
        resv["reserve_end"] = str(start + int(resv["reserve_duration"]))
    else:
        planned = place_all(app, resv)
        if planned is None:
            return _deny(app, resv)
        resv_nodes = planned
    resv["resv_nodes"] = resv_nodes
    resv["reserve_state"] = resv["reserve_substate"] = str(rmodel.CONFIRMED)
    resv["mtime"] = str(app.now())
    records.tag_nodes(app, resv)
    records.save(app, resv)
    app.sched_log.write(_SCHED_RESV, "Resv", resv["_id"], "Reservation Confirmed")
    records.account(app, "Y", resv, records.confirmed_record(app, resv))
    mail.send_resv(app, resv, mail.CONFIRM)  # req_confirmresv
    return True


def _unassociated_nodes(app: ServerApp) -> Dict[str, Dict[str, str]]:
    """The vnodes a reservation may have: those of no queue (server_info.cpp unassoc_nodes;
    a queue's own vnodes serve that queue's jobs only)."""
    return {n: dict(a) for n, a in app.state.nodes.items() if not a.get("queue")}


def place_all(app: ServerApp, resv: Resv) -> Optional[str]:
    """The vnodes of every occurrence's window (those of the first), or None when one of
    them does not fit."""
    consumables = app.sched_consumables()
    held = holdings(app, resv["_id"], consumables)
    nodes = _unassociated_nodes(app)
    first = ""
    for start, end in windows(resv):
        planned = rmodel.plan(resv.get("Resource_List.select", "1:ncpus=1"),
                              resv.get("Resource_List.place", "free"), nodes, held, start, end,
                              consumables)
        if not isinstance(planned, str):
            return None
        first = first or planned
    return first


def _deny(app: ServerApp, resv: Resv) -> bool:
    """req_resvSub's denial: the server deletes the reservation (R16c, R31b)."""
    records.account(app, "K", resv, "requestor=Server@%s@%s" % (app.host, app.host))
    records.log_denied(app, resv)
    resv["reserve_state"] = resv["reserve_substate"] = "0"
    records.forget(app, resv)
    return False


def pending(app: ServerApp) -> List[Resv]:
    return [r for r in records.all_resvs(app)
            if int(r.get("reserve_state", 0)) == rmodel.UNCONFIRMED]


def confirm_pending(app: ServerApp) -> Dict[str, bool]:
    """Every unconfirmed reservation confirmed or denied (a scheduling cycle's first step)."""
    return {resv["_id"]: confirm(app, resv) for resv in pending(app)}
