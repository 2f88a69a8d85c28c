"""The command runner's listener: accepts clients, forks workers, hands them connections.

Starting a Python interpreter costs every command ~7 ms of CPU, more than its own work
(docs/performance.md, "The command start-up path").  As the mom's shepherd launcher does for
jobs, the runner imports every command module once and forks workers from itself
(``fake_pbs/runner/worker.py``): a worker takes one caller's uid and gid and runs that identity's
commands, one at a time, for as long as it stays clean.  A client
(``fake_pbs/runner/runclient.c``, started by ``fake_pbs/bin/fake-pbs``) connects to
``<run dir>/runner.sock`` and sends, in one message, its stdin, stdout, stderr and working
directory as descriptors (SCM_RIGHTS), then its umask, argv and environment.  The worker takes
them over and runs the command's ``main()`` as the Python wrapper would; the runner answers with
the worker's pid, then the command's wait status, which the client exits with (or dies of).

Wire, client to runner: ``FPR1`` + u32 length (4 descriptors attached), then ``length`` bytes:
u32 umask, u32 argc, then argc argv strings and the environment's ``NAME=value`` strings, each
NUL-terminated.  Runner to client: ``P`` + u32 pid (the command started), then ``S`` + i32
wait status; or a single ``X`` (refused: not this cluster's user) or ``B`` (busy), after which
nothing ran and the client runs the command itself.  Integers are in the machine's order.

Trust (docs/security.md): the caller is who SO_PEERCRED says.  A runner started by an ordinary
user serves that user only.  A runner started by root serves everyone: a worker drops to the
caller's uid, gid and groups before it reads anything of the request, so a command runs with
exactly the rights it would have had started by the caller, and a worker is only ever handed
connections of callers with its own uid and gid.  The request is hostile input: every field is
bounded and checked, and whatever it holds can only end its own worker.

A worker is handed a new caller only once the previous caller has hung up: the client forwards
signals to the pid it was given until it has read the status, and such a late signal must not
reach another command.
"""
import gc
import os
import select
import signal
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from fake_pbs import paths
from fake_pbs.runner import build, preload, warm, worker as child

COMMANDS = child.COMMANDS
MAX_REQUEST = child.MAX_REQUEST
MAX_CHILDREN = 128             # commands at once; beyond: ``B``, the client runs it itself
MAX_PER_UID = 48
MAX_IDLE = 8                   # idle workers kept, all identities together
MAX_IDLE_PER_KEY = 2           # ... and of one uid and gid
IDLE_SECONDS = 60.0            # an idle worker retires after this long without a command
DRAIN_SECONDS = 5.0            # a caller that keeps its connection this long after the status
STOP_SECONDS = 10.0            # running commands a stopping runner waits for
_CRED = struct.Struct("3i")    # struct ucred: pid, uid, gid

Key = Tuple[int, int]          # the uid and gid a worker runs as

BUSY, DRAINING, IDLE, RETIRED = "busy", "draining", "idle", "retired"


class Worker:
    """The runner's record of one worker process."""

    def __init__(self, pid: int, key: Key, ctrl: socket.socket, conn: socket.socket) -> None:
        self.pid = pid
        self.key = key
        self.ctrl: Optional[socket.socket] = ctrl  # None once retired
        self.conn: Optional[socket.socket] = conn  # the caller served or draining
        self.state = BUSY
        self.since = time.monotonic()


