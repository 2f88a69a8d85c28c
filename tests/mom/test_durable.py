"""durable.py: records replaced atomically (a reader never sees half of one, whatever moment a
``kill -9`` comes: docs/internals.md §5); ``fsync`` only with ``FAKE_PBS_FSYNC=1`` (it guards
against the machine crashing, not a daemon: docs/performance.md)."""
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from fake_pbs.mom import durable


@pytest.mark.parametrize("enabled", [False, True])
def test_fsync_only_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               enabled: bool) -> None:
    synced: List[int] = []
    monkeypatch.setattr(durable, "FSYNC", enabled)
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    durable.write_atomic(tmp_path / "rec.json", b'{"a":1}')
    durable.append_line(tmp_path / "events.jsonl", b'{"seq":1}')
    assert durable.read_json(tmp_path / "rec.json") == {"a": 1}
    assert (tmp_path / "events.jsonl").read_bytes() == b'{"seq":1}\n'
    assert len(synced) == (3 if enabled else 0)  # the record, its directory, the event line
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no tmp left


@pytest.mark.parametrize("value,expected", [("1", True), ("", False), ("0", False)])
def test_switch_read_from_the_environment(value: str, expected: bool) -> None:
    """The daemons and the shepherds inherit it from ``fake-pbs start``'s environment."""
    code = "from fake_pbs.mom import durable; print(durable.FSYNC)"
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                          env=dict(os.environ, FAKE_PBS_FSYNC=value), check=True, timeout=60)
    assert done.stdout.strip() == str(expected)
