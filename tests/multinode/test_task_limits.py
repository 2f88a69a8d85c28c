"""A job's TM tasks get the limits its shell gets, on every host (OpenPBS start_exec.c
start_process calls mom_set_limits for each task as for the job shell; mom_mach.c)."""
import time
from pathlib import Path
from typing import Iterator

import pytest

from fake_pbs.testing import FakeCluster

from .rig import started_cluster

pytestmark = pytest.mark.cluster  # starts its own cluster (docs/testing.md)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    yield from started_cluster(tmp_path_factory, "tasklimits")


def test_tasks_get_the_file_cpu_and_nice_limits(cluster: FakeCluster) -> None:
    """pbsdsh's tasks on both hosts: RLIMIT_FSIZE from file, RLIMIT_CPU from pcput, the nice
    increment from nice, and this host's mem share as RLIMIT_RSS (bash counts kB).  The file
    limit stays above the size of the fake's bytecode caches: pbsdsh is Python here, and
    CPython keeps a .pyc cut short by RLIMIT_FSIZE."""
    workdir = Path(cluster.home) / ("job-%d" % time.monotonic_ns())
    workdir.mkdir()
    workdir.chmod(0o755)
    out = workdir / "out"
    body = "pbsdsh -- /bin/bash -c 'echo f=$(ulimit -f) t=$(ulimit -t) m=$(ulimit -m) ni=$(nice)'\n"
    jobid = cluster.qsub(body, "-j", "oe", "-o", str(out), "-l", "select=2:ncpus=1:mem=100mb",
                         "-l", "place=scatter", "-l", "file=1mb", "-l", "pcput=30",
                         "-l", "nice=4", cwd=str(workdir))
    cluster.wait(jobid, "F", 90.0)
    text = out.read_text()
    assert text.splitlines() == ["f=1024 t=30 m=102400 ni=4"] * 2, text
