"""One fake cluster for the preemption tests: server ``vm``, one host ``vm`` with ncpus=1 (as
PBS's pbs_preemption.py), reset before each test; always stopped at the end of the session."""
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from fake_pbs import control, paths
from .preemptrig import PreemptRig


@pytest.fixture(scope="session")
def preempt_cluster() -> Iterator[PreemptRig]:
    home = Path(tempfile.mkdtemp(prefix="fpre-"))
    os.chmod(str(home), 0o755)
    cluster = PreemptRig(home)
    try:
        cluster.start()
        yield cluster
    finally:
        try:
            cluster.reset()  # kills the last test's jobs: no job shell outlives the session
        finally:
            try:
                cluster.stop()
            finally:
                # as fake_pbs.testing's session cluster: a job shell the reset missed stays
                # under its shepherd after stop (seen as psijci: a victim's `sleep 60`)
                control.sweep(home)
                shutil.rmtree(str(home), ignore_errors=True)
            shutil.rmtree(str(home), ignore_errors=True)


@pytest.fixture
def rig(preempt_cluster: PreemptRig, monkeypatch: Any) -> Iterator[PreemptRig]:
    preempt_cluster.reset()
    _settle(preempt_cluster.home)
    monkeypatch.setenv("FAKE_PBS_HOME", str(preempt_cluster.home))
    monkeypatch.setenv("PATH", preempt_cluster.env["PATH"])
    monkeypatch.setenv("FAKE_PBS_AUTOSTART", "0")
    try:
        preempt_cluster.begin_test()
        yield preempt_cluster
    finally:
        control.clear_faults(preempt_cluster.home)  # an armed fault would outlive the test


def _settle(home: Path, timeout: float = 20.0) -> None:
    """Wait (bounded) until the mom finished the end of the previous test's jobs (a slow
    execjob_end of a job killed by the reset must not log into this test's window)."""
    jobs = paths.mom_priv(home, "vm") / "jobs"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not jobs.exists() or not any(jobs.iterdir()):
            return
        time.sleep(0.1)
