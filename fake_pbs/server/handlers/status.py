"""``statjob``, ``selectjob``, ``statque``, ``statsvr``, ``statnode``: PBS's attribute sets."""
import re
from typing import Any, Callable, Dict, Iterator, List, Optional

from fake_pbs.jsonwire import dumps
from fake_pbs.model import attrs as order
from fake_pbs.model import job_attrs, states as st
from fake_pbs.model.errors import (PBSE_HISTJOBID, PBSE_IVALREQ, PBSE_PERM, PBSE_UNKJOBID,
                                   PBSE_UNKNODE, PBSE_UNKQUE, PbsError)
from fake_pbs.model.stateselect import state_selected
from fake_pbs.server import assigned, jobids, subjobs
from fake_pbs.server.defaults import mem_bytes
from fake_pbs.model.attrs import is_true
from fake_pbs.server.handlers.common import caller_level, is_owner
from fake_pbs.server.handlers.registry import Context, handler
from fake_pbs.server.jobindex import EncodingKey
from fake_pbs.server.rawreply import EncodedList

Job = Dict[str, Any]
Reply = Dict[str, Any]


# -- jobs -------------------------------------------------------------------------------------
def _visible(ctx: Context, job: Job) -> bool:
    if ctx.caller.manager or is_owner(ctx, job):
        return True
    return is_true(ctx.app.state.server.get("query_other_jobs", "True"))


def _array_view(ctx: Context, job: Job) -> Job:
    """An array parent's live counters (array_state_count, array_indices_remaining)."""
    children = ctx.app.state.subjobs(job["_id"])
    # the rows of the table (subjobs.py): queued, or deleted before they ran (Expired)
    remaining: List[int] = list(subjobs.queued_indices(job))
    counts = {"Queued": len(remaining), "Running": 0, "Exiting": 0,
              "Expired": subjobs.expired_count(job)}
    for child in children:
        state = child.get("job_state")
        if state in (st.QUEUED, st.HELD, st.WAITING):
            counts["Queued"] += 1
            remaining.append(int(child.get("array_index", "0")))
        elif state in (st.RUNNING, st.SUSPENDED):
            counts["Running"] += 1
        elif state == st.EXITING:
            counts["Exiting"] += 1
        elif "stime" not in child:
            # PBS's tracking table counts as Expired the subjobs that ended without running
            # (deleted while queued); those that ran are counted nowhere once over (j03: 3 ran,
            # Expired:0; k12d/k12f/k12j/k12n: one or two deleted queued, Expired:1/2)
            counts["Expired"] += 1
    view = dict(job)
    view["array_state_count"] = " ".join("%s:%d" % kv for kv in counts.items())
    view["array_indices_remaining"] = _ranges(sorted(remaining)) if remaining else "-"
    return view


def _ranges(values: List[int]) -> str:
    parts: List[str] = []
    start = prev = values[0]
    for value in values[1:] + [-1]:
        if value == prev + 1:
            prev = value
            continue
        parts.append(str(start) if start == prev else "%d-%d" % (start, prev))
        start = prev = value
    return ",".join(parts)


def _expired_subjob_view(ctx: Context, job: Job) -> Job:
    """A subjob that expired before it ran exists only as a row of its parent's table: PBS
    shows the parent's record with the subjob's state (stat_job.c), so its substate and
    Exit_status are the parent's (k12j, k12n: 91 and 1 of a terminated array)."""
    parent = ctx.app.state.jobs.get(job.get("array_id", ""))
    if parent is None:
        return job
    view = dict(job)
    view["substate"] = parent.get("substate", job.get("substate"))
    view.pop("Exit_status", None)
    if "Exit_status" in parent:
        view["Exit_status"] = parent["Exit_status"]
    return view


def job_record(ctx: Context, job: Job, names: Optional[List[str]] = None) -> Reply:
    if job.get("array") == "True":
        view = _array_view(ctx, job)
    elif (job.get("array_id") and job.get("job_state") in st.HISTORY_STATES
            and "stime" not in job):
        view = _expired_subjob_view(ctx, job)
    else:
        view = job
    pairs = order.job_pairs(view, ctx.caller.manager)
    if names:
        wanted = set(names)
        pairs = [(n, v) for n, v in pairs if n in wanted or n.split(".")[0] in wanted]
    return {"id": job["_id"], "attrs": [list(p) for p in pairs]}


