"""The durable, numbered event stream of one job run (docs/internals.md §5).

Every event is appended to ``events.jsonl`` (durable.py) BEFORE anyone may send it, so a mom restart
replays exactly what the server may already have seen, with the same ``seq``: the server drops what
it already applied (events are idempotent per job, run_count, seq).
"""
import json
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

from fake_pbs.mom.durable import append_line, read_bytes

Event = Dict[str, Any]


class EventLog:
    """Append-only list of events, readable while it grows (streamers wait on it)."""

    def __init__(self, path: Path, jobid: str, run_count: int) -> None:
        self.path = path
        self.jobid = jobid
        self.run_count = run_count
        self._events: List[Event] = []
        self._cond = threading.Condition()
        self._load()

    def _load(self) -> None:
        raw = read_bytes(self.path)  # the mom's own record only (durable.untrusted)
        if raw is None:
            return
        for line in raw.split(b"\n"):
            if not line.strip():
                continue
            try:
                event = json.loads(line.decode("utf-8", "surrogateescape"))
            except ValueError:
                break  # a torn last line: the event was never acknowledged, drop it
            self._events.append(event)

    def append(self, kind: str, **fields: Any) -> Event:
        """Store ``kind`` durably with the next seq, then wake the streamers."""
        with self._cond:
            event: Event = {"ev": kind, "job": self.jobid, "run_count": self.run_count,
                            "seq": len(self._events) + 1}
            event.update(fields)
            line = json.dumps(event, sort_keys=True).encode("utf-8", "surrogateescape")
            append_line(self.path, line)
            self._events.append(event)
            self._cond.notify_all()
            return event

    def has(self, kind: str) -> bool:
        with self._cond:
            return any(event["ev"] == kind for event in self._events)

    def first(self, kind: str) -> Optional[Event]:
        with self._cond:
            for event in self._events:
                if event["ev"] == kind:
                    return event
            return None

    @property
    def complete(self) -> bool:
        """True once the final release is stored: the stream is over."""
        with self._cond:
            return bool(self._events) and is_final(self._events[-1])

    def wait_after(self, after_seq: int, timeout: float) -> List[Event]:
        """Events with seq > after_seq, waiting up to ``timeout`` seconds for one to come."""
        with self._cond:
            if len(self._events) <= after_seq:
                self._cond.wait(timeout)
            return list(self._events[after_seq:])

    def snapshot(self) -> List[Event]:
        with self._cond:
            return list(self._events)


def is_final(event: Event) -> bool:
    return event.get("ev") == "release" and bool(event.get("final"))
