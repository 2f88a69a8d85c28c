"""The command runner's workers (fake_pbs/runner/worker.py, docs/performance.md "The command
start-up path"): one forked process runs a caller's commands one after another.

Each command must still behave as a fresh process started by its caller would (PBS commands
are one process per call): nothing of one command (environment, working directory, output,
server connection) reaches the next, and a worker that a command left in a state it cannot
reset is not used again.  Requests are sent with the hand-made client (tests/runwire.py),
which sees the pid that runs each command.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fake_pbs import paths
from fake_pbs.testing import FakeCluster

from .. import runwire

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler: no fast path")


def _send(cluster: FakeCluster, cases: List[Dict[str, Any]], cwd: str) -> List[Dict[str, Any]]:
    sock = paths.runner_socket_path(str(cluster.home))
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return [runwire.run_case(sock, case) for case in cases]
    finally:
        os.chdir(here)
        while runwire.KEPT:
            runwire.KEPT.pop().close()


def _variables(cluster: FakeCluster, jobid: str) -> Dict[str, str]:
    attrs = dict(cluster.call("statjob", id=jobid, extend="x")[0]["attrs"])
    return dict(item.split("=", 1) for item in attrs["Variable_List"].split(","))


def test_one_worker_runs_a_callers_commands_with_nothing_carried_over(
        fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """Two qsub -V in turn run in the same worker; the second job's environment and
    PBS_O_WORKDIR are its own caller's only (qsub -V exports the caller's environment, and
    PBS_O_WORKDIR is qsub's working directory), and each caller reads only its own job id."""
    first_dir, second_dir = tmp_path / "one", tmp_path / "two"
    first_dir.mkdir()
    second_dir.mkdir()
    script = "#!/bin/sh\ntrue\n"
    env = dict(fake_pbs.env)
    first = _send(fake_pbs, [{"argv": ["qsub", "-h", "-V"], "stdin": script, "hold": True,
                              "env": dict(env, W16_FIRST="only-in-the-first")}],
                  str(first_dir))[0]
    second = _send(fake_pbs, [{"argv": ["qsub", "-h", "-V"], "stdin": script, "hold": True,
                               "env": dict(env, W16_SECOND="only-in-the-second")}],
                   str(second_dir))[0]
    assert (first["kind"], first["status"]) == ("P", 0), first
    assert (second["kind"], second["status"]) == ("P", 0), second
    assert second["pid"] == first["pid"], "the worker was not used again"
    one, two = first["output"].strip(), second["output"].strip()
    assert two != one and "\n" not in two
    assert "W16_FIRST" not in _variables(fake_pbs, two)
    assert _variables(fake_pbs, two)["W16_SECOND"] == "only-in-the-second"
    assert _variables(fake_pbs, two)["PBS_O_WORKDIR"] == str(second_dir)
    assert _variables(fake_pbs, one)["PBS_O_WORKDIR"] == str(first_dir)
    fake_pbs.sh("qdel", one, two)


def test_a_caller_that_holds_its_connection_keeps_its_worker(
        fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """A caller is given the worker's pid and forwards SIGINT/SIGTERM/SIGHUP to it until it
    has read its status: while a caller holds its connection, its worker runs no other
    command (a late signal must not end another command), and once it hangs up the worker
    serves again."""
    good = {"argv": ["qstat", "--version"], "env": dict(fake_pbs.env)}
    held, other = _send(fake_pbs, [dict(good, keep=True), good], str(tmp_path))
    assert (held["kind"], held["status"]) == ("P", 0) and held["output"] == (
        "pbs_version = 23.06.06\n")
    assert (other["kind"], other["status"]) == ("P", 0)
    assert other["pid"] != held["pid"]
    again = _send(fake_pbs, [good, good], str(tmp_path))
    assert again[0]["pid"] == again[1]["pid"]
    assert again[0]["pid"] in (held["pid"], other["pid"])


def test_a_command_dying_of_a_signal_ends_its_worker_and_the_next_gets_a_new_one(
        fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """qsub ended by SIGTERM while it reads its script: the caller gets the signal status
    (as a process of its own would die of it) and the next command runs, in another worker."""
    import signal
    import struct

    sock = paths.runner_socket_path(str(fake_pbs.home))
    read_end, write_end = os.pipe()
    out_r, out_w = os.pipe()
    cwd = os.open(str(tmp_path), os.O_RDONLY)
    conn = runwire.send(sock, runwire.body(["qsub", "-h"], dict(fake_pbs.env)),
                        [read_end, out_w, out_w, cwd])
    for fd in (read_end, out_w, cwd):
        os.close(fd)
    try:
        first = conn.recv(5)
        assert first[:1] == b"P"
        pid = struct.unpack("=I", first[1:5])[0]
        os.kill(pid, signal.SIGTERM)
        kind, _, status = runwire.answers(conn, first)
    finally:
        os.close(write_end)
        os.close(out_r)
    assert kind == "P" and status is not None
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
    after = _send(fake_pbs, [{"argv": ["qstat", "--version"], "env": dict(fake_pbs.env)}],
                  str(tmp_path))[0]
    assert (after["kind"], after["status"]) == ("P", 0) and after["pid"] != pid


_PRISTINE = """
import os, sys, threading, time
sys.path.insert(0, %r)
from fake_pbs.runner import worker as runchild
clean = runchild._descriptors()
print(runchild._pristine(clean))
fd = os.open(os.devnull, os.O_RDONLY)
print(runchild._pristine(clean))
os.close(fd)
child = os.fork()
if child == 0:
    time.sleep(2)
    os._exit(0)
print(runchild._pristine(clean))
os.kill(child, 9)
os.waitpid(child, 0)
gate = threading.Event()
thread = threading.Thread(target=gate.wait)
thread.start()
print(runchild._pristine(clean))
gate.set()
thread.join()
for _ in range(500):  # the thread's kernel task ends a little after join() returns
    if len(os.listdir("/proc/self/task")) == 1:
        break
    time.sleep(0.01)
print(runchild._pristine(clean))
"""


def test_a_worker_is_not_used_again_after_a_command_left_something_behind() -> None:
    """What a reset cannot take back (an open descriptor, a child process, a thread) makes
    the worker retire instead of serving the next command."""
    repo = str(Path(__file__).resolve().parent.parent.parent)
    done = subprocess.run([sys.executable, "-c", _PRISTINE % repo], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False", "False", "False", "True"]
