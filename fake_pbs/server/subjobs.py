"""An array's subjobs that have not run: index ranges in the parent's record, not job records.

PBS keeps a subjob that has not run only as an entry of its parent's table (array_func.c: the
parent's ``array_indices_remaining`` and subjob state table); it becomes a job of its own
(``create_subjob``) when it runs.  So does the fake: a ``qsub -J 0-9999`` stores one record, and
``qdel`` of it expires the queued subjobs by moving one range, so neither holds the model lock
for long (issue 21).  A subjob is made a record (:func:`materialize`) when it runs or when a
request acts on it alone (qalter, qhold, qrls, qdel of ``N[5]`` or a range); until then
:func:`record` builds the same record it would have, for status and the scheduler.

Private fields of the parent (model/jobrecord.py): ``_sj_queued``, the queued indices as PBS
range text; ``_sj_expired``, ``[[time, ranges], ...]`` of those deleted before they ran;
``_sj_comments``, the scheduler's comment per considered index.
"""
import bisect
from typing import Any, Dict, Iterator, List, Optional, Tuple

from fake_pbs.model import job_attrs, states as st
from fake_pbs.server import jobids
from fake_pbs.server.app import ServerApp
from fake_pbs.server.state import ServerState

Job = Dict[str, Any]

QUEUED = "_sj_queued"
EXPIRED = "_sj_expired"
COMMENTS = "_sj_comments"
#: Parent fields a subjob never takes: the array's own bookkeeping and its end.
_PARENT_ONLY = frozenset((QUEUED, EXPIRED, COMMENTS, "_deleted_by", "_sub_exit", "_purge",
                          "_deps", "_deps_done", "comment"))
EXPIRED_COMMENT = "Subjob finished"


# -- index ranges ---------------------------------------------------------------------------
def parse(text: str) -> List[range]:
    """``0-9,12,20-30:2`` -> ranges (ascending, disjoint, as written by :func:`unparse`)."""
    out: List[range] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        span, _, step = part.partition(":")
        first, _, last = span.partition("-")
        out.append(range(int(first), int(last or first) + 1, int(step or 1)))
    return out


def unparse(ranges: List[range]) -> str:
    parts = []
    for r in ranges:
        last = r[-1]
        if r.start == last:
            parts.append(str(r.start))
        else:
            parts.append("%d-%d%s" % (r.start, last, ":%d" % r.step if r.step != 1 else ""))
    return ",".join(parts)


def compress(indices: List[int]) -> List[range]:
    """Ascending ``indices`` as ranges: runs of one step each (``0-8:2``, ``9-12``)."""
    out: List[range] = []
    at = 0
    while at < len(indices):
        first = indices[at]
        if at + 1 == len(indices):
            out.append(range(first, first + 1))
            break
        step, end = indices[at + 1] - first, at + 1
        while end + 1 < len(indices) and indices[end + 1] - indices[end] == step:
            end += 1
        out.append(range(first, indices[end] + 1, step))
        at = end + 1
    return out


def _without(ranges: List[range], index: int) -> Optional[List[range]]:
    """``ranges`` less ``index``; None when it was not among them."""
    starts = [r.start for r in ranges]
    at = bisect.bisect_right(starts, index) - 1
    if at < 0 or index not in ranges[at]:
        return None
    r = ranges[at]
    pieces = [p for p in (range(r.start, index, r.step), range(index + r.step, r.stop, r.step))
              if len(p)]
    return ranges[:at] + pieces + ranges[at + 1:]


# -- the parent's table ---------------------------------------------------------------------
def queued(parent: Job) -> List[range]:
    return parse(str(parent.get(QUEUED, "")))


def queued_indices(parent: Job) -> Iterator[int]:
    for r in queued(parent):
        yield from r


def first_queued(parent: Job, count: int) -> List[int]:
    out: List[int] = []
    for r in queued(parent):
        for index in r:
            if len(out) >= count:
                return out
            out.append(index)
    return out


def expired(parent: Job) -> List[Tuple[int, List[range]]]:
    return [(int(when), parse(str(text))) for when, text in parent.get(EXPIRED, [])]


def expired_count(parent: Job) -> int:
    return sum(len(r) for _, ranges in expired(parent) for r in ranges)


def start_table(parent: Job, indices: range) -> None:
    """A new array: every index queued, none a record (submit)."""
    parent[QUEUED] = unparse([indices])


def expire_queued(parent: Job, now: int) -> int:
    """Deleting the array: every queued index expires at once (req_delete.c); how many."""
    ranges = queued(parent)
    count = sum(len(r) for r in ranges)
    if count:
        parent[EXPIRED] = list(parent.get(EXPIRED, [])) + [[now, unparse(ranges)]]
    parent[QUEUED] = ""
    parent.pop(COMMENTS, None)
    return count


def expire_span(parent: Job, span: range, now: int) -> int:
    """``qdel N[a-b]``: the queued rows in ``span`` expire at once, as req_delete.c sets
    them in the table (no record, log line or D record each); how many."""
    ranges = queued(parent)
    gone = [i for r in ranges for i in r if i in span]
    if not gone:
        return 0
    dropped = set(gone)
    parent[QUEUED] = unparse(compress([i for r in ranges for i in r if i not in dropped]))
    parent[EXPIRED] = list(parent.get(EXPIRED, [])) + [[now, unparse(compress(gone))]]
    comments = parent.get(COMMENTS)
    if comments:
        parent[COMMENTS] = {k: v for k, v in comments.items() if int(k) not in dropped}
    return len(gone)


