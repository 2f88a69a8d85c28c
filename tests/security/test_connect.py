"""A command sends nothing to a socket it has not verified (docs/security.md, "Trust model").

A home whose socket paths would be too long puts its sockets in the predictable
``/tmp/fake-pbs-<digest>`` (fake_pbs/paths.py).  Another user who creates that directory first
(first use, after a reboot or a clean of /tmp) and listens there would otherwise receive a
command's whole environment, its standard streams (the job script on qsub's stdin) and a
descriptor of its working directory, and could answer qsub with a forged id.  Both clients, the
Python one (fake_pbs/verified_connect.py) and the runner's C client (runclient.c), check the
directory (owner: the caller or root; writable by no one else; not a link) and the peer
(SO_PEERCRED: the directory's owner or root) first.  OpenPBS's commands likewise talk only to
the server they authenticate with (its ``pbs_iff``/munge), never to whatever answers.

Each test below has the squatter's socket record what it receives: a refusal means no byte.
"""
import json
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import pytest

from fake_pbs import paths
from fake_pbs.runner import build
from .. import public_tree
from ..reliability.rig import BIN, USER_PYTHON, need_users

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler: no C client")

# The squatter: listens on each socket named on its command line and notes what arrives.  On
# end of its stdin (or after 90 s) it takes in what is still queued (the clients have sent and
# closed by then; under load the end of stdin may come first), then prints {path: [bytes
# received on each connection]}.
_RECORDER = r"""
import json, os, select, socket, sys, time
listeners, conns, got = {}, {}, {}
for path in sys.argv[1:]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    os.chmod(path, 0o666)
    sock.listen(16)
    listeners[sock.fileno()] = (sock, path)
    got[path] = []
print("ready", flush=True)
deadline = time.monotonic() + 90
eof = False
while time.monotonic() < deadline:
    watched = ([] if eof else [0]) + list(listeners) + list(conns)
    ready, _, _ = select.select(watched, [], [], 0.2 if eof else 0.5)
    if eof and not ready:
        break
    if 0 in ready and not os.read(0, 64):
        eof = True
    for fd in ready:
        if fd in listeners:
            conn, _ = listeners[fd][0].accept()
            path = listeners[fd][1]
            conns[conn.fileno()] = (conn, path, len(got[path]))
            got[path].append(0)
        elif fd in conns:
            conn, path, index = conns[fd]
            data = conn.recv(65536)
            got[path][index] += len(data)
            if not data or got[path][index]:  # what a client sends comes in one message
                del conns[fd]
                conn.close()
print(json.dumps(got), flush=True)
"""

_PY_CLIENT = r"""
import sys
from fake_pbs import verified_connect
try:
    sock = verified_connect.connect(sys.argv[1], 10.0)
except verified_connect.Untrusted as err:
    print("refused: %s" % err)
else:
    sock.sendall(b"hello")
    sock.close()
    print("sent")
"""


def _become(user: str) -> Optional[Callable[[], None]]:
    entry = pwd.getpwnam(user)

    def change() -> None:
        os.initgroups(user, entry.pw_gid)
        os.setgid(entry.pw_gid)
        os.setuid(entry.pw_uid)
    return None if user == "root" else change


class Recorder:
    """A listening squatter process of ``user`` on ``sockets``."""

    def __init__(self, user: str, sockets: Sequence[str]) -> None:
        self.proc = subprocess.Popen(
            [USER_PYTHON, "-S", "-c", _RECORDER] + list(sockets), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, universal_newlines=True, preexec_fn=_become(user), cwd="/")
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "ready"

    def received(self) -> Dict[str, List[int]]:
        """Stop listening: the byte counts of each connection, per socket."""
        out, _ = self.proc.communicate(timeout=30)
        return dict(json.loads(out.splitlines()[-1]))

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _total(recorders: List[Recorder]) -> int:
    """Bytes the ``recorders`` received in all (each stops listening)."""
    return sum(sum(counts) for recorder in recorders
               for counts in recorder.received().values())


