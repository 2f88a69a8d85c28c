"""Parsl's HighThroughputExecutor with PBSProProvider (nodes_per_block=2, place=scatter) and
MpiExecLauncher gets workers on both fake hosts (issue 23).  Skipped where Parsl or mpiexec is
not installed (``pip install parsl``; Debian's openmpi-bin or mpich)."""
import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, List

import pytest

from fake_pbs.testing import FakeCluster

from .rig import started_cluster

pytestmark = pytest.mark.cluster  # starts its own cluster (docs/testing.md)

HOST_DAEMONS = (b"orted", b"hydra_pmi_proxy")


def launching_host() -> str:
    """The PBS_NODENUM of the MPI daemon (a TM task of its host) this worker descends from."""
    pid = os.getpid()
    for _ in range(64):  # bounded walk up the process tree
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as handle:
                name = os.path.basename(handle.read().split(b"\0")[0].strip().strip(b'"'))
            if name in HOST_DAEMONS:
                with open("/proc/%d/environ" % pid, "rb") as handle:
                    for item in handle.read().split(b"\0"):
                        if item.startswith(b"PBS_NODENUM="):
                            return item.split(b"=", 1)[1].decode()
            with open("/proc/%d/stat" % pid, "rb") as handle:
                pid = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if pid <= 1:
            break
    return "?"


@pytest.fixture
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    yield from started_cluster(tmp_path_factory, "parsl")


def test_parsl_htex_mpiexec_launcher_gets_workers_on_both_hosts(
        cluster: FakeCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    parsl = pytest.importorskip("parsl", reason="Parsl is not installed (pip install parsl)")
    if shutil.which("mpiexec") is None:
        pytest.skip("mpiexec is not installed (Debian's openmpi-bin or mpich)")
    # Through importlib: Parsl is optional (and untyped), mypy need not find it.
    Config: Any = importlib.import_module("parsl.config").Config
    HighThroughputExecutor: Any = importlib.import_module("parsl.executors").HighThroughputExecutor
    MpiExecLauncher: Any = importlib.import_module("parsl.launchers").MpiExecLauncher
    provider_class: Any = importlib.import_module("parsl.providers").PBSProProvider

    for name in ("FAKE_PBS_HOME", "PATH", "FAKE_PBS_AUTOSTART"):
        monkeypatch.setenv(name, cluster.env[name])
    # Parsl's interchange.py and process_worker_pool.py are scripts of this interpreter
    monkeypatch.setenv("PATH", "%s:%s" % (os.path.dirname(sys.executable), cluster.env["PATH"]))
    run_dir = Path(cluster.home) / "parsl-runinfo"
    init = ["export PATH=%s:$PATH" % os.path.dirname(sys.executable),
            "export PYTHONPATH=%s" % Path(__file__).resolve().parents[2]]
    if os.geteuid() == 0:
        init.append("export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
    config = Config(run_dir=str(run_dir), executors=[HighThroughputExecutor(
        label="pbs_mpi", address="127.0.0.1", max_workers_per_node=1,
        provider=provider_class(
            nodes_per_block=2, cpus_per_node=1, init_blocks=1, min_blocks=1, max_blocks=1,
            scheduler_options="#PBS -l place=scatter", walltime="00:05:00",
            worker_init="; ".join(init), launcher=MpiExecLauncher(overrides=_overrides())))])
    dfk = parsl.load(config)
    try:
        app = parsl.python_app(_where)
        hosts: List[str] = [app().result(timeout=240) for _ in range(1)]
        futures = [app(1.5) for _ in range(8)]
        hosts += [f.result(timeout=240) for f in futures]
    finally:
        dfk.cleanup()
        parsl.clear()
    assert set(hosts) == {"0", "1"}, hosts


def _overrides() -> str:
    """Open MPI starts ranks with its daemon's environment (the TM task's): the worker's PATH
    and PYTHONPATH are passed with -x, as Parsl users on Open MPI do.  Hydra passes them."""
    version = subprocess.run(["mpiexec", "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    openmpi = any(mark in version.stdout for mark in ("Open MPI", "OpenRTE", "open-mpi"))
    return "-x PATH -x PYTHONPATH" if openmpi else ""


def _where(pause: float = 0.0) -> str:
    import time

    from tests.multinode.test_parsl import launching_host

    time.sleep(pause)
    return launching_host()
