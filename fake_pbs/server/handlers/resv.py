"""``resv_submit``, ``resv_status``, ``resv_delete``, ``resv_alter``: the reservation requests.

PBS's server side of pbs_rsub/pbs_rstat/pbs_rdel/pbs_ralter (req_quejob.c ``req_resvSub``,
req_delete.c ``req_deleteReservation``, req_modify.c ``req_modifyReservation``); the wire
format is /work/wt/resv-interface.md's (docs/internals.md).  The reservation's life after the
request is fake_pbs/server/resv/.
"""
from typing import Any, Callable, Dict, Optional, Tuple

from fake_pbs.model import acl
from fake_pbs.model import resv as rmodel
from fake_pbs.model import rrule
from fake_pbs.model.attrs import is_true
from fake_pbs.model.ecl import format_time, parse_time
from fake_pbs.model.errors import (PBSE_BADATVAL, PBSE_BADTSPEC, PBSE_BADSTATE, PBSE_IVALREQ,
                                   PBSE_NOATTR, PBSE_PERM, PBSE_RESV_FROM_ARRJOB,
                                   PBSE_RESV_FROM_RESVJOB, PBSE_RESVAUTH_G, PBSE_RESVAUTH_H,
                                   PBSE_RESVAUTH_U, PBSE_RESVFAIL, PBSE_UNKJOBID, PbsError)
from fake_pbs.model import states as st
from fake_pbs.server import accounting, jobids, lifecycle, resourcing
from fake_pbs.server.handlers.registry import Context, handler
from fake_pbs.server.resv import confirm, hooks, records, timeline
from fake_pbs.server.resv import jobs as resvjobs
from fake_pbs.server.sched.loop import scheduling_enabled

Attrs = Dict[str, str]


# -- pbs_rsub ---------------------------------------------------------------------------------
def _request_attrs(request: Dict[str, Any], allowed: Callable[[str], bool]) -> Attrs:
    """The request's attributes as text: PBSE_IVALREQ when they are no mapping, PBSE_NOATTR
    for a name not ``allowed``."""
    raw = request.get("attrs") or {}
    if not isinstance(raw, dict):
        raise PbsError(PBSE_IVALREQ)
    attrs: Attrs = {str(k): str(v) for k, v in raw.items()}
    if not all(allowed(name) for name in attrs):
        raise PbsError(PBSE_NOATTR)
    return attrs


def _settable(name: str) -> bool:
    return name in rmodel.SETTABLE or name.startswith("Resource_List.")


@handler("resv_submit")
def resv_submit(ctx: Context, request: Dict[str, Any]) -> Dict[str, str]:
    app = ctx.app
    draft: Dict[str, Any] = dict(_request_attrs(request, _settable))
    hooks.run(app, "resvsub", draft)  # req_resvSub runs the hook first; it may edit
    # what a hook may change is what a client may send: never the server's own fields
    attrs = {k: str(v) for k, v in draft.items() if _settable(k)}
    _check_admission(ctx)
    # pbs_rsub --hosts: a maintenance reservation, managers and operators only (req_resvSub);
    # PBS's client confirms it on the named vnodes (pbs_confirmresv), the fake's server does
    maintenance = request.get("extend") == "m"
    if maintenance and not ctx.caller.manager:
        raise PbsError(PBSE_PERM)
    # The id is taken before the request is checked: a refused one spends its number
    # (R15 spent 880, R17c/R17d/R18 885-887).
    seq = app.state.next_seq()
    standing = bool(attrs.get("reserve_rrule"))
    resv_id = "%s%d.%s" % ("S" if standing else "R", seq, app.server_name)
    now = app.now()
    start, end, duration = _window(attrs, now)
    _check_priority(attrs.get("Priority"))
    resources = _resources(ctx, attrs, duration)
    _check_acls(ctx)
    resv = _record(ctx, attrs, seq, resv_id, (start, end, duration), resources)
    if standing:
        _occurrences(resv, now)
    if resv["queue"] in app.state.queues:
        raise PbsError(PBSE_RESVFAIL)  # req_resvSub: its queue could not be created
    job = _asap_job(ctx, resv) if resv.get("qmove") else None
    if job is not None:
        resv.setdefault("delete_idle_time", rmodel.ASAP_IDLE)
    with app.state.store.batch():  # the reservation and its queue: one commit
        records.table(app)[resv_id] = resv
        records.save(app, resv)
        records.make_queue(app, resv)
        records.account(app, "U", resv, _requested_record(ctx, resv))
        home = str(job["queue"]) if job is not None else ""
        if job is not None:
            _move_in(ctx, job, resv)
    state = "UNCONFIRMED"
    if scheduling_enabled(app) or maintenance:
        with app.state.store.batch():
            confirmed = confirm.confirm(app, resv)
            if not confirmed and job is not None:
                _move_in(ctx, job, {"queue": home})  # its reservation is gone: back home
        if confirmed:
            hooks.run(app, "resv_confirm", resv)
        if "interactive" in resv or job is not None or maintenance:
            state = "CONFIRMED" if confirmed else "DENIED"
    app.trigger_schedule()
    return {"id": resv_id, "state": state}


