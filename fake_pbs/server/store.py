"""The server's durable state: one SQLite database (WAL) under ``server_priv/``.

Every acknowledged change is committed before the reply leaves the server, so a ``kill -9`` at any
moment loses no accepted job.  Records are JSON documents: a job is its attribute dict (private
fields included); other objects (server, sched, queues, nodes, hooks, resources) are attribute
dicts keyed by ``(kind, name)``.
"""
import sqlite3
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple

# The same text as json.dumps(ensure_ascii=True, separators=(",", ":")), without building an
# encoder per call (a job is saved ~6 times in its life).
from fake_pbs.jsonwire import dumps, loads

Record = Dict[str, Any]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS objects (kind TEXT NOT NULL, name TEXT NOT NULL, data TEXT NOT NULL,
                                    PRIMARY KEY (kind, name));
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


_BATCH = 500
_SHORT = 64


def _shared(record: Record) -> Record:
    """``record`` with its attribute names and short string values interned.

    Each job is decoded on its own, so without this every one of 20,000 history jobs held its
    own copy of ~60 names and of values such as ``True`` or ``workq``: about half of the
    server's memory at that size (docs/performance.md, issue 7's RSS figure).
    """
    intern = sys.intern
    return {intern(k): intern(v) if isinstance(v, str) and len(v) <= _SHORT else v
            for k, v in record.items()}


def _private_files(path: Path) -> None:
    """Job scripts and environments live in the database: like PBS's server_priv (0750) and
    its job files (0600), only root (or the cluster's owner) may read them.  SQLite gives the
    -wal and -shm files the database's mode, so the database is created 0600 before it opens
    (never through a link); files of an older home are tightened."""
    import os

    path.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
    os.chmod(str(path.parent), 0o750)
    fd = os.open(str(path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm"):
        extra = str(path) + suffix
        if os.path.isfile(extra) and not os.path.islink(extra):
            os.chmod(extra, 0o600)


class Store:
    """Write-through persistence; callers serialize access with the server's model lock."""

    def __init__(self, path: Path) -> None:
        _private_files(path)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL survives any process crash; only a power loss could drop the last commits.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._guard = threading.RLock()
        self._depth = 0  # open batch() blocks (their thread holds _guard throughout)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction for the writes made inside: committed when the outermost block
        ends, whether or not it raised (each write was committed on its own before, so
        nothing that was written is dropped).  Callers reply only after the block: each
        acknowledged change is still committed before its reply (docs/reliability.md).  A job
        start or end writes the job and its vnodes: one commit instead of two."""
        with self._guard:
            if self._depth == 0:
                self._db.execute("BEGIN")
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._db.execute("COMMIT")

    def close(self) -> None:
        with self._guard:
            self._db.close()

    # -- jobs ---------------------------------------------------------------------------------
    def put_job(self, jobid: str, seq: int, record: Record) -> None:
        data = dumps(record)
        with self._guard:
            self._db.execute("INSERT OR REPLACE INTO jobs (id, seq, data) VALUES (?, ?, ?)",
                             (jobid, seq, data))

    def delete_job(self, jobid: str) -> None:
        with self._guard:
            self._db.execute("DELETE FROM jobs WHERE id = ?", (jobid,))

    def jobs(self) -> Iterator[Tuple[str, Record]]:
        """Every job, in sequence order, read in batches with its names and short values
        shared (see :func:`_shared`)."""
        with self._guard:
            cursor = self._db.execute("SELECT id, data FROM jobs ORDER BY seq, id")
        while True:
            with self._guard:  # not held while the caller works on a batch
                rows = cursor.fetchmany(_BATCH)
            if not rows:
                return
            for jobid, data in rows:
                yield jobid, _shared(loads(data))

    # -- other objects ------------------------------------------------------------------------
    def put_object(self, kind: str, name: str, record: Record) -> None:
        data = dumps(record)
        with self._guard:
            self._db.execute("INSERT OR REPLACE INTO objects (kind, name, data) VALUES (?, ?, ?)",
                             (kind, name, data))

    def delete_object(self, kind: str, name: str) -> None:
        with self._guard:
            self._db.execute("DELETE FROM objects WHERE kind = ? AND name = ?", (kind, name))

    def objects(self) -> Iterator[Tuple[str, str, Record]]:
        with self._guard:
            rows = self._db.execute(
                "SELECT kind, name, data FROM objects ORDER BY rowid").fetchall()
        for kind, name, data in rows:
            yield kind, name, loads(data)

    # -- counters and flags -------------------------------------------------------------------
    def get_meta(self, key: str) -> Optional[str]:
        with self._guard:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put_meta(self, key: str, value: str) -> None:
        with self._guard:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def clear(self) -> None:
        """Forget every job and object (the test harness's reset)."""
        with self._guard:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM jobs")
            self._db.execute("DELETE FROM objects")
            self._db.execute("DELETE FROM meta")
            self._db.execute("COMMIT")
