"""A pytest plugin: one fake PBS cluster per test session, reset cheaply for each test.

Use it with ``-p fake_pbs.testing`` (or ``pytest_plugins = ["fake_pbs.testing"]`` in a root
conftest, or import the fixtures into a conftest)::

    def test_submit(fake_pbs):
        job = fake_pbs.qsub("echo hi")
        assert fake_pbs.wait(job)["job_state"] == "F"

Fixtures: ``fake_cluster`` (session: a tmp ``FAKE_PBS_HOME``, started once, always stopped at
the end), ``fake_pbs`` (per test: the same cluster after ``reset()``, with PATH and
FAKE_PBS_HOME set in ``os.environ``).  Options (all prefixed ``--fake-pbs-``):
``--fake-pbs-host NAME[:ncpus=N][:mem=SIZE][:ngpus=G]`` (repeatable),
``--fake-pbs-server-name NAME``, ``--fake-pbs-keep`` (leave the cluster running for debugging).
"""
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence

import pytest

from fake_pbs import control, paths, protocol
from fake_pbs.model.errors import PbsError

_WAIT_POLL = 0.1


class FakeCluster:
    """Handle on a running fake cluster: commands, raw requests, reset, waits."""

    def __init__(self, home: Path, server_name: str = "vm",
                 hosts: Optional[List[Dict[str, Any]]] = None) -> None:
        self.home = home
        self.server_name = server_name
        self.hosts = hosts or [{"name": "node1", "ncpus": 8, "mem": "16gb", "ngpus": 0},
                               {"name": "node2", "ncpus": 8, "mem": "16gb", "ngpus": 0}]
        self.env = dict(os.environ)
        self.env["FAKE_PBS_HOME"] = str(home)
        self.env["PATH"] = str(paths.bin_dir()) + os.pathsep + self.env.get("PATH", "")
        self.env["FAKE_PBS_AUTOSTART"] = "0"

    # -- life -------------------------------------------------------------------------------
    def start(self) -> None:
        control.start(self.home, self.server_name, self.hosts)

    def stop(self) -> None:
        control.stop(self.home)

    def reset(self) -> None:
        """Kill every job and restore a fresh configuration (job ids restart at 0)."""
        status = control.status(self.home)
        if not status["server"]["answers"] or not all(m["answers"]
                                                      for m in status["moms"].values()):
            self.start()
        self.call("reset")

    # -- talking to it ----------------------------------------------------------------------
    def call(self, op: str, **args: Any) -> Any:
        """One request to the server as this process's user; PbsError on an error reply."""
        return protocol.call_once(paths.server_socket(self.home), op, 30.0, **args)

    def run(self, argv: Sequence[str], input: Optional[str] = None,
            cwd: Optional[str] = None) -> "subprocess.CompletedProcess[str]":
        """Run a PBS command (``["qstat", "-f"]``) against this cluster."""
        return subprocess.run(list(argv), input=input, cwd=cwd, env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60)

    def qsub(self, body: str, *options: str, cwd: Optional[str] = None) -> str:
        """Submit a job script with ``body`` and return its id; raises on failure."""
        workdir = cwd or tempfile.mkdtemp(prefix="job-", dir=str(self.home))
        script = Path(workdir) / "job.sh"
        script.write_text("#!/bin/sh\n" + body + "\n")
        done = self.run(["qsub"] + list(options) + [str(script)], cwd=workdir)
        if done.returncode != 0:
            raise AssertionError("qsub %s failed with exit %d\nstdout: %s\nstderr: %s"
                                 % (" ".join(options), done.returncode, done.stdout,
                                    done.stderr))
        return done.stdout.strip().split()[-1]

    def job(self, jobid: str) -> Dict[str, str]:
        """The job's attributes (history included) as a dict."""
        records = self.call("statjob", id=jobid, extend="x")
        return {name: value for name, value in records[0]["attrs"]}

    def wait(self, jobid: str, states: str = "F", timeout: float = 30.0) -> Dict[str, str]:
        """Poll until the job's state is one of ``states``; returns its attributes."""
        deadline = time.monotonic() + timeout
        attrs: Dict[str, str] = {}
        while time.monotonic() < deadline:
            try:
                attrs = self.job(jobid)
            except PbsError:
                attrs = {}
            if attrs.get("job_state", "") in states and attrs.get("job_state"):
                return attrs
            time.sleep(_WAIT_POLL)
        raise AssertionError("job %s did not reach state %s within %.0fs; last seen: %r"
                             % (jobid, states, timeout, attrs))


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("fake-pbs", "fake PBS cluster")
    group.addoption("--fake-pbs-host", action="append", default=[],
                    help="NAME[:ncpus=N][:mem=SIZE][:ngpus=G] (repeatable)")
    group.addoption("--fake-pbs-server-name", default="vm", help="server name (default vm)")
    group.addoption("--fake-pbs-keep", action="store_true",
                    help="leave the session's cluster running at the end")


def _option(config: Any, name: str, default: Any) -> Any:
    try:
        return config.getoption(name)
    except (ValueError, AttributeError):
        return default


@pytest.fixture(scope="session")
def fake_cluster(request: Any, tmp_path_factory: Any) -> Iterator[FakeCluster]:
    config = request.config
    hosts = [control.parse_host(h) for h in _option(config, "fake_pbs_host", [])] or None
    home = Path(tempfile.mkdtemp(prefix="fpbs-"))
    cluster = FakeCluster(home, _option(config, "fake_pbs_server_name", "vm"), hosts)
    try:
        cluster.start()
        yield cluster
    finally:
        if not _option(config, "fake_pbs_keep", False):
            cluster.stop()
            shutil.rmtree(str(home), ignore_errors=True)  # no cluster home left in /tmp


@pytest.fixture
def fake_pbs(fake_cluster: FakeCluster, monkeypatch: Any) -> Iterator[FakeCluster]:
    fake_cluster.reset()
    monkeypatch.setenv("FAKE_PBS_HOME", str(fake_cluster.home))
    monkeypatch.setenv("PATH", fake_cluster.env["PATH"])
    monkeypatch.setenv("FAKE_PBS_AUTOSTART", "0")
    yield fake_cluster
