"""A pytest plugin: one fake PBS cluster per test session, reset cheaply for each test.

Use it with ``-p fake_pbs.testing`` (or ``pytest_plugins = ["fake_pbs.testing"]`` in a root
conftest, or import the fixtures into a conftest)::

    def test_submit(fake_pbs):
        job = fake_pbs.qsub("echo hi")
        assert fake_pbs.wait(job)["job_state"] == "F"

Fixtures: ``fake_cluster`` (session: a tmp ``FAKE_PBS_HOME``, started once, always stopped at the
end), ``fake_pbs`` (per test: the same cluster after ``reset()``, with PATH and FAKE_PBS_HOME set
in ``os.environ``, its ``log_lines()`` starting at the test). :class:`FakeCluster` is also the
harness the project's own suites build their clusters on (other host layouts, crash controls): one
set of commands, waits and log readers. Options (all prefixed ``--fake-pbs-``):
``--fake-pbs-host NAME[:ncpus=N][:mem=SIZE][:ngpus=G]`` (repeatable),
``--fake-pbs-server-name NAME``, ``--fake-pbs-keep`` (leave the cluster running for debugging).
"""
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

import pytest

from fake_pbs import control, paths, protocol
from fake_pbs.model.errors import PbsError

_WAIT_POLL = 0.1
# Where each daemon logs, below the cluster home (``mom`` is every host's mom).
_LOGS = {"server": "server_logs/*", "sched": "sched_logs/*", "mom": "mom_logs/*/*"}


def wait_for(check: Callable[[], bool], timeout: float, why: Union[str, Callable[[], str]],
             poll: float = _WAIT_POLL) -> None:
    """Poll ``check`` until it holds; after ``timeout`` seconds fail saying ``why`` (what was
    awaited, or a function composing the message from what was last seen)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(poll)
    if not check():
        raise AssertionError(why() if callable(why) else "%s: not within %.0f s" % (why, timeout))


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
        self.marks: Dict[Path, int] = {}

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
        """Run a PBS command (``["qstat", "-f"]``) against this cluster, in ``cwd`` or else
        in the cluster's scratch directory: a job's output goes to the directory qsub ran in,
        and a test's jobs leave nothing in the caller's (the project's) directory."""
        if cwd is None:
            scratch = self.home / "work"
            scratch.mkdir(exist_ok=True)
            cwd = str(scratch)
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

    def sh(self, *argv: str, cwd: Optional[str] = None) -> str:
        """Run a command that must succeed; its stdout."""
        done = self.run(list(argv), cwd=cwd)
        if done.returncode != 0:
            raise AssertionError("%s exited %d\nstdout: %s\nstderr: %s" % (
                " ".join(argv), done.returncode, done.stdout, done.stderr))
        return done.stdout

    def qmgr(self, directive: str) -> str:
        """``qmgr -c DIRECTIVE``, which must succeed."""
        return self.sh("qmgr", "-c", directive)

    def hook(self, name: str, events: str, body: str, **attrs: str) -> None:
        """Create site hook ``name`` for ``events`` (comma separated) running the Python
        ``body`` after ``e = pbs.event()``: the requests ``qmgr -c 'create hook ...'``,
        ``set hook`` and ``import hook`` send (sent directly: quicker than qmgr)."""
        settings = [["event", "=", events]] + [[k, "=", v] for k, v in attrs.items()]
        self.call("manager", command="create", objtype="hook", name=name, attrs=settings)
        self.call("hookio", command="import", name=name, content_type="application/x-python",
                  encoding="default", content="import pbs\ne = pbs.event()\n" + body)

    def job(self, jobid: str) -> Dict[str, str]:
        """The job's attributes (history included) as a dict."""
        records = self.call("statjob", id=jobid, extend="x")
        return {name: value for name, value in records[0]["attrs"]}

    def wait(self, jobid: str, states: str = "F", timeout: float = 30.0, run_count: int = 0,
             started: bool = False) -> Dict[str, str]:
        """Poll until the job's state is one of ``states`` (after at least ``run_count`` runs;
        with ``started``, R counts only once the mom reported the job shell started, i.e.
        ``session_id`` is set); returns its attributes."""
        attrs: Dict[str, str] = {}

        def reached() -> bool:
            nonlocal attrs
            try:
                attrs = self.job(jobid)
            except (PbsError, OSError):  # OSError: a test may have killed the server
                attrs = {}
            state = attrs.get("job_state", "")
            return (bool(state) and state in states
                    and int(attrs.get("run_count", "0")) >= run_count
                    and (state != "R" or not started or "session_id" in attrs))
        wait_for(reached, timeout, lambda: "job %s did not reach state %s within %.0fs; last "
                 "seen: %r" % (jobid, states, timeout, attrs))
        return attrs

    # -- logs -------------------------------------------------------------------------------
    def _log_files(self, daemon: str) -> List[Path]:
        """``server``, ``sched``, ``mom`` (every host) or ``mom:<host>``."""
        if daemon.startswith("mom:"):
            pattern = "mom_logs/%s/*" % daemon.split(":", 1)[1]
        else:
            pattern = _LOGS[daemon]
        return [log for log in sorted(self.home.glob(pattern)) if log.is_file()]

    def mark_logs(self) -> None:
        """From now on :meth:`log_lines` reads only what the daemons write after this call."""
        self.marks = {log: log.stat().st_size for daemon in _LOGS
                      for log in self._log_files(daemon)}

    def log_lines(self, daemon: str) -> List[str]:
        """The lines ``daemon`` logged since :meth:`mark_logs`, in order."""
        lines: List[str] = []
        for log in self._log_files(daemon):
            with open(str(log), "rb") as stream:
                stream.seek(self.marks.get(log, 0))
                lines += stream.read().decode("utf-8", "replace").splitlines()
        return lines

    def messages(self, daemon: str, needle: str = "") -> List[str]:
        """The message field (after the 5th ``;``) of the log lines containing ``needle``."""
        return [line.split(";", 5)[-1] for line in self.log_lines(daemon) if needle in line]

    def wait_log(self, daemon: str, needle: str, count: int = 1,
                 timeout: float = 30.0) -> List[str]:
        """Poll until ``needle`` appears ``count`` times in ``daemon``'s log; those lines."""
        found: List[str] = []

        def seen() -> bool:
            nonlocal found
            found = [line for line in self.log_lines(daemon) if needle in line]
            return len(found) >= count

        def why() -> str:
            return "%r did not appear %d time(s) in the %s log within %.0f s; log since the " \
                "mark:\n%s" % (needle, count, daemon, timeout,
                               "\n".join(self.log_lines(daemon)[-60:]))
        wait_for(seen, timeout, why)
        return found


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
            try:
                cluster.stop()
            finally:
                # stop leaves job shells to their shepherds (they outlive a mom, by design); a
                # job still running or suspended at the session's end must not outlive it
                control.sweep(home)
                shutil.rmtree(str(home), ignore_errors=True)  # no cluster home left in /tmp


@pytest.fixture
def fake_pbs(fake_cluster: FakeCluster, monkeypatch: Any) -> Iterator[FakeCluster]:
    fake_cluster.reset()
    fake_cluster.mark_logs()  # log_lines() reads this test's lines only
    monkeypatch.setenv("FAKE_PBS_HOME", str(fake_cluster.home))
    monkeypatch.setenv("PATH", fake_cluster.env["PATH"])
    monkeypatch.setenv("FAKE_PBS_AUTOSTART", "0")
    yield fake_cluster