def _record(ctx: Context, attrs: Attrs, seq: int, resv_id: str,
            window: Tuple[int, int, int], resources: Attrs) -> Dict[str, Any]:
    """The new reservation's record: PBS's attributes in pbs_rstat -f's order (R04)."""
    app = ctx.app
    now = app.now()
    owner = "%s@%s" % (ctx.caller.user, app.host)
    start, end, duration = window
    resv: Dict[str, Any] = {"_id": resv_id, "_seq": seq, "_uid": ctx.caller.uid}
    resv.update({"Reserve_Name": attrs.pop("Reserve_Name", "NULL"), "Reserve_Owner": owner,
                 "reserve_state": str(rmodel.UNCONFIRMED),
                 "reserve_substate": str(rmodel.UNCONFIRMED),
                 "reserve_start": str(start), "reserve_end": str(end),
                 "reserve_duration": str(duration), "queue": resv_id.split(".")[0]})
    for key in ("reserve_start", "reserve_end", "reserve_duration"):
        attrs.pop(key, None)
    resv.update(resources)
    resv["Authorized_Users"] = attrs.pop("Authorized_Users", owner)
    resv.update({"server": app.server_name, "ctime": str(now), "mtime": str(now)})
    resv.update(attrs)
    resv["Variable_List"] = attrs.get("Variable_List") or "PBS_O_LOGNAME=%s,PBS_O_HOST=%s" % (
        ctx.caller.user, app.host)
    resv["reserve_count"] = "1"
    resv["partition"] = "pbs-default"
    return resv


def _check_priority(value: Optional[str]) -> None:
    """req_resvSub: a Priority outside -1024..1024 (or no number) is PBSE_BADATVAL."""
    if value is None:
        return
    try:
        number = int(value.strip())
    except ValueError:
        raise PbsError(PBSE_BADATVAL) from None
    if not -1024 <= number <= 1024:
        raise PbsError(PBSE_BADATVAL)


def _check_admission(ctx: Context) -> None:
    """The server's resv_enable and acl_resv_host_* (req_resvSub, before the id)."""
    server = ctx.app.state.server
    if "resv_enable" in server and not is_true(server["resv_enable"]):
        raise PbsError(PBSE_RESVAUTH_U, "reservations disallowed on %s" % ctx.app.server_name)
    if is_true(server.get("acl_resv_host_enable")):
        if not acl.check(server.get("acl_resv_hosts", ""), ctx.app.host, acl.HOST,
                         ctx.app.host):
            raise PbsError(PBSE_RESVAUTH_H)


