"""The commands' fast path: the cluster's command runner and its C client (issue 16,
docs/performance.md "The command start-up path", fake_pbs/runner/).

A command run through the runner must be indistinguishable from the same command started as a
Python process (output, exit status, working directory, environment, signals), and whenever
the fast path cannot take a command it must run it the Python way instead of failing.  Whether
a command took the fast path is seen through ``FAKE_PBS_PYTHON``: a logging interpreter that
the fast path never starts.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Tuple

import pytest

from fake_pbs import control, paths
from fake_pbs.runner import build as runclient, listen as runner, preload, warm as runwarm
from fake_pbs.testing import FakeCluster, wait_for

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler: no fast path")


def _logging_python(folder: Path) -> Tuple[str, Path]:
    """An interpreter that notes each call in a log, then runs this one."""
    log = folder / "python-calls"
    shim = folder / "python3"
    shim.write_text('#!/bin/sh\necho "$@" >> "%s"\nexec "%s" "$@"\n' % (log, sys.executable))
    shim.chmod(0o755)
    return str(shim), log


def _calls(log: Path) -> List[str]:
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def logged(fake_pbs: FakeCluster, tmp_path: Path) -> Iterator[Tuple[Dict[str, str], Path]]:
    """The session cluster's environment with a logging FAKE_PBS_PYTHON."""
    shim, log = _logging_python(tmp_path)
    env = dict(fake_pbs.env, FAKE_PBS_PYTHON=shim)
    yield env, log


