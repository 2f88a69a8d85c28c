"""The command runner: one pre-imported process of the cluster that runs PBS commands for clients.

Starting a Python interpreter costs every command ~7 ms of CPU, more than its own work
(docs/performance.md, "The command start-up path").  As the mom's shepherd launcher does for
jobs, the runner imports every command module once and forks a child per request.  A client
(``fake_pbs/native/runclient.c``, started by ``fake_pbs/bin/fake-pbs``) connects to
``<run dir>/runner.sock`` and sends, in one message, its stdin, stdout, stderr and working
directory as descriptors (SCM_RIGHTS), then its umask, argv and environment.  The child takes
them over and runs the command's ``main()`` as the Python wrapper would; the runner answers with
the child's pid, then its wait status, which the client exits with (or dies of).

Wire, client to runner: ``FPR1`` + u32 length (4 descriptors attached), then ``length`` bytes:
u32 umask, u32 argc, then argc argv strings and the environment's ``NAME=value`` strings, each
NUL-terminated.  Runner to client: ``P`` + u32 pid (the command started), then ``S`` + i32
wait status; or a single ``X`` (refused: not this cluster's user) or ``B`` (busy), after which
nothing ran and the client runs the command itself.  Integers are in the machine's order.

Trust (docs/security.md): the caller is who SO_PEERCRED says.  A runner started by an ordinary
user serves that user only.  A runner started by root serves everyone: the child drops to the
caller's uid, gid and groups before it reads anything of the request, so a command runs with
exactly the rights it would have had started by the caller.  The request is hostile input:
every field is bounded and checked, and whatever it holds can only make its own child exit.
"""
import _signal  # type: ignore[import-not-found]  # see _child
import gc
import io
import os
import pwd
import select
import signal
import socket
import struct
import sys
import time
import traceback
from typing import Dict, List, NoReturn, Optional, Set, Tuple

from fake_pbs import paths, runwarm

COMMANDS = ("pbsnodes", "qalter", "qdel", "qhold", "qmgr", "qmove", "qrerun", "qrls", "qrun",
            "qselect", "qsig", "qstat", "qsub", "tracejob")
MAGIC = b"FPR1"
SOCKET_NAME = "runner.sock"
N_FDS = 4                      # stdin, stdout, stderr, working directory
MAX_REQUEST = 8 << 20          # argv + environment (runclient.c checks it too)
MAX_CHILDREN = 128             # beyond: ``B``, the client runs the command itself
MAX_PER_UID = 48
REQUEST_SECONDS = 10.0         # a client that sends no whole request in this time is dropped
STOP_SECONDS = 10.0            # running commands a stopping runner waits for
_CRED = struct.Struct("3i")    # struct ucred: pid, uid, gid
_HEADER = struct.Struct("=4sI")
_FIELDS = struct.Struct("=II")


def socket_path(home: str) -> str:
    """Where the runner of the cluster in ``home`` listens."""
    return os.path.join(paths.run_dir_path(home), SOCKET_NAME)


def preload() -> None:
    """Import every command and what they import lazily, so that no child imports again."""
    for name in COMMANDS:
        __import__("fake_pbs.cli." + name)
    import _socket  # noqa: F401  (protocol.connect)
    import json  # noqa: F401