@pytest.fixture
def scratch() -> Iterator[Path]:
    need_users()
    base = Path(tempfile.mkdtemp(prefix="fpcon", dir="/tmp"))
    base.chmod(0o755)
    try:
        yield base
    finally:
        shutil.rmtree(str(base), ignore_errors=True)


def _own(path: Path, user: str, mode: int) -> None:
    entry = pwd.getpwnam(user)
    os.chown(str(path), entry.pw_uid, entry.pw_gid, follow_symlinks=False)
    if not path.is_symlink():
        path.chmod(mode)


def _mkdir(path: Path, user: str, mode: int) -> Path:
    path.mkdir()
    _own(path, user, mode)
    return path


def _as(user: str, argv: List[str], env: Optional[Dict[str, str]] = None,
        stdin: str = "") -> "subprocess.CompletedProcess[str]":
    env = env or {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(public_tree.root())}
    return subprocess.run(argv, input=stdin, env=env, cwd="/tmp", stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                          preexec_fn=_become(user))


# (case, who owns the run directory and its mode, who listens, expected: sent or refused)
CASES = ["another user's directory", "a directory others may write", "a link",
         "another user's socket, linked in", "the user's own directory", "root's directory"]


def _layout(case: str, home: Path) -> Tuple[List[Tuple[str, List[str]]], bool]:
    """Make ``home/run`` as ``case`` says: [(listening user, its sockets)], whether a
    client running as pbsuser may send there."""
    run = home / "run"
    sock = str(run / "runner.sock")
    if case == "another user's directory":  # the squat: pbsuser2's /tmp/fake-pbs-<digest>
        _mkdir(run, "pbsuser2", 0o755)
        return [("pbsuser2", [sock])], False
    if case == "a directory others may write":
        _mkdir(run, "pbsuser", 0o777)
        return [("pbsuser", [sock])], False
    if case == "a link":  # pbsuser2's link to a directory of pbsuser's
        real = _mkdir(home / "real", "pbsuser", 0o755)
        run.symlink_to(real)
        _own(run, "pbsuser2", 0)
        return [("pbsuser", [str(real / "runner.sock")])], False
    if case == "another user's socket, linked in":  # the directory passes, the peer not
        _mkdir(run, "pbsuser", 0o755)
        other = _mkdir(home / "other", "pbsuser2", 0o755)
        return [("pbsuser2", [str(other / "runner.sock")])], False
    if case == "the user's own directory":
        _mkdir(run, "pbsuser", 0o700)
        return [("pbsuser", [sock])], True
    assert case == "root's directory"  # a cluster started by root
    _mkdir(run, "root", 0o755)
    return [("root", [sock])], True


@pytest.mark.parametrize("case", CASES)
def test_both_clients_refuse_the_same_sockets(scratch: Path, case: str) -> None:
    """The Python client (verified_connect) and the C client (runclient.c), run as pbsuser
    against the same run directory, both send or both refuse, and a refusal sends no byte."""
    home = _mkdir(scratch / "h", "root", 0o755)
    client = build.build(home)  # compiled for home/run/runner.sock
    assert client is not None
    listeners, may_send = _layout(case, home)
    recorders: List[Recorder] = []
    try:
        for user, sockets in listeners:
            recorders.append(Recorder(user, sockets))
        sock = str(home / "run" / "runner.sock")
        if case == "another user's socket, linked in":
            os.link(listeners[0][1][0], sock)  # a root-made link: connect() reaches pbsuser2
        python = _as("pbsuser", [USER_PYTHON, "-S", "-c", _PY_CLIENT, sock])
        assert python.returncode == 0, python.stderr
        python_got = _total(recorders)
        recorders = []
        for user, sockets in listeners:
            for path in sockets:
                os.unlink(path)
            recorders.append(Recorder(user, sockets))
        if case == "another user's socket, linked in":
            os.unlink(sock)
            os.link(listeners[0][1][0], sock)
        # The C client's fallback here is `echo`: it says the Python path would take over.
        native = _as("pbsuser", [str(client), "/bin/echo", BIN + "/qstat"])
        native_got = _total(recorders)
    finally:
        for recorder in recorders:
            recorder.kill()
    assert native.returncode == 0 and "qstat" in native.stdout, (native.stdout, native.stderr)
    if may_send:
        assert python.stdout.startswith("sent") and python_got > 0, python.stdout
        assert native_got > 0, case
    else:
        assert python.stdout.startswith("refused: refusing "), python.stdout
        assert python_got == 0 and native_got == 0, (case, python_got, native_got)