def _run(argv: List[str], env: Dict[str, str], cwd: str, stdin: str = ""
         ) -> Tuple[int, str, str]:
    done = subprocess.run(argv, input=stdin, env=env, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def test_start_builds_the_client_and_starts_the_runner(fake_pbs: FakeCluster) -> None:
    client = runclient.client_path(fake_pbs.home)
    assert client.is_file() and os.access(str(client), os.X_OK)
    assert not client.stat().st_mode & 0o022  # the wrapper trusts no group/other-writable file
    assert control.status(fake_pbs.home)["runner"]["answers"]


@pytest.mark.parametrize("argv, stdin", [
    (["qstat", "no_such_job_x"], ""),             # PBS's Unknown Job Id message, exit 153
    (["qstat", "-Q"], ""),
    (["qstat", "--version"], ""),
    (["qsub", "-z", "-h"], "#!/bin/sh\ntrue\n"),  # -z: no id printed (job ids would differ)
    (["qsub", "-l", "walltime=abc"], "true\n"),   # a bad value: message and exit status
    (["qsub", "-Q"], ""),                         # an unknown option: usage, exit 2
    (["qdel"], ""),
    (["qmgr", "-c", "list server"], ""),
    (["pbsnodes", "-a"], ""),
])
def test_fast_path_gives_what_the_python_path_gives(
        fake_pbs: FakeCluster, logged: Tuple[Dict[str, str], Path],
        argv: List[str], stdin: str) -> None:
    env, log = logged
    work = str(fake_pbs.home)
    fast = _run(argv, env, work, stdin)
    assert _calls(log) == []  # the fast path started no Python
    slow = _run(argv, dict(env, FAKE_PBS_RUNNER="0"), work, stdin)
    assert len(_calls(log)) == 1
    assert fast == slow


def test_working_directory_environment_and_stdin_are_the_callers(
        fake_pbs: FakeCluster, logged: Tuple[Dict[str, str], Path], tmp_path: Path) -> None:
    """PBS_O_WORKDIR is qsub's directory, -v/-V values come from its environment and the
    script from its standard input (PBS qsub, reference "qsub environment")."""
    env, log = logged
    env = dict(env, I16_MARK="through the runner")
    code, out, err = _run(["qsub", "-h", "-v", "I16_MARK"], env, str(tmp_path),
                          "#!/bin/sh\n#PBS -N runner_job\ntrue\n")
    assert (code, err) == (0, ""), err
    assert _calls(log) == []
    job = fake_pbs.job(out.strip())
    assert job["Job_Name"] == "runner_job"
    variables = job["Variable_List"]
    assert "PBS_O_WORKDIR=%s" % tmp_path in variables
    assert "I16_MARK=through the runner" in variables
    fake_pbs.sh("qdel", out.strip())


def _sigterm_a_waiting_qsub(fake_pbs: FakeCluster, env: Dict[str, str],
                            when: Callable[["subprocess.Popen[bytes]"], None]) -> None:
    """Start a qsub that waits for its script on stdin, send it SIGTERM once ``when`` returns,
    and check that it died of it and submitted nothing."""
    before = fake_pbs.call("selectjob", criteria=[], extend="")
    proc = subprocess.Popen(["qsub"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=str(fake_pbs.home))
    try:
        when(proc)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            assert stream is not None
            stream.close()
    assert proc.returncode == -signal.SIGTERM
    assert fake_pbs.call("selectjob", criteria=[], extend="") == before


def test_sigterm_reaches_the_command_and_the_client_dies_of_it(
        fake_pbs: FakeCluster, logged: Tuple[Dict[str, str], Path]) -> None:
    """A qsub waiting for its script on stdin is ended by SIGTERM sent to the process the
    user started, as a Python qsub would be; nothing is submitted."""
    env, log = logged
    # The client has handed over (a runner worker holds its stdin) once it waits.
    _sigterm_a_waiting_qsub(fake_pbs, env, lambda proc: wait_for(
        lambda: _waits_on_socket(proc.pid), 20, "the client to hand over the command"))
    assert _calls(log) == []


@pytest.mark.parametrize("delay", [0.0, 0.0005, 0.001, 0.002, 0.004, 0.008, 0.016, 0.05])
def test_sigterm_at_any_moment_ends_the_command(
        fake_pbs: FakeCluster, logged: Tuple[Dict[str, str], Path], delay: float) -> None:
    """A SIGTERM that reaches the worker as it is forked is held until the worker has its own
    dispositions, and one that reaches the client before the runner has named the command's
    pid is sent once the pid is known (or, if the command never started, the client dies of
    it): whenever it lands, the qsub waiting for its script ends as a killed command does."""
    _sigterm_a_waiting_qsub(fake_pbs, logged[0], lambda proc: time.sleep(delay))


def _waits_on_socket(pid: int) -> bool:
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            started = handle.read().split(b"\0")[0].endswith(b"runclient")
        with open("/proc/%d/wchan" % pid) as handle:
            waits = handle.read().strip() not in ("", "0")
    except OSError:
        return False
    return started and waits


def test_qsub_I_takes_the_python_path(fake_pbs: FakeCluster,
                                      logged: Tuple[Dict[str, str], Path]) -> None:
    """``qsub -I`` needs a controlling terminal, which a runner worker has not."""
    env, log = logged
    code, _, err = _run(["qsub", "-I"], env, str(fake_pbs.home))
    assert code != 0 and "interactive" in err
    assert len(_calls(log)) == 1


def test_the_python_path_finds_a_bare_interpreter_name_on_path(
        fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """The wrapper's last choice is ``python3`` from PATH (no record it trusts, e.g. another
    user's): the client's fallback looks it up on PATH as ``sh`` does (extra j13 replayed
    ``qsub -I`` so and got ``cannot start python3``)."""
    shim, log = _logging_python(tmp_path)
    env = dict(fake_pbs.env, FAKE_PBS_PYTHON="python3",
               PATH=str(tmp_path) + os.pathsep + fake_pbs.env["PATH"])
    code, _, err = _run(["qsub", "-I"], env, str(fake_pbs.home))
    assert code == 1 and "must be a terminal" in err and "cannot start" not in err
    assert len(_calls(log)) == 1


@pytest.fixture
def own_cluster() -> Iterator[FakeCluster]:
    """A cluster of this test's own (its runner is stopped or killed)."""
    home = Path(tempfile.mkdtemp(prefix="fprun", dir="/tmp"))
    cluster = FakeCluster(home, hosts=[{"name": "node1", "ncpus": 2, "mem": "4gb",
                                        "ngpus": 0}])
    try:
        yield cluster
    finally:
        try:
            control.stop(home, now=True)
        finally:
            control.sweep(home)
            shutil.rmtree(str(home), ignore_errors=True)


@pytest.mark.cluster  # own_cluster starts daemons
def test_a_dead_runner_leaves_the_python_path(own_cluster: FakeCluster, tmp_path: Path) -> None:
    """A runner killed with SIGKILL leaves its socket behind: a command then runs the Python
    way, with the same result."""
    own_cluster.start()
    shim, log = _logging_python(tmp_path)
    env = dict(own_cluster.env, FAKE_PBS_PYTHON=shim)
    pid = control._read_pids(own_cluster.home)["runner"]
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not control._alive(pid, own_cluster.home), 10, "the runner to die")
    assert os.path.exists(paths.runner_socket_path(str(own_cluster.home)))
    code, out, err = _run(["qstat", "-Q"], env, str(tmp_path))
    assert (code, err) == (0, "") and "workq" in out
    assert len(_calls(log)) == 1
    control.start(own_cluster.home)  # a start brings the runner back
    code, out, err = _run(["qstat", "-Q"], env, str(tmp_path))
    assert (code, err) == (0, "") and len(_calls(log)) == 1


@pytest.mark.cluster  # own_cluster starts daemons
def test_without_a_compiler_every_command_runs_the_python_way(
        own_cluster: FakeCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-cc"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # what `fake-pbs start` sees: no cc
    own_cluster.start()
    assert not runclient.client_path(own_cluster.home).exists()
    shim, log = _logging_python(tmp_path)
    env = dict(own_cluster.env, FAKE_PBS_PYTHON=shim)
    code, out, err = _run(["qsub", "--", "/bin/true"], env, str(tmp_path))
    assert (code, err) == (0, "") and out.strip().endswith(".vm")
    assert len(_calls(log)) == 1


@pytest.mark.cluster  # own_cluster starts daemons
def test_stop_ends_the_runner(own_cluster: FakeCluster) -> None:
    own_cluster.start()
    pid = control._read_pids(own_cluster.home)["runner"]
    assert control._alive(pid, own_cluster.home)
    control.stop(own_cluster.home)
    deadline = time.monotonic() + 10
    while control._alive(pid, own_cluster.home) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not control._alive(pid, own_cluster.home)
    assert not os.path.exists(paths.runner_socket_path(str(own_cluster.home)))
    assert control.processes_of(own_cluster.home) == []


def test_client_is_rebuilt_only_when_its_source_or_socket_changes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    first = runclient.build(home)
    assert first is not None
    built = first.stat().st_mtime_ns
    assert runclient.build(home) == first and first.stat().st_mtime_ns == built
    (home / "runclient.sha256").write_text("0\n")  # as after an upgrade of the source
    assert runclient.build(home) == first and first.stat().st_mtime_ns != built
    assert not [p for p in home.iterdir() if p.name.endswith(".tmp")]
    assert paths.run_dir_path(str(home)) in paths.runner_socket_path(str(home))


def test_a_client_without_its_socket_takes_the_python_path(
        fake_pbs: FakeCluster, logged: Tuple[Dict[str, str], Path], tmp_path: Path) -> None:
    """The client as compiled, before build.py wrote a cluster's socket into its slot, goes
    to no runner: the command runs the Python way (fake_pbs/runner/runclient.c)."""
    env, log = logged
    image = runclient.client_path(fake_pbs.home).read_bytes()
    socket = os.fsencode(paths.runner_socket_path(str(fake_pbs.home))) + b"\0"
    at = image.find(socket)
    assert at >= 0
    for name, slot in (("filled", image[at:at + runclient.SLOT_SIZE]),
                       ("unfilled", runclient.SLOT_MARK.ljust(runclient.SLOT_SIZE, b"\0"))):
        client = tmp_path / name
        client.write_bytes(image[:at] + slot + image[at + runclient.SLOT_SIZE:])
        client.chmod(0o755)
        done = _run([str(client), env["FAKE_PBS_PYTHON"], os.path.join(
            str(paths.bin_dir()), "qstat"), "-Q"], env, str(tmp_path))
        assert done[0] == 0 and "workq" in done[1], (name, done)
        assert len(_calls(log)) == (0 if name == "filled" else 1), name


def test_warm_up_leaves_nothing_behind() -> None:
    """The runner's warm-up runs commands in its own process against a made-up connection;
    whatever it changes (streams, argv, environment, umask, signals, the collector, the
    commands' caches) must be as before, or every child would inherit it."""
    import gc

    from fake_pbs import leanos, protocol
    from fake_pbs.cli import common, jobctl

    preload.preload()
    streams = (sys.stdin, sys.stdout, sys.stderr, list(sys.argv))
    env = dict(os.environ)
    mask = os.umask(0o027)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGPIPE, signal.SIGINT, signal.SIGCHLD)}
    connect, leave = protocol.connect, leanos._exit
    try:
        runwarm.warm_up()
        assert (sys.stdin, sys.stdout, sys.stderr, list(sys.argv)) == streams
        assert dict(os.environ) == env and os.umask(0o027) == 0o027
        assert {s: signal.getsignal(s) for s in handlers} == handlers
        assert gc.isenabled()
        assert protocol.connect is connect and getattr(common, "connect") is connect
        assert leanos._exit is leave
        assert common._channel is None and jobctl._server_name is None
    finally:
        os.umask(mask)


def test_a_closed_standard_descriptor_takes_the_python_path(
        fake_pbs: FakeCluster, logged: Tuple[Dict[str, str], Path]) -> None:
    """With stdout closed the client's socket would take descriptor 1 and be passed on as the
    command's stdout; the Python path is taken instead, so the command sees what it always
    did (no sys.stdout)."""
    env, log = logged
    fast = _run(["sh", "-c", "qstat -Q >&-"], env, str(fake_pbs.home))
    assert len(_calls(log)) == 1
    slow = _run(["sh", "-c", "qstat -Q >&-"], dict(env, FAKE_PBS_RUNNER="0"),
                str(fake_pbs.home))
    assert fast == slow and fast[0] != 0


def test_concurrent_commands_each_run_once(fake_pbs: FakeCluster,
                                           logged: Tuple[Dict[str, str], Path]) -> None:
    """16 qsubs at once through the runner: each submits exactly one job and prints its id
    (PBS qsub: one job per call)."""
    import threading

    env, log = logged
    results: List[Tuple[int, str, str]] = []
    lock = threading.Lock()

    def one() -> None:
        done = _run(["qsub", "-h", "--", "/bin/true"], env, str(fake_pbs.home))
        with lock:
            results.append(done)
    threads = [threading.Thread(target=one) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert [(code, err) for code, _, err in results] == [(0, "")] * 16
    ids = sorted(out.strip() for _, out, _ in results)
    assert len(set(ids)) == 16
    assert sorted(fake_pbs.call("selectjob", criteria=[], extend="")) == ids
    assert _calls(log) == []


@pytest.mark.parametrize("state", [runner.BUSY, runner.DRAINING])
def test_a_busy_or_foreign_caller_is_answered_without_a_fork(tmp_path: Path, state: str) -> None:
    """At MAX_PER_UID running commands of one uid the runner answers B (busy: the client
    runs the command itself), counting workers whose callers still hold their connections
    after the status (a caller could otherwise make workers without bound); a private runner
    answers X to any other uid."""
    import socket

    serving = runner.Runner(str(tmp_path))
    serving.shared = False
    assert serving.allowed(os.getuid()) and not serving.allowed(os.getuid() + 1)
    busy = [socket.socketpair() for _ in range(runner.MAX_PER_UID)]
    try:
        for number, (mine, theirs) in enumerate(busy):
            pid = 10_000_000 + number
            serving.workers[pid] = runner.Worker(pid, (os.getuid(), os.getgid()), theirs, mine)
            serving.workers[pid].state = state
        ours, theirs = socket.socketpair()
        serving._start(ours)  # refused before any fork: nothing to reap
        theirs.settimeout(5)
        assert theirs.recv(16) == b"B" and theirs.recv(16) == b""
        theirs.close()
    finally:
        for pair in busy:
            for end in pair:
                end.close()