class Runner:
    """The listening runner of one cluster (single-threaded: accept, fork, reap)."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.shared = os.getuid() == 0
        self.children: Dict[int, Tuple[socket.socket, int]] = {}  # pid -> (connection, uid)
        self.stopping = False

    def allowed(self, uid: int) -> bool:
        return self.shared or uid == os.getuid()

    def serve(self) -> int:
        path = socket_path(self.home)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        old = os.umask(0o077)
        try:
            listener.bind(path)
        finally:
            os.umask(old)
        # Root's runner serves every user (each checked by SO_PEERCRED); a user's only them.
        os.chmod(path, 0o666 if self.shared else 0o600)
        listener.listen(128)
        listener.setblocking(False)
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda signum, frame: None)
        signal.signal(signal.SIGTERM, self._stop)
        signal.signal(signal.SIGINT, self._stop)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        poller = select.poll()
        poller.register(listener.fileno(), select.POLLIN)
        poller.register(wake_r, select.POLLIN)
        self._own = {listener.fileno(), wake_r, wake_w}
        self._listener = listener
        self._poller = poller
        sys.stdout.flush()  # the children reuse these stream objects (_fresh_stdio)
        sys.stderr.flush()
        gc.collect()
        gc.freeze()  # what the children inherit is never scanned (nor copied by the collector)
        deadline = 0.0
        while True:
            if self.stopping:
                if not deadline:
                    deadline = time.monotonic() + STOP_SECONDS
                    poller.unregister(listener.fileno())
                    listener.close()
                    self._own.discard(listener.fileno())
                    self._unlink(path)
                if not self.children or time.monotonic() > deadline:
                    break
            for fd, events in poller.poll(200 if self.stopping else 2000):
                if fd == wake_r:
                    self._drain(wake_r)
                elif not self.stopping and fd == listener.fileno():
                    self._accept()
                else:
                    self._hangup(fd)
            self._reap()
        for pid in list(self.children):
            self._kill(pid)
        self._reap(block=True)
        return 0

    def _stop(self, signum: int, frame: object) -> None:
        self.stopping = True

    @staticmethod
    def _unlink(path: str) -> None:
        try:
            os.unlink(path)
        except OSError:
            pass

    @staticmethod
    def _drain(fd: int) -> None:
        try:
            while os.read(fd, 512):
                pass
        except OSError:
            pass

    def _accept(self) -> None:
        for _ in range(64):  # bounded: the poll loop also reaps
            try:
                conn, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # EMFILE and the like: let running commands end first
                return
            self._start(conn)

    def _start(self, conn: socket.socket) -> None:
        try:
            _, uid, gid = _CRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                       _CRED.size))
        except OSError:
            conn.close()
            return
        if not self.allowed(uid):
            _say(conn, b"X")
            conn.close()
            return
        mine = sum(1 for _, owner in self.children.values() if owner == uid)
        if len(self.children) >= MAX_CHILDREN or mine >= MAX_PER_UID:
            _say(conn, b"B")
            conn.close()
            return
        keep = self._own | {c.fileno() for c, _ in self.children.values()}
        try:
            pid = os.fork()
        except OSError:
            _say(conn, b"B")
            conn.close()
            return
        if pid == 0:  # pragma: no cover - the child (tests run it through clients)
            _child(conn, uid, gid, keep, self.shared)
        self.children[pid] = (conn, uid)
        _say(conn, b"P" + struct.pack("=I", pid))
        self._poller.register(conn.fileno(), 0)  # only hang-ups: the child reads the request

    def _hangup(self, fd: int) -> None:
        """The client is gone before its command ended: end the command as it would have."""
        for pid, (conn, _) in self.children.items():
            if conn.fileno() == fd:
                self._poller.unregister(fd)
                self._kill(pid)
                return
        try:
            self._poller.unregister(fd)
        except KeyError:
            pass

    def _kill(self, pid: int) -> None:
        try:
            os.kill(pid, signal.SIGKILL)  # not yet reaped: the pid is still this child's
        except OSError:
            pass

    def _reap(self, block: bool = False) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                return
            except InterruptedError:
                continue
            if pid == 0:
                return
            entry = self.children.pop(pid, None)
            if entry is None:
                continue
            conn = entry[0]
            try:
                self._poller.unregister(conn.fileno())
            except KeyError:
                pass
            _say(conn, b"S" + struct.pack("=i", status))
            conn.close()


def _say(conn: socket.socket, data: bytes) -> None:
    """Send a short answer without ever blocking the runner (a full socket drops it)."""
    try:
        conn.send(data, socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL)
    except OSError:
        pass


# -- the child: one command ----------------------------------------------------------------------
class BadRequest(Exception):
    """The request is not one this runner runs (the child exits 126, nothing else happens)."""


def _child(conn: socket.socket, uid: int, gid: int, inherited: Set[int],
           shared: bool) -> NoReturn:
    code = 126
    try:
        for fd in inherited:  # the listener and other callers' connections are not theirs
            try:
                os.close(fd)
            except OSError:
                pass
        # Python's start-up dispositions; _signal: signal.signal's enum conversions alone
        # cost a child ~100 page faults.
        _signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            _signal.signal(signum, _signal.SIG_DFL)
        _signal.signal(signal.SIGINT, _signal.default_int_handler)
        _signal.signal(signal.SIGPIPE, _signal.SIG_IGN)
        become(uid, gid, shared)
        conn.settimeout(REQUEST_SECONDS)
        fds, mask, argv, env = read_request(conn)
        conn.settimeout(None)
        _take_over(fds, mask, env)
        code = run_command(argv)
    except BadRequest:
        code = 126
    except BaseException:  # the runner's own failure: never a traceback on the caller's stderr
        code = 126
    os._exit(code)


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


def _recv_exact(conn: socket.socket, size: int) -> bytes:
    chunks: List[bytes] = []
    while size > 0:
        chunk = conn.recv(min(size, 1 << 20))
        if not chunk:
            raise BadRequest("request cut short")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_request(conn: socket.socket) -> Tuple[List[int], int, List[bytes], List[bytes]]:
    """(descriptors, umask, argv, environment) of one request; BadRequest when malformed."""
    fds: List[int] = []
    try:
        data, ancillary, flags, _ = conn.recvmsg(_HEADER.size,
                                                 socket.CMSG_SPACE(N_FDS * 4))
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % 4
                fds.extend(struct.unpack("%di" % (usable // 4), payload[:usable]))
        if flags & socket.MSG_CTRUNC or len(fds) != N_FDS:
            raise BadRequest("%d descriptors" % len(fds))
        if len(data) < _HEADER.size:
            data += _recv_exact(conn, _HEADER.size - len(data))
        magic, length = _HEADER.unpack(data)
        if magic != MAGIC or not _FIELDS.size < length <= MAX_REQUEST:
            raise BadRequest("bad header")
        body = _recv_exact(conn, length)
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


def _fresh_stdio() -> None:
    """sys.stdin/stdout/stderr as a new interpreter would have them on descriptors 0-2.

    The runner's own stream objects are reused (they already are on 0-2; new ones cost the
    child ~150 page faults): the runner never writes to them, so their buffers are empty,
    and only stdout's buffering depends on the descriptor: line by line on a terminal."""
    stdout = sys.stdout
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(line_buffering=os.isatty(1))


def run_command(argv: List[bytes]) -> int:
    """Run the command ``argv`` names as ``fake_pbs/bin/fake-pbs`` would; its exit status."""
    sys.argv = [os.fsdecode(arg) for arg in argv]
    name = sys.argv[0].rsplit("/", 1)[-1]
    if name not in COMMANDS:
        raise BadRequest("not a command: %r" % name)
    main = sys.modules["fake_pbs.cli." + name].main
    gc.disable()
    try:
        main()
        code = 0
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except KeyboardInterrupt:
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # die of it, as Python does
        os.kill(os.getpid(), signal.SIGINT)
        code = 130
    except BaseException:
        traceback.print_exc()
        code = 1
    if not _flush() and code == 0:
        code = 120  # Python's status when flushing stdout at exit fails
    return code


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


def main(argv: Optional[List[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="fake_pbs.runner", description=__doc__.split("\n")[0])
    parser.add_argument("--home", required=True)
    args = parser.parse_args(argv)
    home = paths.cluster_home_path(args.home)
    os.environ["FAKE_PBS_HOME"] = home
    preload()
    runwarm.warm_up()
    return Runner(home).serve()


if __name__ == "__main__":
    sys.exit(main())