class Runner:
    """The listening runner of one cluster (single-threaded: accept, dispatch, reap)."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.shared = os.getuid() == 0
        self.workers: Dict[int, Worker] = {}        # pid -> worker, until reaped
        self.by_fd: Dict[int, Worker] = {}          # its control socket and caller's descriptors
        self.idle: Dict[Key, List[Worker]] = {}
        self.stopping = False
        self._own: Set[int] = set()

    def allowed(self, uid: int) -> bool:
        return self.shared or uid == os.getuid()

    def serve(self) -> int:
        path = paths.runner_socket_path(self.home)
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
        sys.stdout.flush()
        sys.stderr.flush()
        gc.collect()
        gc.freeze()  # what the workers inherit is never scanned (nor copied by the collector)
        deadline = 0.0
        while True:
            if self.stopping:
                if not deadline:
                    deadline = time.monotonic() + STOP_SECONDS
                    poller.unregister(listener.fileno())
                    self._own.discard(listener.fileno())
                    listener.close()
                    self._unlink(path)
                    for worker in list(self.workers.values()):
                        if worker.state != BUSY:
                            self._retire(worker)
                if not self._serving() or time.monotonic() > deadline:
                    break
            events = poller.poll(200 if self.stopping else 2000)
            # The workers' reports and the callers' hang-ups first: a worker freed by them
            # can take a connection accepted in this same round.
            events.sort(key=lambda event: event[0] == listener.fileno())
            for fd, mask in events:
                if fd == wake_r:
                    self._drain(wake_r)
                elif not self.stopping and fd == listener.fileno():
                    self._accept()
                else:
                    self._event(fd, mask)
            self._reap()
            self._expire()
        for pid in list(self.workers):
            self._kill(pid)
        self._reap(block=True)
        return 0

    def _serving(self) -> bool:
        return any(worker.state == BUSY for worker in self.workers.values())

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
        # A worker whose caller still holds the connection counts: else a caller that holds
        # each connection after its status would make workers without bound.
        busy = [w for w in self.workers.values() if w.state in (BUSY, DRAINING)]
        if len(busy) >= MAX_CHILDREN or sum(w.key[0] == uid for w in busy) >= MAX_PER_UID:
            _say(conn, b"B")
            conn.close()
            return
        key = (uid, gid)
        waiting = self.idle.get(key, [])
        while waiting:
            worker = waiting.pop()
            if self._hand_over(worker, conn):
                return
        self._fork(key, conn)

    def _hand_over(self, worker: Worker, conn: socket.socket) -> bool:
        """Give ``conn`` to an idle ``worker``; False (and the worker retired) if it is gone."""
        assert worker.ctrl is not None
        try:
            worker.ctrl.sendmsg([b"C"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                          struct.pack("i", conn.fileno()))],
                                socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL)
        except OSError:
            self._retire(worker)
            return False
        self._busy(worker, conn)
        return True

    def _fork(self, key: Key, conn: socket.socket) -> None:
        try:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        except OSError:
            _say(conn, b"B")
            conn.close()
            return
        inherited = self._own | set(self.by_fd) | {ours.fileno()}
        # The caller may signal the worker as soon as it has its pid: held until the worker has
        # its own dispositions, or the listener's handlers, inherited, would swallow it.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, child.FORWARDED)
        try:
            pid = os.fork()
        except OSError:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            ours.close()
            theirs.close()
            _say(conn, b"B")
            conn.close()
            return
        if pid == 0:  # pragma: no cover - the worker (tests run it through clients)
            child.serve(conn, theirs, key[0], key[1], inherited, self.shared)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        theirs.close()
        worker = Worker(pid, key, ours, conn)
        self.workers[pid] = worker
        self.by_fd[ours.fileno()] = worker
        self._poller.register(ours.fileno(), select.POLLIN)
        self._busy(worker, conn)

    def _busy(self, worker: Worker, conn: socket.socket) -> None:
        worker.conn = conn
        worker.state = BUSY
        worker.since = time.monotonic()
        self.by_fd[conn.fileno()] = worker
        _say(conn, b"P" + struct.pack("=I", worker.pid))
        self._poller.register(conn.fileno(), 0)  # only hang-ups: the worker reads the request

    def _event(self, fd: int, mask: int) -> None:
        worker = self.by_fd.get(fd)
        if worker is None:
            self._forget_fd(fd)
        elif worker.ctrl is not None and fd == worker.ctrl.fileno():
            self._report(worker)
        elif worker.state == BUSY:
            # The client is gone before its command ended: end the command as it would have.
            self._drop_conn(worker)
            self._kill(worker.pid)
        else:  # the caller has hung up after its status: the worker may take the next
            self._drop_conn(worker)
            if worker.state == DRAINING:
                self._rest(worker)

    def _report(self, worker: Worker) -> None:
        assert worker.ctrl is not None
        try:
            data = worker.ctrl.recv(child.REPORT.size, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data and worker.state == BUSY:
            # Died during its command (of a signal, say): the reap passes its status on.
            self._forget_fd(worker.ctrl.fileno())
            worker.ctrl.close()
            worker.ctrl = None
            return
        if len(data) != child.REPORT.size or worker.state != BUSY:
            self._retire(worker)  # gone while idle, or confused
            return
        kind, status = child.REPORT.unpack(data)
        if worker.conn is not None:
            _say(worker.conn, b"S" + struct.pack("=i", status))
        if kind != b"D":
            self._drop_conn(worker)
            self._retire(worker)
            return
        worker.state = DRAINING
        worker.since = time.monotonic()
        if worker.conn is None:
            self._rest(worker)
            return
        try:
            worker.conn.shutdown(socket.SHUT_WR)  # the caller's end of file after the status
        except OSError:
            self._drop_conn(worker)
            self._rest(worker)

    def _rest(self, worker: Worker) -> None:
        """``worker`` is done with its caller: keep it for the next, or let it go."""
        waiting = self.idle.setdefault(worker.key, [])
        if (self.stopping or len(waiting) >= MAX_IDLE_PER_KEY
                or sum(len(w) for w in self.idle.values()) >= MAX_IDLE):
            self._retire(worker)
            return
        worker.state = IDLE
        worker.since = time.monotonic()
        waiting.append(worker)

    def _retire(self, worker: Worker) -> None:
        """Close the worker's control socket: it exits at its end of file (reaped later)."""
        self._drop_conn(worker)
        if worker.ctrl is not None:
            self._forget_fd(worker.ctrl.fileno())
            worker.ctrl.close()
            worker.ctrl = None
        waiting = self.idle.get(worker.key, [])
        if worker in waiting:
            waiting.remove(worker)
        worker.state = RETIRED

    def _drop_conn(self, worker: Worker) -> None:
        if worker.conn is not None:
            self._forget_fd(worker.conn.fileno())
            worker.conn.close()
            worker.conn = None

    def _forget_fd(self, fd: int) -> None:
        self.by_fd.pop(fd, None)
        try:
            self._poller.unregister(fd)
        except KeyError:
            pass

    def _expire(self) -> None:
        now = time.monotonic()
        for worker in list(self.workers.values()):
            if worker.state == IDLE and now - worker.since > IDLE_SECONDS:
                self._retire(worker)
            elif worker.state == DRAINING and now - worker.since > DRAIN_SECONDS:
                self._retire(worker)  # a caller that holds on may still signal the pid

    def _kill(self, pid: int) -> None:
        try:
            os.kill(pid, signal.SIGKILL)  # not yet reaped: the pid is still this worker's
        except OSError:
            pass

    def _reap(self, block: bool = False) -> None:
        while self.workers:
            try:
                pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                self.workers.clear()
                return
            except InterruptedError:
                continue
            if pid == 0:
                return
            worker = self.workers.pop(pid, None)
            if worker is None:
                continue
            if worker.state == BUSY and worker.ctrl is not None:
                self._report(worker)  # a report sent just before it exited comes first
            if worker.state == BUSY and worker.conn is not None:
                _say(worker.conn, b"S" + struct.pack("=i", status))
            self._retire(worker)


def _say(conn: socket.socket, data: bytes) -> None:
    """Send a short answer without ever blocking the runner (a full socket drops it)."""
    try:
        conn.send(data, socket.MSG_DONTWAIT | socket.MSG_NOSIGNAL)
    except OSError:
        pass


def main(argv: Optional[List[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="fake_pbs.runner", description=__doc__.split("\n")[0])
    parser.add_argument("--home", required=True)
    args = parser.parse_args(argv)
    home = paths.cluster_home_path(args.home)
    os.environ["FAKE_PBS_HOME"] = home
    build.build(Path(home))  # the C client, before any command can use it
    preload.preload()
    warm.warm_up()
    return Runner(home).serve()