def _all_jobs(ctx: Context, extend: str, names: Optional[List[str]]) -> EncodedList:
    """Every visible job's record, encoded; history records come from the index's cache.

    Without ``x`` only the live jobs are walked (the index's list), so a plain ``qstat``
    costs what it shows, not the size of the history (docs/performance.md, hotspots 4, 6).
    """
    state = ctx.app.state
    history = "x" in extend
    with_subjobs = "t" in extend
    state.index.sync(state.jobs)
    jobs = list(state.jobs.values()) if history else state.live_jobs()
    everyone = ctx.caller.manager or is_true(state.server.get("query_other_jobs", "True"))
    key = _encoding_key(ctx, names)
    out: List[bytes] = []
    for job in jobs:
        if job.get("array_id") and (not with_subjobs or job["array_id"] in state.jobs):
            continue  # a subjob is listed with its array (below), if at all
        done = job.get("job_state") in st.HISTORY_STATES
        if done and not history:
            continue
        if not (everyone or is_owner(ctx, job)):
            continue
        out.append(_encoded(ctx, job, names, key))
        if with_subjobs and job.get("array") == "True":
            out += _subjob_items(ctx, job, names, lambda child: history or child.get(
                "job_state") not in st.HISTORY_STATES)
    return EncodedList(out)


def _encoded(ctx: Context, job: Job, names: Optional[List[str]],
             key: EncodingKey) -> bytes:
    """``job``'s record, encoded; a history job's from the index's cache (under ``key``)."""
    index = ctx.app.state.index
    done = job.get("job_state") in st.HISTORY_STATES
    data = index.encoded(job, key) if done else None
    if data is None:
        data = dumps(job_record(ctx, job, names)).encode("ascii")
        # a parent's counters are computed, an expired subjob shows its parent's status
        if done and job.get("array") != "True" and not (
                job.get("array_id") and "stime" not in job):
            index.keep_encoded(job, key, data)
    return data


def _encoding_key(ctx: Context, names: Optional[List[str]]) -> EncodingKey:
    return (bool(ctx.caller.manager), tuple(str(n) for n in names) if names else None)


#: Two indices no array has (max_array_size is far below): the table's rows of one group are
#: encoded once with each, and the rest by putting their index in its place.
_SAMPLES = (987654321012, 987654321013)


def _subjob_items(ctx: Context, parent: Job, names: Optional[List[str]],
                  shown: Callable[[Job], bool]) -> List[bytes]:
    """The encoded records of ``parent``'s subjobs that ``shown`` keeps, by index: stored
    ones one by one; each group of the table's rows (subjobs.rows, records that differ only
    in their index) from one encoding, so a 10,000-row table costs little more than its
    bytes."""
    server = ctx.app.server_name
    key = _encoding_key(ctx, names)
    items = [(int(child.get("array_index", "0")), _encoded(ctx, child, names, key))
             for child in ctx.app.state.subjobs(parent["_id"]) if shown(child)]
    base = subjobs.copied(parent)
    for kind, when, indices in subjobs.rows(parent):
        one, two = (subjobs.record(parent, i, server, kind, when, base) for i in _SAMPLES)
        if not shown(one):
            continue
        first = dumps(job_record(ctx, one, names))
        mark = str(_SAMPLES[0])
        if first.replace(mark, str(_SAMPLES[1])) == dumps(job_record(ctx, two, names)):
            items += [(i, first.replace(mark, str(i)).encode("ascii")) for i in indices]
            continue
        # the index's digits also stand elsewhere in the record: encode each on its own
        items += [(i, dumps(job_record(ctx, subjobs.record(parent, i, server, kind, when, base),
                                       names)).encode("ascii")) for i in indices]
    items.sort(key=lambda item: item[0])
    return [data for _, data in items]


def _with_subjobs(ctx: Context, jobs: List[Job]) -> Iterator[Job]:
    """``jobs`` with each array's subjobs right after it, by index (records and rows of its
    table alike: subjobs.py), as PBS lists them for ``qstat -t``."""
    state = ctx.app.state
    for job in jobs:
        if job.get("array_id") and job["array_id"] in state.jobs:
            continue  # listed with its parent
        yield job
        if job.get("array") == "True":
            yield from subjobs.children(state, job, ctx.app.server_name)


_SUBJOB_RANGE = jobids.SUBJOB_RANGE


