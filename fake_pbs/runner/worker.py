"""The command runner's worker: one forked process that runs PBS commands for one identity.

The listener (``fake_pbs/runner/listen.py``) forks a worker for a caller's uid and gid with the
caller's connection in hand.  The worker closes every descriptor of the runner, takes that
identity (docs/security.md, "The command runner"), and then serves requests one at a time:
it reads the request from the connection, becomes the caller's process for the command (its
descriptors, directory, umask and environment), runs the command's ``main()`` as the Python
wrapper would, puts its standard descriptors back on ``/dev/null`` and tells the runner the
exit status.  The runner may then hand it the next connection of the same uid and gid over
the control socket (SCM_RIGHTS), instead of forking again.

Why a worker and not a fork per command: a child forked from the runner spent two thirds of
its CPU in the kernel, copying the pages that reference counting writes to and tearing its
address space down at exit (~2 ms of a ~3 ms ``qsub``; docs/performance.md).  A worker pays
that once.  What a command leaves behind must not reach the next one, so a worker resets the
commands' caches after each command and retires (exits) whenever the command left anything it
cannot reset: an unexpected exception, a descriptor, a thread or a child process, a module
imported after the fork (fake_pbs/runner/preload.py should have loaded it), a request it
refused, or after :data:`MAX_USES` commands.  A request must arrive whole within
:data:`REQUEST_SECONDS`, one deadline for all its reads.

Control socket, worker to runner: ``D`` + i32 wait status (done; ready for the next) or ``E``
+ i32 wait status (done; the worker exits now).  Runner to worker: one byte with a connection
attached; end of file: exit.  A command that dies of a signal ends its worker: the runner
reaps it and passes the wait status on.
"""
import _signal  # type: ignore[import-not-found]  # see _reset_signals
import gc
import io
import os
import pwd
import signal
import socket
import struct
import sys
import time
import traceback
from typing import List, NoReturn, Set, TextIO, Tuple, Union

from fake_pbs import leanos
from fake_pbs.runner import warm

MAGIC = b"FPR1"
N_FDS = 4                      # stdin, stdout, stderr, working directory
MAX_REQUEST = 8 << 20          # argv + environment (runclient.c checks it too)
REQUEST_SECONDS = 10.0         # a client whose whole request takes longer is dropped
MAX_USES = 500                 # commands one worker runs before it retires
COMMANDS = ("pbsnodes", "qalter", "qdel", "qdisable", "qenable", "qhold", "qmgr", "qmove", "qmsg",
            "qorder", "qrerun", "qrls", "qrun", "qselect", "qsig", "qstart", "qstat", "qstop",
            "qsub", "qterm", "tracejob", "pbs_rsub", "pbs_rstat", "pbs_rdel", "pbs_ralter")
REPORT = struct.Struct("=ci")  # b"D"/b"E", wait status
_HEADER = struct.Struct("=4sI")
_FIELDS = struct.Struct("=II")


class BadRequest(Exception):
    """The request is not one this runner runs (status 126, nothing else happens)."""


class _Exited(BaseException):
    """``os._exit`` called by a command (qsub skips interpreter teardown): its status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def serve(conn: socket.socket, ctrl: socket.socket, uid: int, gid: int,
          inherited: Set[int], shared: bool) -> NoReturn:
    """The worker's life, from the fork to its exit; ``conn``: its first caller."""
    try:
        for fd in inherited:  # the listener, other callers' connections, other workers' ends
            try:
                os.close(fd)
            except OSError:
                pass
        _signal.set_wakeup_fd(-1)
        _reset_signals()
        # The listener forked with these held: one the caller sent already is delivered now.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        become(uid, gid, shared)
        leanos._exit = raise_exited
        _serve(conn, ctrl)
    finally:  # whatever happens, never return into the runner's code
        os._exit(126)


def _serve(conn: socket.socket, ctrl: socket.socket) -> None:
    descriptors = _descriptors()
    descriptors.remove(str(conn.fileno()))  # the callers' connections come and go
    modules = len(sys.modules)
    for uses in range(1, MAX_USES + 1):
        status, clean = _serve_one(conn)
        conn.close()
        # A module imported during the command escaped the preload (fake_pbs/runner/preload.py):
        # retire, so no later command finds it half-imported by another's rights.
        clean = (clean and uses < MAX_USES and _pristine(descriptors)
                 and len(sys.modules) == modules)
        ctrl.send(REPORT.pack(b"D" if clean else b"E", status))
        if not clean:
            break
        gc.collect()  # off the caller's time: the collector is off while commands run
        next_conn = _next_connection(ctrl)
        if next_conn is None:
            break
        conn = next_conn
    os._exit(0)