def _check_acls(ctx: Context) -> None:
    """acl_resv_group_* (the caller's groups) then acl_resv_user_* (user@host)."""
    server = ctx.app.state.server
    if is_true(server.get("acl_resv_group_enable")):
        if not acl.check(server.get("acl_resv_groups", ""), ctx.caller.user, acl.GROUP,
                         ctx.app.host):
            raise PbsError(PBSE_RESVAUTH_G)
    if is_true(server.get("acl_resv_user_enable")):
        if not acl.check(server.get("acl_resv_users", ""),
                         "%s@%s" % (ctx.caller.user, ctx.app.host), acl.USER, ctx.app.host):
            raise PbsError(PBSE_RESVAUTH_U)


def _seconds(text: str) -> int:
    try:
        return parse_time(text.strip())
    except (PbsError, ValueError):
        raise PbsError(PBSE_BADTSPEC)


def _window(attrs: Attrs, now: int) -> Tuple[int, int, int]:
    """Start, end and duration from reserve_start and reserve_end or the -D walltime; PBS's
    BADTSPEC when one is missing, they disagree (R17d), or the start is past (R15, R18)."""
    if "reserve_start" not in attrs:
        raise PbsError(PBSE_BADTSPEC)
    try:
        start = int(attrs["reserve_start"])
        end = int(attrs["reserve_end"]) if "reserve_end" in attrs else None
    except ValueError:
        raise PbsError(PBSE_BADTSPEC)
    wall = attrs.get("Resource_List.walltime") or attrs.get("reserve_duration")
    duration = _seconds(wall) if wall else None
    asap = start == rmodel.FUTURE_SCH and bool(attrs.get("qmove"))
    if asap:
        if duration is None:
            raise PbsError(PBSE_BADTSPEC)
        return start, start + duration, duration
    if end is None:
        if duration is None:
            raise PbsError(PBSE_BADTSPEC)
        end = start + duration
    if duration is not None and end - start != duration:
        raise PbsError(PBSE_BADTSPEC)
    if start < now or end <= start:
        raise PbsError(PBSE_BADTSPEC)
    return start, end, end - start


def _resources(ctx: Context, attrs: Attrs, duration: int) -> Attrs:
    """Resource_List as PBS completes a reservation's: select 1:ncpus=1 and place free by
    default, walltime the duration (R04, R17)."""
    custom = ctx.app.state.objects.get("resource", {})
    given: Attrs = {}
    for name in [n for n in attrs if n.startswith("Resource_List.")]:
        value = attrs.pop(name)
        res = name.split(".", 1)[1]
        if res != "walltime":
            given[res] = value if res == "select" else resourcing.verify(res, value, custom)
    given.setdefault("place", "free")
    given["walltime"] = format_time(duration)
    return _resource_list(ctx, given)


def _resource_list(ctx: Context, given: Attrs) -> Attrs:
    """``Resource_List.*``: ``given`` completed by resourcing.derive, its place kept."""
    derived = resourcing.derive(given, ctx.app.state.objects.get("resource", {}))
    derived["place"] = given["place"]
    return {"Resource_List." + k: v for k, v in derived.items()}


def _occurrences(resv: Dict[str, Any], now: int) -> None:
    """A standing reservation's occurrences (fake_pbs/model/rrule.py, PBS's pbs_ical.c)."""
    tzid = resv.get("reserve_timezone") or _tzid(resv.get("Variable_List", ""))
    start, end = int(resv["reserve_start"]), int(resv["reserve_end"])
    every = rrule.checked_starts(resv["reserve_rrule"], start, end, tzid)
    count = len(every)
    starts = rrule.within_horizon(every, now)
    resv["reserve_timezone"] = tzid
    resv["reserve_index"] = "1"
    resv["reserve_count"] = str(count)
    resv["_later"] = [s for s in starts if s != start][:max(count - 1, 0)]


def _tzid(variables: str) -> str:
    for item in variables.split(","):
        if item.startswith("PBS_TZID="):
            return item.split("=", 1)[1]
    return ""