def _subjob_range(ctx: Context, span: "re.Match[str]", extend: str,
                  names: Optional[List[str]]) -> List[Reply]:
    """``qstat -t '339[1-2].vm'``: the subjobs of the range, not the array (j02o)."""
    seq, first, last = int(span.group(1)), int(span.group(2)), int(span.group(3))
    step = int(span.group(4) or 1)
    parent = ctx.app.state.jobs.get(jobids.make(seq, ctx.app.server_name, array=True))
    if parent is None or span.group(5) and jobids.normalize(
            "%d.%s" % (seq, span.group(5)), ctx.app.server_name) is None:
        raise PbsError(PBSE_UNKJOBID)
    if not _visible(ctx, parent):
        raise PbsError(PBSE_PERM)
    out: List[Reply] = []
    for index in range(first, last + 1, max(step, 1)):
        child = subjobs.lookup(ctx.app.state, parent, index, ctx.app.server_name)
        if child is None:
            continue
        if child.get("job_state") in st.HISTORY_STATES and "x" not in extend:
            continue
        out.append(job_record(ctx, child, names))
    return out


@handler("statjob")
def statjob(ctx: Context, request: Dict[str, Any]) -> Any:
    extend = str(request.get("extend") or "")
    names = request.get("names") or None
    jobs = ctx.app.state.jobs
    raw = request.get("id")
    if raw is None:
        return _all_jobs(ctx, extend, names)
    if not isinstance(raw, str):
        raise PbsError(PBSE_IVALREQ)
    span = _SUBJOB_RANGE.match(raw.strip())
    if span is not None:
        return _subjob_range(ctx, span, extend, names)
    jobid = jobids.normalize(raw, ctx.app.server_name)
    found = jobs.get(jobid) if jobid else None
    index = jobids.index_of(jobid) if jobid and found is None else None
    if index is not None:  # a row of its array's table (subjobs.py)
        parent = jobs.get(jobids.parent_of(str(jobid)) or "")
        found = subjobs.lookup(ctx.app.state, parent, index, ctx.app.server_name) \
            if parent is not None else None
    if found is None:
        raise PbsError(PBSE_UNKJOBID)
    job = found
    if job is None:
        raise PbsError(PBSE_UNKJOBID)
    if job.get("job_state") in st.HISTORY_STATES and "x" not in extend:
        raise PbsError(PBSE_HISTJOBID)
    if not _visible(ctx, job):
        raise PbsError(PBSE_PERM)
    out = [job_record(ctx, job, names)]
    if job.get("array") == "True" and "t" in extend:
        return EncodedList([dumps(out[0]).encode("ascii")] + _subjob_items(
            ctx, job, names, lambda child: child.get("job_state") not in st.HISTORY_STATES
            or "x" in extend or child.get("job_state") == st.EXPIRED))
    return out


_DURATION = re.compile(r"^(?:(\d+):)?(?:(\d+):)?(\d+)$")


def _number(value: str) -> Optional[float]:
    match = _DURATION.match(value.strip())
    if match:
        parts = [int(p) for p in match.groups() if p is not None]
        total = 0
        for part in parts:
            total = total * 60 + part
        return float(total)
    try:
        return float(mem_bytes(value))
    except ValueError:
        return None


def _compare(actual: Optional[str], op: str, wanted: str, name: str) -> bool:
    if actual is None:
        return op == "ne"
    if name == "job_state" and op in ("eq", "ne"):
        inside = state_selected(actual, wanted)
        return inside if op == "eq" else not inside
    if name == "Job_Owner" and "@" not in wanted:
        actual = actual.split("@")[0]
    a, w = _number(actual), _number(wanted)
    if a is None or w is None or op in ("eq", "ne") and (a is None or w is None):
        a_s, w_s = actual, wanted
        return {"eq": a_s == w_s, "ne": a_s != w_s, "lt": a_s < w_s, "le": a_s <= w_s,
                "gt": a_s > w_s, "ge": a_s >= w_s}.get(op, False)
    return {"eq": a == w, "ne": a != w, "lt": a < w, "le": a <= w, "gt": a > w,
            "ge": a >= w}.get(op, False)


