"""Fixtures of the hook scenario tests: one three-host cluster for the session, always stopped,
made fresh (no jobs, hooks or faults; scheduling off) for each test."""
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from .hookrig import Cluster


@pytest.fixture(scope="session")
def hook_cluster() -> Iterator[Cluster]:
    # A short path under /tmp: Unix socket paths are limited to about 100 bytes.
    home = Path(tempfile.mkdtemp(prefix="fphk-", dir="/tmp"))
    home.chmod(0o755)
    cluster = Cluster(home)
    try:
        cluster.start()
        yield cluster
    finally:
        try:
            cluster.stop()
        finally:
            shutil.rmtree(str(home), ignore_errors=True)


@pytest.fixture
def hc(hook_cluster: Cluster) -> Cluster:
    hook_cluster.fresh()
    return hook_cluster