def _requested_record(ctx: Context, resv: Dict[str, Any]) -> str:
    """The ``U`` record (R30, R30b ``Interactive=-10``, R46 ``recurrence_rrule= timezone=``)."""
    text = "requestor=%s" % ctx.caller.name
    if "interactive" in resv:
        text += " Interactive=%s" % resv["interactive"]
    if resv.get("reserve_rrule"):
        text += " recurrence_rrule=%s timezone=%s" % (resv["reserve_rrule"],
                                                      resv.get("reserve_timezone", ""))
    return text


# -- ASAP: -W qmove=<job> ---------------------------------------------------------------------
def _asap_job(ctx: Context, resv: Dict[str, Any]) -> Dict[str, Any]:
    """The job an ASAP reservation is made for: the caller's, queued, in no reservation, not
    an array (req_resvSub's RESV_ATR_convert checks)."""
    jobid = jobids.normalize(str(resv["qmove"]), ctx.app.server_name) or ""
    job = ctx.app.state.jobs.get(jobid)
    if job is None or job.get("job_state") in st.HISTORY_STATES:
        raise PbsError(PBSE_UNKJOBID)
    if job.get("reserve_ID"):
        raise PbsError(PBSE_RESV_FROM_RESVJOB)
    if job.get("array") == "True" or job.get("array_id"):
        raise PbsError(PBSE_RESV_FROM_ARRJOB)
    if int(job.get("_uid", -1)) != ctx.caller.uid and not ctx.caller.manager:
        raise PbsError(PBSE_PERM)
    if job.get("job_state") not in (st.QUEUED, st.HELD, st.WAITING):
        raise PbsError(PBSE_BADSTATE)
    resv["qmove"] = jobid
    return job


def _move_in(ctx: Context, job: Dict[str, Any], resv: Dict[str, Any]) -> None:
    """The job moves into the new queue at once (R25c, R30b: its Q record follows U); and
    back to its own queue when the reservation is denied."""
    app = ctx.app
    resvjobs.enter_queue(app, job, resv["queue"])
    job["queue"] = resv["queue"]
    job["qtime"] = str(app.now())
    lifecycle.touch(app, job)
    app.acct.record("Q", job["_id"], accounting.job_fields(job, "Q"))
    lifecycle.save(app, job)


# -- pbs_rstat --------------------------------------------------------------------------------
@handler("resv_status")
def resv_status(ctx: Context, request: Dict[str, Any]) -> Dict[str, Any]:
    ids = request.get("ids")
    if ids:
        if not isinstance(ids, list):
            raise PbsError(PBSE_IVALREQ)
        chosen = [records.find(ctx.app, raw) for raw in ids]
    else:
        chosen = records.all_resvs(ctx.app)
    return {"reservations": [{"name": r["_id"], "attrs": rmodel.ordered(_shown(r))}
                             for r in chosen]}


def _shown(resv: Dict[str, Any]) -> Attrs:
    return {k: str(v) for k, v in resv.items() if not k.startswith("_")}


# -- pbs_rdel ---------------------------------------------------------------------------------
def _owned(ctx: Context, resv: Dict[str, Any]) -> None:
    """Only the reservation's owner or a manager/operator may change or delete it."""
    if not ctx.caller.manager and int(resv.get("_uid", -1)) != ctx.caller.uid:
        raise PbsError(PBSE_PERM)


@handler("resv_delete")
def resv_delete(ctx: Context, request: Dict[str, Any]) -> Dict[str, str]:
    resv = records.find(ctx.app, request.get("id"))
    _owned(ctx, resv)
    if int(resv.get("reserve_state", 0)) == rmodel.BEING_DELETED:
        return {}
    timeline.delete(ctx.app, resv, ctx.caller.name, bool(ctx.caller.manager))
    ctx.app.trigger_schedule()
    return {}


# -- pbs_ralter -------------------------------------------------------------------------------
_ALTERABLE = frozenset(("reserve_start", "reserve_end", "reserve_duration", "Reserve_Name",
                        "Mail_Points", "Mail_Users", "Authorized_Users", "Authorized_Groups",
                        "interactive", "Resource_List.select"))