def _long_home(base: Path, user: str) -> Path:
    """A home of ``user`` whose sockets go to /tmp/fake-pbs-<digest> (too long for <home>/run),
    with the runner's C client built in it as `fake-pbs start` leaves it."""
    home = base / ("cluster-home-with-a-name-long-enough-for-the-short-socket-stand-in-" + user)
    _mkdir(home, user, 0o755 if user == "root" else 0o700)
    assert paths.run_dir_path(str(home)).startswith("/tmp/fake-pbs-")
    assert build.build(home) is not None
    return home


def _squat(home: Path, squatter: str) -> Tuple[Path, Recorder]:
    """``squatter`` creates ``home``'s socket directory first and listens in it."""
    run = Path(paths.run_dir_path(str(home)))
    shutil.rmtree(str(run), ignore_errors=True)  # as after a reboot or a clean of /tmp
    _mkdir(run, squatter, 0o777)
    return run, Recorder(squatter, [str(run / "server.sock"), str(run / "runner.sock")])


def _qsub(home: Path, user: str, runner: bool) -> "subprocess.CompletedProcess[str]":
    env = {"PATH": BIN + ":/usr/bin:/bin", "FAKE_PBS_HOME": str(home), "HOME": "/tmp",
           "FAKE_PBS_PYTHON": USER_PYTHON, "FAKE_PBS_RUNNER": "1" if runner else "0",
           "SECRET": "the caller's environment"}
    return _as(user, [BIN + "/qsub"], env=env, stdin="#!/bin/sh\necho private script\n")


@pytest.mark.parametrize("runner", [True, False], ids=["C client", "Python"])
def test_a_squatted_socket_directory_of_a_private_cluster_gets_nothing(
        scratch: Path, runner: bool) -> None:
    """pbsuser2 creates pbsuser's /tmp/fake-pbs-<digest> first and listens there: pbsuser's
    qsub (through the C client, and through Python alone) fails with the reason, prints no
    job id and sends the squatter nothing, not even a connection; no cluster is started."""
    home = _long_home(scratch, "pbsuser")
    run, recorder = _squat(home, "pbsuser2")
    try:
        done = _qsub(home, "pbsuser", runner)
        received = recorder.received()
    finally:
        recorder.kill()
        shutil.rmtree(str(run), ignore_errors=True)
    assert done.returncode != 0 and done.stdout == "", (done.stdout, done.stderr)
    assert "refusing %s: owned by uid %d" % (run, pwd.getpwnam("pbsuser2").pw_uid) in done.stderr
    assert received == {str(run / "server.sock"): [], str(run / "runner.sock"): []}, received


@pytest.mark.parametrize("runner", [True, False], ids=["C client", "Python"])
def test_a_squatted_socket_directory_of_roots_cluster_gets_nothing(
        scratch: Path, runner: bool) -> None:
    """pbsuser squats the socket directory of a cluster root starts: neither root's commands
    nor pbsuser2's (a user of the shared cluster) send it anything."""
    home = _long_home(scratch, "root")
    run, recorder = _squat(home, "pbsuser")
    try:
        as_root = _qsub(home, "root", runner)
        as_other = _qsub(home, "pbsuser2", runner)
        received = recorder.received()
    finally:
        recorder.kill()
        shutil.rmtree(str(run), ignore_errors=True)
    for done in (as_root, as_other):
        assert done.returncode != 0 and done.stdout == "", (done.stdout, done.stderr)
        assert "refusing %s: owned by uid" % run in done.stderr, done.stderr
    assert received == {str(run / "server.sock"): [], str(run / "runner.sock"): []}, received
