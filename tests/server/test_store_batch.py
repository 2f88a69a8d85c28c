"""The store's batches (fake_pbs/server/store.py ``Store.batch``): writes made inside one are a
single transaction, committed when the outermost block ends, raised or not, so that a job's
start and end cost one commit each and an acknowledged change is committed before its reply
(docs/reliability.md: every acknowledged change is committed before the reply)."""
import sqlite3
from pathlib import Path

import pytest

from fake_pbs.server.store import Store


def _rows(path: Path) -> int:
    """Jobs another connection sees: only what was committed."""
    db = sqlite3.connect(str(path))
    try:
        return int(db.execute("SELECT COUNT(*) FROM jobs").fetchone()[0])
    finally:
        db.close()


def test_writes_in_a_batch_are_committed_together_at_its_end(tmp_path: Path) -> None:
    path = tmp_path / "server.db"
    store = Store(path)
    with store.batch():
        store.put_job("1.vm", 1, {"job_state": "R"})
        with store.batch():  # nested: still the outer transaction
            store.put_object("node", "vm", {"state": "job-busy"})
            store.put_job("2.vm", 2, {"job_state": "Q"})
        assert _rows(path) == 0  # not committed yet: nothing was acknowledged
    assert _rows(path) == 2
    store.close()


def test_a_batch_that_raises_still_commits_what_it_wrote(tmp_path: Path) -> None:
    """Each write was committed on its own before batches: an error part-way drops nothing."""
    path = tmp_path / "server.db"
    store = Store(path)
    with pytest.raises(RuntimeError):
        with store.batch():
            store.put_job("1.vm", 1, {"job_state": "R"})
            raise RuntimeError("hook failed")
    assert _rows(path) == 1
    store.put_job("2.vm", 2, {"job_state": "Q"})  # and the store goes on committing
    assert _rows(path) == 2
    store.close()