@handler("resv_alter")
def resv_alter(ctx: Context, request: Dict[str, Any]) -> Dict[str, str]:
    app = ctx.app
    resv = records.find(app, request.get("id"))
    _owned(ctx, resv)
    attrs = _request_attrs(request, _ALTERABLE.__contains__)
    before = dict(resv)
    start, end = _altered_window(resv, attrs, app.now())
    timed = start != int(resv["reserve_start"]) or end != int(resv["reserve_end"])
    for name in ("Reserve_Name", "Mail_Points", "Mail_Users", "Authorized_Users",
                 "Authorized_Groups"):
        if name in attrs:
            resv[name] = attrs[name]
    force = bool(request.get("force"))
    if force and not ctx.caller.manager:
        raise PbsError(PBSE_PERM)  # pbs_ralter -Wforce: managers and operators only
    if timed or "Resource_List.select" in attrs:
        _retime(ctx, resv, start, end, attrs.get("Resource_List.select"))
        if not _reconfirm(ctx, resv) and not force:
            resv.clear()
            resv.update(before)
            records.save(app, resv)
            return {"text": "%s DENIED" % resv["_id"]} if "interactive" in attrs else \
                {"text": "%s ALTER REQUESTED" % resv["_id"]}
    records.follow_alteration(app, resv, attrs)
    resv["mtime"] = str(app.now())
    records.save(app, resv)
    app.trigger_schedule()
    if "interactive" in attrs:
        return {"text": "%s CONFIRMED" % resv["_id"]}
    return {"text": "%s ALTER REQUESTED" % resv["_id"]}


def _altered_window(resv: Dict[str, Any], attrs: Attrs, now: int) -> Tuple[int, int]:
    """-R moves only the start (end kept, R20c); -E the end; -D the end from the start;
    the end must follow the start (R20e) and a new start may not be past."""
    start, end = int(resv["reserve_start"]), int(resv["reserve_end"])
    try:
        if "reserve_start" in attrs:
            new_start = int(attrs["reserve_start"])
            if new_start != start and (new_start < now or
                                       int(resv["reserve_state"]) == rmodel.RUNNING):
                raise PbsError(PBSE_BADTSPEC)
            start = new_start
        if "reserve_end" in attrs:
            end = int(attrs["reserve_end"])
    except ValueError:
        raise PbsError(PBSE_BADTSPEC)
    if "reserve_duration" in attrs:
        duration = _seconds(attrs["reserve_duration"])
        if "reserve_end" in attrs and end - start != duration:
            raise PbsError(PBSE_BADTSPEC)
        end = start + duration
    if end <= start or end <= now:
        raise PbsError(PBSE_BADTSPEC)
    return start, end


def _retime(ctx: Context, resv: Dict[str, Any], start: int, end: int,
            select: Optional[str]) -> None:
    old_start = int(resv["reserve_start"])
    duration = end - start
    resv["reserve_start"], resv["reserve_end"] = str(start), str(end)
    resv["reserve_duration"] = str(duration)
    resv["Resource_List.walltime"] = format_time(duration)
    if resv.get("_later"):
        shift = start - old_start
        resv["_later"] = [int(s) + shift for s in resv["_later"]]
    if select is not None:
        given = {"select": select, "place": resv.get("Resource_List.place", "free"),
                 "walltime": resv["Resource_List.walltime"]}
        for key in [k for k in resv if k.startswith("Resource_List.")]:
            del resv[key]
        resv.update(_resource_list(ctx, given))


def _reconfirm(ctx: Context, resv: Dict[str, Any]) -> bool:
    """The scheduler confirms the altered reservation again (a ``Y`` record, R46) or the
    alteration is undone."""
    app = ctx.app
    resv_nodes = confirm.place_all(app, resv)
    if resv_nodes is None:
        return False
    if int(resv.get("reserve_state", 0)) != rmodel.RUNNING:
        records.untag_nodes(app, resv)
        resv["resv_nodes"] = resv_nodes
        records.tag_nodes(app, resv)
    records.account(app, "Y", resv, records.confirmed_record(app, resv))
    return True
