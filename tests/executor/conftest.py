"""Fixtures for the executor's unit tests."""
from pathlib import Path
from typing import Iterator

import pytest

from psijpbs.config import PBSProExecutorConfig
from psijpbs.executor import PBSProJobExecutor


@pytest.fixture
def executor(tmp_path: Path) -> Iterator[PBSProJobExecutor]:
    """An executor whose work directory is a temp dir; its poll thread has no jobs."""
    config = PBSProExecutorConfig(work_directory=tmp_path / 'work')
    ex = PBSProJobExecutor(config=config)
    ex.work_directory.mkdir(parents=True)
    yield ex
    ex._poller.done = True
    ex._poller.note_activity()
