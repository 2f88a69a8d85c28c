"""The server's model: every object as a dict of PBS attribute strings, persisted write-through.

One ``threading.RLock`` (``state.lock``) guards all of it; request handlers, the scheduling thread
and the exec-event threads take it around each change.  Call ``save_*`` before replying: it commits.
"""
import threading
from typing import Any, Dict, Iterator, List, Optional

from fake_pbs.server.jobindex import JobIndex
from fake_pbs.server.store import Record, Store

Attrs = Dict[str, str]

# Object kinds kept in the ``objects`` table besides queues and nodes; manager.py may add more.
SERVER = "server"
SCHED = "sched"
QUEUE = "queue"
NODE = "node"


class ServerState:
    """Server, scheduler, queue, node and job attributes, plus free-form objects (hooks, ...)."""

    def __init__(self, store: Store) -> None:
        self.lock = threading.RLock()
        self.store = store
        self.server: Attrs = {}
        self.sched: Attrs = {}
        self.queues: Dict[str, Attrs] = {}
        self.nodes: Dict[str, Attrs] = {}
        self.jobs: Dict[str, Record] = {}
        # Other kinds (``hook``, ``resource``, ...): {kind: {name: record}}.
        self.objects: Dict[str, Dict[str, Record]] = {}
        self._next_seq = 0
        # No job has a sequence number >= this one: jobs get theirs from next_seq() or the
        # store, so looking for a number in use (O(jobs)) is needed only after a wrap.
        self._unused_from = 0
        # Live/history index and encoded history records, told of every save_job.
        self.index = JobIndex()

    # -- loading ------------------------------------------------------------------------------
    def load(self) -> bool:
        """Read everything from the store; False when the store is empty (a fresh server)."""
        found = False
        for kind, name, record in self.store.objects():
            found = True
            self._place(kind, name, record)
        for jobid, record in self.store.jobs():
            self.jobs[jobid] = record
        self.index.rebuild(self.jobs)
        self._unused_from = 1 + max((int(r.get("_seq", -1)) for r in self.jobs.values()),
                                    default=-1)
        seq = self.store.get_meta("next_seq")
        self._next_seq = int(seq) if seq is not None else 0
        return found

    def _place(self, kind: str, name: str, record: Record) -> None:
        if kind == SERVER:
            self.server = record
        elif kind == SCHED:
            self.sched = record
        elif kind == QUEUE:
            self.queues[name] = record
        elif kind == NODE:
            self.nodes[name] = record
        else:
            self.objects.setdefault(kind, {})[name] = record

    # -- saving -------------------------------------------------------------------------------
    def save_server(self) -> None:
        self.store.put_object(SERVER, "", self.server)

    def save_sched(self) -> None:
        self.store.put_object(SCHED, "default", self.sched)

    def save_queue(self, name: str) -> None:
        if name in self.queues:
            self.store.put_object(QUEUE, name, self.queues[name])
        else:
            self.store.delete_object(QUEUE, name)

    def save_node(self, name: str) -> None:
        if name in self.nodes:
            self.store.put_object(NODE, name, self.nodes[name])
        else:
            self.store.delete_object(NODE, name)

    def save_object(self, kind: str, name: str) -> None:
        """Persist (or, when gone from ``objects``, delete) a free-form object."""
        record = self.objects.get(kind, {}).get(name)
        if record is None:
            self.store.delete_object(kind, name)
        else:
            self.store.put_object(kind, name, record)

    def save_job(self, jobid: str) -> None:
        record = self.jobs.get(jobid)
        self.index.saved(jobid, record)
        if record is None:
            self.store.delete_job(jobid)
        else:
            self.store.put_job(jobid, int(record.get("_seq", 0)), record)

    def save_all(self) -> None:
        self.save_server()
        self.save_sched()
        for name in self.queues:
            self.save_queue(name)
        for name in self.nodes:
            self.save_node(name)
        for kind, records in self.objects.items():
            for name in records:
                self.save_object(kind, name)

    # -- jobs ---------------------------------------------------------------------------------
    def start_numbering(self, first: int) -> None:
        """A fresh server's first job number (0 unless cluster.json says otherwise)."""
        self._next_seq = max(0, first)
        self.store.put_meta("next_seq", str(self._next_seq))

    def next_seq(self) -> int:
        """Allocate the next job sequence number (from 0, wrapping at max_job_sequence_id)."""
        top = int(self.server.get("max_job_sequence_id", "9999999"))
        for _ in range(top + 1):
            seq = self._next_seq
            self._next_seq = 0 if seq >= top else seq + 1
            if seq >= self._unused_from or \
                    not any(int(j.get("_seq", -1)) == seq for j in self.jobs.values()):
                break
        self._unused_from = max(self._unused_from, seq + 1)
        self.store.put_meta("next_seq", str(self._next_seq))
        return seq

    def find_job(self, jobid: str) -> Optional[Record]:
        return self.jobs.get(jobid)

    def iter_jobs(self) -> Iterator[Record]:
        return iter(list(self.jobs.values()))

    def live_jobs(self) -> List[Record]:
        """The jobs not in history (subjobs included), in table order: O(live jobs)."""
        return self.index.live(self.jobs)

    def subjobs(self, parent_id: str) -> List[Record]:
        """The subjobs of ``parent_id`` that are records (those that ran or were acted on
        alone; the others are rows of its table: server/subjobs.py)."""
        return self.index.subjobs(self.jobs, parent_id)

    def reset(self) -> None:
        """Forget every job and object; the caller re-creates the initial configuration."""
        self.store.clear()
        self.server, self.sched = {}, {}
        self.queues, self.nodes, self.jobs, self.objects = {}, {}, {}, {}
        self._next_seq = 0
        self._unused_from = 0
        self.index.clear()

    def as_dict(self) -> Dict[str, Any]:
        """A snapshot for debugging and tests."""
        return {"server": dict(self.server), "queues": dict(self.queues),
                "nodes": dict(self.nodes), "jobs": sorted(self.jobs)}
