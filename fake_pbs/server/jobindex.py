"""Which jobs are live and which are history, kept as jobs are saved, plus encoded history records.

With 10,000-20,000 finished jobs kept, every status request that walked all jobs to find the few
live ones (plain ``qstat``, and ``statsvr``'s counts, asked by every ``qstat``) cost O(history);
so did encoding the same finished records for each ``qstat -x`` (docs/performance.md, hotspots 4
and 6).  :class:`JobIndex` is told of every change through ``ServerState.save_job`` (the state's
write-through contract: every change is saved before the reply), and checks itself against the
job table: when the counts disagree (a job added or removed without a save) it rebuilds from the
table, and a live job is always re-read from the table, so a stale entry is never served.
"""
import heapq
import sys
from typing import Dict, List, Mapping, Optional, Tuple

from fake_pbs.model import states as st
from fake_pbs.server import jobids
from fake_pbs.server.store import Record

#: (caller is a manager, requested names) -> one job's encoded statjob record.
EncodingKey = Tuple[bool, Optional[Tuple[str, ...]]]


def _stamp(record: Record, default: int) -> int:
    try:
        return int(record.get("history_timestamp", default))
    except (TypeError, ValueError):
        return default


def _share_values(record: Record) -> None:
    """Intern a finished job's short string values (``True``, ``workq``, dates...), in place.

    History is most of a large server's memory and its values repeat from job to job; a value
    is replaced, never a key, so no one iterating the record meets a changed size.
    """
    for key, value in record.items():
        if isinstance(value, str) and len(value) <= 64:
            record[key] = sys.intern(value)


class JobIndex:
    """Live jobs in job-table order, history counters, and a cache of encoded history records."""

    def __init__(self) -> None:
        # Live jobs in the order they were first saved: a job is added to the table and saved
        # under one hold of the model lock, so this is the table's order.
        self._live: Dict[str, Record] = {}
        # History jobs: id -> (is a top-level job, not a subjob; it has an exec_vnode).
        self._history: Dict[str, Tuple[bool, bool]] = {}
        self.history_top = 0      # history jobs that are not subjobs
        self.history_ran = 0      # ... of them, the ones with an exec_vnode
        # id -> (the record encoded, its size then, {key: encoded bytes}); history jobs only.
        self._encoded: Dict[str, Tuple[Record, int, Dict[EncodingKey, bytes]]] = {}
        # (history_timestamp, id) of top-level history jobs, oldest first: the purge pops what
        # expired instead of walking the history.  Entries of jobs gone are dropped on pop.
        self._expiry: List[Tuple[int, str]] = []
        # Stored subjobs by array parent (the others are rows of the parent's table:
        # server/subjobs.py), so a parent's subjobs cost their number, not the table's.
        self._children: Dict[str, Dict[str, None]] = {}

    # -- keeping up -------------------------------------------------------------------------
    def saved(self, jobid: str, record: Optional[Record]) -> None:
        """``record`` (None: deleted) was just saved under ``jobid``."""
        self._encoded.pop(jobid, None)
        parent = record.get("array_id") if record is not None else None
        if parent:
            self._children.setdefault(str(parent), {})[jobid] = None
        elif record is None:
            self._children.get(jobids.parent_of(jobid) or "", {}).pop(jobid, None)
        old = self._history.pop(jobid, None)
        if old is not None:
            self.history_top -= old[0]
            self.history_ran -= old[0] and old[1]
        if record is None:
            self._live.pop(jobid, None)
        elif record.get("job_state") in st.HISTORY_STATES:
            if self._live.pop(jobid, None) is not None:
                _share_values(record)
            top = not record.get("array_id")
            ran = bool(record.get("exec_vnode"))
            if old is None and top:
                heapq.heappush(self._expiry, (_stamp(record, 0), jobid))
            self._history[jobid] = (top, ran)
            self.history_top += top
            self.history_ran += top and ran
        else:
            self._live[jobid] = record

    def rebuild(self, jobs: Mapping[str, Record]) -> None:
        self._live.clear()
        self._history.clear()
        self._encoded.clear()
        self._expiry.clear()
        self._children.clear()
        self.history_top = self.history_ran = 0
        for jobid, record in jobs.items():
            self.saved(jobid, record)

    def clear(self) -> None:
        self.rebuild({})

    def sync(self, jobs: Mapping[str, Record]) -> None:
        """Rebuild when the job table holds other jobs than the index (changed unsaved)."""
        if len(self._live) + len(self._history) != len(jobs):
            self.rebuild(jobs)

    # -- asking ---------------------------------------------------------------------------
    def live(self, jobs: Mapping[str, Record]) -> List[Record]:
        """The jobs not in history (subjobs included), in the job table's order."""
        self.sync(jobs)
        out: List[Record] = []
        for jobid, record in self._live.items():
            current = jobs.get(jobid)
            if current is None:  # gone without a save: start again from the table
                self.rebuild(jobs)
                return [j for j in jobs.values() if j.get("job_state") not in st.HISTORY_STATES]
            if current.get("job_state") not in st.HISTORY_STATES:
                out.append(current)
        return out

    def subjobs(self, jobs: Mapping[str, Record], parent_id: str) -> List[Record]:
        """The stored subjobs of ``parent_id``, in the order they were first saved."""
        self.sync(jobs)
        known = self._children.get(parent_id, {})
        return [jobs[j] for j in known if j in jobs and jobs[j].get("array_id") == parent_id]

    def history_counts(self, jobs: Mapping[str, Record]) -> Tuple[int, int]:
        """(history jobs that are not subjobs, those of them with an exec_vnode)."""
        self.sync(jobs)
        return self.history_top, self.history_ran

    def expired(self, jobs: Mapping[str, Record], now: int, keep: int) -> List[str]:
        """Top-level history jobs whose ``history_timestamp`` is more than ``keep`` seconds
        before ``now``; costs what expired (plus a log factor), not the history's size."""
        self.sync(jobs)
        out: List[str] = []
        heap = self._expiry
        while heap and now - heap[0][0] > keep:
            stamp, jobid = heapq.heappop(heap)
            job = jobs.get(jobid)
            if job is None or jobid not in self._history or job.get("array_id"):
                continue
            current = _stamp(job, now)
            if current != stamp:  # its timestamp changed since: file it under the new one
                heapq.heappush(heap, (current, jobid))
                continue
            out.append(jobid)
        return out

    def encoded(self, record: Record, key: EncodingKey) -> Optional[bytes]:
        """A history job's cached encoded record for ``key``, if still that record's."""
        known = self._encoded.get(str(record.get("_id")))
        if known is None or known[0] is not record or known[1] != len(record):
            return None
        return known[2].get(key)

    def keep_encoded(self, record: Record, key: EncodingKey, data: bytes) -> None:
        """Remember ``data`` for a history job (finished records change only when saved)."""
        jobid = str(record.get("_id"))
        if jobid not in self._history:
            return
        known = self._encoded.get(jobid)
        if known is None or known[0] is not record or known[1] != len(record):
            known = (record, len(record), {})
            self._encoded[jobid] = known
        if len(known[2]) < 4:  # a few views per job (manager or not, a names list or two)
            known[2][key] = data
