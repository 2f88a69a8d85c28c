"""fake-pbs control: start/stop, crash durability, autostart races, clusters side by side.

DESIGN.md "Process model": a kill -9 of the server loses no accepted job; two FAKE_PBS_HOMEs run
side by side; the first PBS command starts the cluster once, even when many start together.
"""
import os
import signal
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

from fake_pbs import control, paths, protocol

pytestmark = pytest.mark.cluster  # every test starts and stops clusters of its own

BIN = str(paths.bin_dir())


def _env(home: Path, autostart: bool = False) -> Dict[str, str]:
    env = dict(os.environ)
    env["FAKE_PBS_HOME"] = str(home)
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    env["FAKE_PBS_AUTOSTART"] = "1" if autostart else "0"
    return env


def _run(home: Path, argv: List[str],
         autostart: bool = False) -> "subprocess.CompletedProcess[str]":
    return subprocess.run(argv, env=_env(home, autostart), cwd=str(home),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60)


def _call(home: Path, op: str, **args: object) -> Any:
    channel = protocol.connect(paths.server_socket(home), timeout=10)
    try:
        return protocol.call(channel, op, **args)
    finally:
        channel.close()


@pytest.fixture
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="fpctl-"))
    try:
        yield path
    finally:
        control.stop(path)
        shutil.rmtree(str(path), ignore_errors=True)


def test_start_writes_config_and_stop_ends_daemons(home: Path) -> None:
    """fake-pbs start --server-name/--host writes cluster.json; stop leaves nothing running."""
    done = _run(home, [BIN + "/fake-pbs", "start", "--server-name", "box",
                       "--host", "h1:ncpus=2:mem=4gb"])
    assert done.returncode == 0, done.stderr
    report = control.status(home)
    assert report["server"]["answers"] and report["moms"]["h1"]["answers"]
    node = _call(home, "statnode", name="h1", vnodes=False)[0]
    attrs = dict(node["attrs"])
    assert attrs["resources_available.ncpus"] == "2"
    assert attrs["resources_available.mem"] == "4194304kb"
    # start records the interpreter it runs in for the commands, the binary itself even when
    # python3 on PATH is a shim script (tests/cli/test_wrapper_interpreter.py)
    recorded = (home / "interpreter").read_text()
    with open(os.path.realpath(recorded.rstrip("\n")), "rb") as binary:
        assert binary.read(4) == b"\x7fELF"
    pids = control._read_pids(home)
    control.stop(home)
    assert not any(control._alive(pid, home) for pid in pids.values())
    assert not control.status(home)["server"]["answers"]
    env = _run(home, [BIN + "/fake-pbs", "env"])
    assert 'export FAKE_PBS_HOME="%s"' % home in env.stdout


def test_kill_server_loses_no_job(home: Path) -> None:
    """A kill -9 of the server loses no accepted job; start brings it back with the same ids."""
    control.start(home, "vm", [control.parse_host("n1:ncpus=1")])
    script = home / "job.sh"
    script.write_text("#!/bin/sh\ntrue\n")
    held = [_run(home, ["qsub", "-h", str(script)]).stdout.strip() for _ in range(3)]
    assert held == ["0.vm", "1.vm", "2.vm"]
    control.kill(home, "server")
    assert not control.server_answers(home, 0.5)
    control.start(home)
    listing = _call(home, "statjob", id=None, extend="")
    assert [j["id"] for j in listing] == held
    assert _run(home, ["qsub", "-h", str(script)]).stdout.strip() == "3.vm"


def test_running_job_survives_server_restart(home: Path) -> None:
    """The exec stream resumes after a server crash: the job still ends F with Exit_status."""
    control.start(home, "vm", [control.parse_host("n1:ncpus=1")])
    script = home / "job.sh"
    script.write_text("#!/bin/sh\nsleep 2\nexit 4\n")
    jobid = _run(home, ["qsub", str(script)]).stdout.strip()
    _wait_state(home, jobid, "R")
    control.kill(home, "server")
    control.start(home)
    attrs = _wait_state(home, jobid, "F")
    assert attrs["Exit_status"] == "4" and attrs["comment"].endswith(" and failed")


