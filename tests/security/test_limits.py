"""Limits that keep one user from taking the server away from the others (issue 10).

PBS's server keeps serving when clients misbehave; the fake's server serves each connection on
its own thread and holds a descriptor for it.  A user who opens thousands of connections and
keeps them idle, or a descriptor shortage that makes ``accept()`` fail with EMFILE, must not end
or block the server for everyone else; an oversized request is refused on its own.
"""
import os
import resource
import socket
import subprocess
from typing import Iterator, Tuple

import pytest

from fake_pbs import control, paths
from fake_pbs.model.errors import PBSE_PROTOCOL
from ..reliability.rig import USER_PYTHON, Rig, _become, wait_for

_HOLDER = r"""
import resource, socket, sys, time
count, path = int(sys.argv[1]), sys.argv[2]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 64), hard))
held = []
deadline = time.monotonic() + 30
while len(held) < count and time.monotonic() < deadline:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(path)  # EAGAIN while the server's backlog is full: try again
    except BlockingIOError:
        s.close()
        time.sleep(0.01)
        continue
    except OSError:
        s.close()
        break
    held.append(s)
print(len(held), flush=True)
sys.stdin.read()
"""


def _hold(rig: Rig, user: str, count: int) -> "subprocess.Popen[str]":
    """A process of ``user`` holding ``count`` idle connections to the server (until stdin
    closes)."""
    import pwd

    entry = pwd.getpwnam(user)
    holder = subprocess.Popen([USER_PYTHON, "-c", _HOLDER, str(count),
                               str(paths.server_socket(rig.home))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              universal_newlines=True, cwd="/",
                              preexec_fn=_become(entry.pw_uid, entry.pw_gid, user))
    assert holder.stdout is not None
    line = holder.stdout.readline()
    assert line.strip().isdigit(), line
    holder.held = int(line)  # type: ignore[attr-defined]
    return holder


def _release(holder: "subprocess.Popen[str]") -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(30)


@pytest.fixture
def server(rig: Rig) -> Iterator[Tuple[Rig, int]]:
    pid = control._read_pids(rig.home)["server"]
    limits = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    if limits[1] != resource.RLIM_INFINITY and limits[1] < 4096:
        pytest.skip("hard descriptor limit %d too low for this test" % limits[1])
    yield rig, pid


def _server_alive(rig: Rig, pid: int) -> bool:
    return control._alive(pid, rig.home)


def test_idle_connections_of_one_user_do_not_starve_the_others(
        server: Tuple[Rig, int]) -> None:
    """pbsuser holds 3000 idle connections against a server with the common 1024-descriptor
    limit: pbsuser2's qsub and qstat are still served, and the server lives on."""
    rig, pid = server
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (1024, 1024))
    holder = _hold(rig, "pbsuser", 3000)
    try:
        assert holder.held > 1024, holder.held  # type: ignore[attr-defined]
        # held, so that it is still there when qstat asks, however slow the machine (a job
        # of `true` could end first: qstat then exits 35, as PBS's does)
        jobid = rig.qsub("true", "-h", user="pbsuser2")
        done = rig.run(["qstat", jobid], user="pbsuser2")
        assert done.returncode == 0, done.stderr
        assert _server_alive(rig, pid)
    finally:
        _release(holder)
    assert rig.run(["qdel", jobid], user="pbsuser2").returncode == 0
    rig.wait(jobid)


def test_accept_failing_with_emfile_does_not_end_the_server(server: Tuple[Rig, int]) -> None:
    """With descriptors exhausted accept() fails (EMFILE): the server waits it out and serves
    again once connections close."""
    rig, pid = server
    in_use = len(os.listdir("/proc/%d/fd" % pid))
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (in_use + 8, 4096))
    holder = _hold(rig, "pbsuser", 60)
    try:
        wait_for(lambda: len(os.listdir("/proc/%d/fd" % pid)) >= in_use + 8, 10,
                 lambda: "the server never ran out of descriptors")
        assert _server_alive(rig, pid)
    finally:
        _release(holder)
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (4096, 4096))
    wait_for(lambda: control.server_answers(rig.home), 20, lambda: "the server does not answer")
    done = rig.run(["qstat"], user="pbsuser2")
    assert done.returncode == 0, done.stderr
    assert _server_alive(rig, pid)


def test_an_oversized_request_is_refused_alone(rig: Rig) -> None:
    """A request line over the cap gets PBS's protocol error and its connection is closed;
    the server goes on serving."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(60)
    sock.connect(str(paths.server_socket(rig.home)))
    reply = b""
    try:
        block = b"x" * (1 << 20)
        for _ in range(80):
            sock.sendall(block)
    except OSError:
        pass  # the server stopped reading once the cap was passed
    try:
        reply = sock.recv(4096)
    except OSError:
        pass
    finally:
        sock.close()
    assert b'"code":%d' % PBSE_PROTOCOL in reply.replace(b" ", b""), reply
    assert control.server_answers(rig.home)