def _serve_one(conn: socket.socket) -> Tuple[int, bool]:
    """Run the request on ``conn``: (wait status, whether this worker may serve again)."""
    try:
        _reset_signals()
        fds, mask, argv, env = read_request(conn, time.monotonic() + REQUEST_SECONDS)
        conn.settimeout(None)
        _take_over(fds, mask, env)
        code, clean = run_command(argv)
    except BaseException:  # a bad request or the runner's own failure: never a traceback
        return 126 << 8, False
    try:
        _give_back()
    except BaseException:
        return code << 8, False
    return code << 8, clean


def _next_connection(ctrl: socket.socket) -> "socket.socket | None":
    """The next caller's connection the runner hands over; None: retire."""
    try:
        data, ancillary, _, _ = ctrl.recvmsg(1, socket.CMSG_SPACE(4), socket.MSG_CMSG_CLOEXEC)
    except OSError:
        return None
    fds: List[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % 4
            fds.extend(struct.unpack("%di" % (usable // 4), payload[:usable]))
    if not data or len(fds) != 1:
        for fd in fds:
            os.close(fd)
        return None
    return socket.socket(fileno=fds[0])


def raise_exited(status: int) -> NoReturn:
    raise _Exited(status)


# The signals the C client forwards to the command (runclient.c): the listener forks with
# them held so that none reaches the worker before its own dispositions.
FORWARDED = frozenset((signal.SIGINT, signal.SIGTERM, signal.SIGHUP))


def _reset_signals() -> None:
    """Python's start-up dispositions (_signal: signal.signal's enum conversions alone cost a
    freshly forked worker ~100 page faults)."""
    for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        _signal.signal(signum, _signal.SIG_DFL)
    _signal.signal(signal.SIGINT, _signal.default_int_handler)
    _signal.signal(signal.SIGPIPE, _signal.SIG_IGN)


def _descriptors() -> List[str]:
    return sorted(os.listdir("/proc/self/fd"))


def _pristine(descriptors: List[str]) -> bool:
    """Whether the command left nothing behind that a reset cannot take back: a descriptor,
    a thread, a child process."""
    try:
        if _descriptors() != descriptors or len(os.listdir("/proc/self/task")) != 1:
            return False
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    except OSError:
        return False
    return False  # a child still runs, or one ended unreaped: it was the command's


def become(uid: int, gid: int, shared: bool) -> None:
    """Take the caller's identity (root's runner) or check it is the runner's own."""
    if not shared:
        if uid != os.getuid():
            raise BadRequest("uid %d is not this runner's" % uid)
        return
    if uid == 0:
        return
    try:
        os.initgroups(pwd.getpwuid(uid).pw_name, gid)
    except KeyError:  # no passwd entry: no supplementary groups at all
        os.setgroups([gid])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (gid, gid, gid):
        raise BadRequest("could not drop to uid %d" % uid)


def _until(conn: socket.socket, deadline: float) -> None:
    """Let the next read on ``conn`` wait only until ``deadline`` (the whole request's time,
    not each read's: a client trickling a byte at a time must not hold a worker forever)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise BadRequest("request not complete in %.0f s" % REQUEST_SECONDS)
    conn.settimeout(left)


def _recv_exact(conn: socket.socket, size: int, deadline: float) -> bytes:
    chunks: List[bytes] = []
    while size > 0:
        _until(conn, deadline)
        chunk = conn.recv(min(size, 1 << 20))
        if not chunk:
            raise BadRequest("request cut short")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_request(conn: socket.socket, deadline: float
                 ) -> Tuple[List[int], int, List[bytes], List[bytes]]:
    """(descriptors, umask, argv, environment) of one request, whole by ``deadline``
    (``time.monotonic()``); BadRequest when malformed or late."""
    fds: List[int] = []
    try:
        _until(conn, deadline)
        data, ancillary, flags, _ = conn.recvmsg(_HEADER.size, socket.CMSG_SPACE(N_FDS * 4),
                                                 socket.MSG_CMSG_CLOEXEC)
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % 4
                fds.extend(struct.unpack("%di" % (usable // 4), payload[:usable]))
        if flags & socket.MSG_CTRUNC or len(fds) != N_FDS:
            raise BadRequest("%d descriptors" % len(fds))
        if len(data) < _HEADER.size:
            data += _recv_exact(conn, _HEADER.size - len(data), deadline)
        magic, length = _HEADER.unpack(data)
        if magic != MAGIC or not _FIELDS.size < length <= MAX_REQUEST:
            raise BadRequest("bad header")
        body = _recv_exact(conn, length, deadline)
        mask, argc = _FIELDS.unpack_from(body)
        strings = body[_FIELDS.size:]
        if not strings.endswith(b"\0"):
            raise BadRequest("unterminated string")
        items = strings[:-1].split(b"\0")
        if not 1 <= argc <= len(items) or mask > 0o777:
            raise BadRequest("bad counts")
        env = items[argc:]
        if any(b"=" not in item[1:] for item in env):
            raise BadRequest("bad environment entry")
        return fds, mask, items[:argc], env
    except BaseException:
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
        raise


def _take_over(fds: List[int], mask: int, env: List[bytes]) -> None:
    """Become the caller's process: its descriptors, directory, umask and environment."""
    os.fchdir(fds[3])
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    for fd in set(fds):
        if fd > 2:
            os.close(fd)
    os.umask(mask)
    environ = os.environb
    environ.clear()
    for item in env:
        key, _, value = item.partition(b"=")
        if key and key not in environ:  # the first of duplicates wins, as getenv(3) finds it
            environ[key] = value
    _fresh_stdio()


# The streams the runner started with: each command gets new ones like them (a command may
# leave unread input or unwritten output in a stream's buffers, which must not reach the next).
_STDIO = (sys.stdin, sys.stdout, sys.stderr)


def _fresh_stdio() -> None:
    """sys.stdin/stdout/stderr as a new interpreter would have them on descriptors 0-2: the
    runner's encodings, newline "\\n", stderr line by line, stdout so only on a terminal."""
    made: List[TextIO] = []
    for fd, like in enumerate(_STDIO):
        if not isinstance(like, io.TextIOWrapper):
            made.append(like)
            continue
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        buffered: Union[io.BufferedReader, io.BufferedWriter] = (
            io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw))
        made.append(io.TextIOWrapper(buffered, encoding=like.encoding, errors=like.errors,
                                     newline="\n",
                                     line_buffering=fd == 2 or (fd == 1 and os.isatty(1))))
    sys.stdin, sys.stdout, sys.stderr = made


def _give_back() -> None:
    """After a command: the caller's descriptors closed (their pipes see end of file once the
    client exits), nothing of the command's kept for the next."""
    null = os.open(os.devnull, os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(null, target)
    os.close(null)
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if stream is not None and stream not in _STDIO:
            try:
                stream.close()  # what its buffer still holds goes to /dev/null
            except Exception:
                pass
    sys.stdin, sys.stdout, sys.stderr = _STDIO
    os.chdir("/")
    warm.forget_caches()


def run_command(argv: List[bytes]) -> Tuple[int, bool]:
    """Run the command ``argv`` names as ``fake_pbs/bin/fake-pbs`` would: (exit status,
    whether it ended as commands do: a status or an exit, no escaping exception)."""
    sys.argv = [os.fsdecode(arg) for arg in argv]
    name = sys.argv[0].rsplit("/", 1)[-1]
    if name not in COMMANDS:
        raise BadRequest("not a command: %r" % name)
    main = sys.modules["fake_pbs.cli." + name].main
    gc.disable()
    clean = True
    try:
        main()
        code = 0
    except _Exited as done:
        code = done.status & 0xFF
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except KeyboardInterrupt:
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # die of it, as Python does
        os.kill(os.getpid(), signal.SIGINT)
        code, clean = 130, False
    except BaseException:
        traceback.print_exc()
        code, clean = 1, False
    if not _flush() and code == 0:
        code = 120  # Python's status when flushing stdout at exit fails
    return code, clean


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    try:
        sys.stderr.write("%s\n" % (value,))
    except Exception:
        pass
    return 1


def _flush() -> bool:
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            ok = stream is sys.stderr and ok
    return ok