def _wait_state(home: Path, jobid: str, state: str) -> Dict[str, str]:
    import time
    deadline = time.monotonic() + 30
    attrs: Dict[str, str] = {}
    while time.monotonic() < deadline:
        record = _call(home, "statjob", id=jobid, extend="x")
        attrs = dict(record[0]["attrs"])
        if attrs.get("job_state") == state:
            return attrs
        time.sleep(0.1)
    raise AssertionError("job %s never reached %s: %r" % (jobid, state, attrs))


def test_concurrent_autostart_starts_one_cluster(home: Path) -> None:
    """Many first commands at once (autostart): one server, every command succeeds."""
    control.parse_host("x")  # the defaults (node1, node2) are used: no cluster.json yet
    results: List["subprocess.CompletedProcess[str]"] = []

    def one() -> None:
        results.append(_run(home, ["qstat", "-B"], autostart=True))
    threads = [threading.Thread(target=one) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    assert [r.returncode for r in results] == [0] * 6, [r.stderr for r in results]
    pids = control._read_pids(home)
    assert sorted(pids) == ["mom:node1", "mom:node2", "runner", "server"]


def test_two_clusters_side_by_side(home: Path) -> None:
    """Two FAKE_PBS_HOMEs run at once, each with its own ids and server name."""
    other = Path(tempfile.mkdtemp(prefix="fpctl2-"))
    try:
        control.start(home, "one", [control.parse_host("a:ncpus=1")])
        control.start(other, "two", [control.parse_host("b:ncpus=1")])
        assert _call(home, "ping")["server_name"] == "one"
        assert _call(other, "ping")["server_name"] == "two"
    finally:
        control.stop(other)
        shutil.rmtree(str(other), ignore_errors=True)


def test_a_daemon_that_dies_at_start_is_reported_with_its_output(home: Path) -> None:
    """A server that cannot start (here: its socket path is taken by a directory) makes start
    fail at once, quoting the daemon's own output: test rigs remove the home after a failure,
    so on CI the message is the only record of why (a start failure there said nothing)."""
    blocker = paths.server_socket(home)
    (blocker / "taken").mkdir(parents=True)
    with pytest.raises(control.ControlError) as failure:
        control.start(home, "vm", [control.parse_host("h1:ncpus=1")])
    message = str(failure.value)
    assert "the server of the fake cluster in %s is not running" % home in message, message
    assert "server.out" in message and "Error" in message, message


def test_a_daemon_just_spawned_is_not_taken_for_dead(home: Path) -> None:
    """Right after Popen returns, the child's exec may not have set up its arguments yet
    (/proc/PID/cmdline reads empty: 44 of 50 times here), so the --home check of a pid from
    the pid file took the new server for another process and start failed at once (a
    reliability rig's start under load). The start's liveness check must not."""
    for _ in range(30):
        pid = control._spawn(home, ["fake_pbs.server", "--home", str(home)], "server.out")
        try:
            assert not control._gone(pid, home)
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _naming(home: Path) -> List[int]:
    """Live processes naming ``home`` in their command line or environment."""
    return control.processes_of(home)


def test_sweep_leaves_nothing_of_a_cluster_that_is_still_forking(home: Path) -> None:
    """A sweep meets a job shell forking children (a test that fails mid-job): those forked
    after the pass read /proc, or caught mid-exec with no command line yet, escaped a single
    pass and outlived the test; the sweep repeats until a pass finds nothing."""
    env = dict(os.environ, FAKE_PBS_HOME=str(home))
    for pause in (0.0, 0.01, 0.02, 0.04, 0.08):
        shell = subprocess.Popen(["sh", "-c", "for i in $(seq 1 300); do sleep 30 & done; wait"],
                                 env=env, start_new_session=True)
        try:
            time.sleep(pause)  # the sweep must meet the shell while it forks
            control.sweep(home)
            left = _naming(home)
            assert left == [], "left running after %.2f s: %r" % (pause, left)
        finally:
            for pid in _naming(home):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            shell.wait(10)