def _take(parent: Job, index: int) -> Optional[Tuple[str, int]]:
    """Remove ``index`` from the table: ("Q", 0) or ("X", time it expired); None if absent."""
    rest = _without(queued(parent), index)
    if rest is not None:
        parent[QUEUED] = unparse(rest)
        return st.QUEUED, 0
    entries = list(parent.get(EXPIRED, []))
    for at, (when, text) in enumerate(entries):
        rest = _without(parse(str(text)), index)
        if rest is not None:
            entries[at] = [when, unparse(rest)]
            parent[EXPIRED] = [e for e in entries if e[1]]
            return st.EXPIRED, int(when)
    return None


def _find(parent: Job, index: int) -> Optional[Tuple[str, int]]:
    if _without(queued(parent), index) is not None:
        return st.QUEUED, 0
    for when, ranges in expired(parent):
        if _without(ranges, index) is not None:
            return st.EXPIRED, when
    return None


# -- records --------------------------------------------------------------------------------
def copied(parent: Job) -> Job:
    """What every subjob takes from ``parent`` (create_subjob's copy)."""
    return {k: v for k, v in parent.items()
            if job_attrs.subjob_copies(k) and k not in _PARENT_ONLY}


def record(parent: Job, index: int, server_name: str, state: str = st.QUEUED,
           when: int = 0, base: Optional[Job] = None) -> Job:
    """The record of subjob ``index`` as create_subjob makes it from ``parent`` (queued), or
    as it is once deleted before it ran (``state`` X at ``when``: F once the array is over).
    ``base``: :func:`copied` of ``parent``, when the caller makes many."""
    child = dict(base) if base is not None else copied(parent)
    child["_id"] = jobids.make(int(parent["_seq"]), server_name, index=index)
    # Subjobs start queued whatever the parent's hold (j04h: a `qsub -h -J` array is H, its
    # subjobs Q; the scheduler runs none while the parent is held).
    child["job_state"], child["substate"] = st.QUEUED, str(st.SUB_QUEUED)
    child["array_id"] = parent["_id"]
    child["array_index"] = str(index)
    for attr in ("Output_Path", "Error_Path"):
        if attr in parent:
            child[attr] = parent[attr].replace("^array_index^", str(index))
    comment = parent.get(COMMENTS, {}).get(str(index))
    if comment is not None:
        child["comment"] = comment
    if state != st.QUEUED:
        # as lifecycle.to_history leaves a queued subjob that qdel expired (jobctl)
        child["history_timestamp"] = child["mtime"] = str(when)
        child["comment"] = EXPIRED_COMMENT
        over = parent.get("job_state") in st.HISTORY_STATES
        child["job_state"] = st.FINISHED if over else st.EXPIRED
        child["substate"] = str(st.SUB_TERMINATED)
    return child


def rows(parent: Job) -> List[Tuple[str, int, List[int]]]:
    """The table's subjobs in groups whose records differ only in their index: (state,
    time it expired or 0, indices); a queued row with a comment of its own is a group alone."""
    comments = parent.get(COMMENTS) or {}
    plain = [i for i in queued_indices(parent) if str(i) not in comments]
    out: List[Tuple[str, int, List[int]]] = [(st.QUEUED, 0, plain)] if plain else []
    out += [(st.QUEUED, 0, [int(i)]) for i in sorted(comments, key=int)
            if _find(parent, int(i)) == (st.QUEUED, 0)]
    for when, ranges in expired(parent):
        out.append((st.EXPIRED, when, [i for r in ranges for i in r]))
    return out


def lookup(state: ServerState, parent: Job, index: int, server_name: str) -> Optional[Job]:
    """Subjob ``index`` of ``parent``: its record, or the one it would have; None if none."""
    real = state.jobs.get(jobids.make(int(parent["_seq"]), server_name, index=index))
    if real is not None:
        return real
    found = _find(parent, index)
    if found is None:
        return None
    return record(parent, index, server_name, *found)


def children(state: ServerState, parent: Job, server_name: str) -> List[Job]:
    """Every subjob of ``parent`` by index: records, and those built from the table."""
    out = list(state.subjobs(parent["_id"]))
    base = copied(parent)
    for kind, when, indices in rows(parent):
        out += [record(parent, i, server_name, kind, when, base) for i in indices]
    out.sort(key=lambda c: int(c.get("array_index", "0")))
    return out


def materialize(app: ServerApp, parent: Job, index: int) -> Optional[Job]:
    """Make subjob ``index`` a record of its own (stored with the parent's smaller table);
    None when the table has no such index."""
    found = _take(parent, index)
    if found is None:
        return None
    child = record(parent, index, app.server_name, *found)
    comments = parent.get(COMMENTS)
    if comments and str(index) in comments:
        parent[COMMENTS] = {k: v for k, v in comments.items() if k != str(index)}
    app.state.jobs[child["_id"]] = child
    with app.state.store.batch():
        app.state.save_job(parent["_id"])
        app.state.save_job(child["_id"])
    return child


def materialize_id(app: ServerApp, jobid: str) -> Optional[Job]:
    """:func:`materialize` by subjob id; None unless it names an index of a known array."""
    parent_id = jobids.parent_of(jobid)
    parent = app.state.jobs.get(parent_id or "")
    index = jobids.index_of(jobid)
    if parent is None or index is None:
        return None
    return materialize(app, parent, index)


def note_comment(jobs: Dict[str, Job], jobid: str, comment: str) -> Optional[str]:
    """The scheduler's comment on a subjob still in its parent's table: the parent's id when
    it changed (the caller saves it), else None."""
    parent = jobs.get(jobids.parent_of(jobid) or "")
    index = jobids.index_of(jobid)
    if parent is None or index is None or _find(parent, index) != (st.QUEUED, 0):
        return None
    comments: Dict[str, str] = dict(parent.get(COMMENTS, {}))
    if comments.get(str(index)) == comment:
        return None
    comments[str(index)] = comment
    parent[COMMENTS] = comments
    return str(parent["_id"])
