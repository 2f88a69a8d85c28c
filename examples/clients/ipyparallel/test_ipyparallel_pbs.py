"""ipyparallel on PBS with ipcluster_config.py (beside this file): .ci/clients runs it against the
fake, in a venv with ipyparallel, with the fake's commands first on PATH and its cluster started.

A controller job and an engine array job (``-J 1-N``, ids ``N[].host``); tasks run on the engines;
``qdel`` of the array stops every engine; ``qsig`` of the array interrupts the engines' tasks
(ipyparallel's own test_signal_engines, on PBS).
"""
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterator

import ipyparallel as ipp
import pytest
from traitlets.config.loader import PyFileConfigLoader

HERE = Path(__file__).resolve().parent
WAIT = 120  # seconds: a PBS job to start and its engine to register, on a loaded machine
SIGNALLED = 30  # seconds: a signalled engine to interrupt its task (xfail waits this long)


def _pbs(*argv: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=60)


def _qsig_on_arrays() -> bool:
    """Whether ``qsig`` signals an array job's running subjobs (OpenPBS: req_signaljob on an
    array parent signals each running subjob); the fake refused it with "Request invalid for
    state of job" before it learnt to."""
    job = _pbs("qsub", "-J", "1-2", "--", "/bin/sleep", "60").stdout.strip()
    try:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if "job_state = B" in _pbs("qstat", "-f", job).stdout:
                break
            time.sleep(0.2)
        return _pbs("qsig", "-s", "SIGCONT", job).returncode == 0
    finally:
        _pbs("qdel", "-W", "force", job)


@pytest.fixture
def cluster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ipp.Cluster]:
    """A cluster from ipcluster_config.py in a profile of the test's own (IPYTHONDIR goes to the
    jobs through -V); stopped at the end, whatever happens."""
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    config = PyFileConfigLoader("ipcluster_config.py", path=str(HERE)).load_config()
    made = ipp.Cluster(config=config, n=2, log_level=10)
    try:
        yield made
    finally:
        made.stop_cluster_sync()


def _engine_pids(rc: ipp.Client) -> set:
    return set(rc[:].apply_sync(os.getpid))


def test_engines_run_as_one_array_job(cluster: ipp.Cluster) -> None:
    """The engine script is one array job of N subjobs; tasks run on all N; stopping the
    cluster deletes the array and the controller job."""
    cluster.start_cluster_sync()
    rc = cluster.connect_client_sync()
    try:
        rc.wait_for_engines(2, timeout=WAIT)
        engines = cluster.engines
        assert len(engines) == 1
        job_id = next(iter(engines.values())).job_id
        assert job_id.split(".")[0].endswith("[]"), job_id
        assert len(_engine_pids(rc)) == 2
        assert rc[:].apply_sync(sum, [6, 36]) == [42, 42]
    finally:
        rc.close()
    cluster.stop_cluster_sync()
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if _pbs("qstat", job_id).returncode != 0 or "job_state = F" in _pbs(
                "qstat", "-x", "-f", job_id).stdout:
            break
        time.sleep(0.2)
    assert "job_state = F" in _pbs("qstat", "-x", "-f", job_id).stdout


@pytest.mark.xfail(not _qsig_on_arrays(), strict=True,
                   reason="qsig on an array job (N[]) is not supported by this fake yet")
def test_signal_engines(cluster: ipp.Cluster) -> None:
    """SIGINT through ``qsig -s 2 N[].host`` interrupts the task each engine runs
    (ipyparallel's tests/test_cluster.py:test_signal_engines, with the PBS launchers)."""
    cluster.start_cluster_sync()
    rc = cluster.connect_client_sync()
    try:
        rc.wait_for_engines(2, timeout=WAIT)
        ar = rc[:].apply_async(time.sleep, 3600)
        deadline = time.monotonic() + WAIT
        # "queue": the engine's pending direct (MUX) requests, the running one included.
        while sum(q["queue"] for q in rc.queue_status(verbose=False).values()
                  if isinstance(q, dict)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        cluster.signal_engines_sync(int(signal.SIGINT))
        with pytest.raises(ipp.error.CompositeError) as raised:
            ar.get(timeout=SIGNALLED)
        assert "KeyboardInterrupt" in str(raised.value)
    finally:
        rc.close()