@handler("selectjob")
def selectjob(ctx: Context, request: Dict[str, Any]) -> List[str]:
    extend = str(request.get("extend") or "")
    raw = request.get("criteria") or []
    if not isinstance(raw, list) or not all(isinstance(c, list) and len(c) == 3 for c in raw):
        raise PbsError(PBSE_IVALREQ)
    criteria = [(str(n), str(op), str(v)) for n, op, v in raw]
    # Only attributes the caller may read, never a private field (model/job_attrs.py).
    job_attrs.check_select(criteria, caller_level(ctx))
    for name, _, value in criteria:
        if name == "queue" and str(value).split("@")[0] not in ctx.app.state.queues:
            raise PbsError(PBSE_UNKQUE)
    out: List[str] = []
    state = ctx.app.state
    jobs = list(state.jobs.values()) if "x" in extend else state.live_jobs()
    for job in _with_subjobs(ctx, jobs) if "t" in extend else jobs:
        if job.get("array_id") and "t" not in extend:
            continue
        if job.get("job_state") in st.HISTORY_STATES and "x" not in extend:
            continue
        if not _visible(ctx, job):
            continue
        if all(_compare(job.get(str(n)), str(op), str(v).split("@")[0] if n == "queue"
                        else str(v), str(n)) for n, op, v in criteria):
            out.append(job["_id"])
    return out


# -- queues and server ------------------------------------------------------------------------
def _counts(jobs: List[Job]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for job in jobs:
        letter = job.get("job_state", "Q")
        counts[letter] = counts.get(letter, 0) + 1
    return counts


def _legacy_ran(record: Dict[str, str], ran: bool) -> Dict[str, str]:
    """A record saved before the names were kept (a queue's ``_ran``, a server that ran jobs)
    had totalled ncpus and nodect at least."""
    if ran:
        return dict(record, _assigned=",".join(
            filter(None, [record.get("_assigned", ""), "ncpus,nodect"])))
    return record


def _live(jobs: List[Job]) -> List[Job]:
    return [j for j in jobs if j.get("job_state") not in st.HISTORY_STATES
            and not j.get("array_id")]


def queue_record(ctx: Context, name: str) -> Reply:
    attrs = dict(ctx.app.state.queues[name])
    jobs = _live([j for j in ctx.app.state.live_jobs() if j.get("queue") == name])
    attrs["total_jobs"] = str(len(jobs))
    attrs["state_count"] = st.state_count(_counts(jobs))
    attrs.update(assigned.totals(_legacy_ran(attrs, bool(attrs.get("_ran"))), jobs,
                                 ctx.app.state.objects.get("resource")))
    return {"name": name, "attrs": [list(p) for p in order.ordered(attrs, order.QUEUE_ATTR_ORDER)]}


@handler("statque")
def statque(ctx: Context, request: Dict[str, Any]) -> List[Reply]:
    name = request.get("name")
    if name:
        if name not in ctx.app.state.queues:
            raise PbsError(PBSE_UNKQUE)
        return [queue_record(ctx, str(name))]
    return [queue_record(ctx, n) for n in ctx.app.state.queues]


@handler("statsvr")
def statsvr(ctx: Context, request: Dict[str, Any]) -> Reply:
    state = ctx.app.state
    attrs = dict(state.server)
    attrs["server_state"] = "Active"
    # Counted from the index (live jobs walked, history counted as it was saved): every
    # qstat asks for this, and must not pay for the history (one-id flatness, issue 7).
    live = _live(state.live_jobs())
    history, history_ran = state.index.history_counts(state.jobs)
    attrs["total_jobs"] = str(len(live) + history)
    attrs["state_count"] = st.state_count(_counts(live))
    attrs.update(assigned.totals(
        _legacy_ran(attrs, bool(history_ran) and "_assigned" not in attrs), live,
        state.objects.get("resource")))
    attrs["license_count"] = "Avail_Global:1000000 Avail_Local:1000000 Used:0 High_Use:0"
    return {"name": ctx.app.server_name,
            "attrs": [list(p) for p in order.ordered(attrs, order.SERVER_ATTR_ORDER)]}


@handler("statnode")
def statnode(ctx: Context, request: Dict[str, Any]) -> List[Reply]:
    nodes = ctx.app.state.nodes
    name = request.get("name")
    names = [str(name)] if name else list(nodes)
    out = []
    for node in names:
        if node not in nodes:
            raise PbsError(PBSE_UNKNODE)
        pairs = order.ordered(nodes[node], order.NODE_ATTR_ORDER)
        out.append({"name": node, "attrs": [list(p) for p in pairs]})
    return out
