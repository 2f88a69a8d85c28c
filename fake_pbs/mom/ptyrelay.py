"""The job side of an interactive job (``qsub -I``): its terminal, and the relay to qsub.

PBS's mom connects back to a TCP port qsub listens on, opens a pty, gives the shell its slave
as controlling terminal, and copies bytes between the master and qsub's socket
(start_exec.c: ``conn_qsub``, ``open_master``, ``mom_writer``/``mom_reader``, ``rcvwinsize``).
Here no port is opened: the job's shepherd (fake_pbs/mom/shepherd.py) listens on a Unix socket
in the cluster's run directory (``paths.interactive_socket_path``), and qsub connects to it with
``verified_connect``'s checks (the directory is root's or the cluster owner's, and so is the
peer).  The shepherd takes only a peer that runs as the job's owner (``SO_PEERCRED``), only
one, and removes the socket once it has it: no other user reaches or reads the session.

The shell lives under the shepherd like any job shell, in its own session (the job's session
id), so qdel, walltime, a mom restart and ``resources_used`` apply to it as to a batch job.
Its child waits, in that session, until qsub has sent its TERM and window size (PBS reads
both before it starts the shell), then execs the shell with the slave as its terminal.

Wire (qsub -> shepherd): frames of one kind byte, a 2-byte big-endian length, the payload:
``t`` TERM's value, ``w`` the window size ``rows,cols,xpixel,ypixel`` (at the start, and
whenever qsub's window changes), ``d`` keyboard bytes.  Shepherd -> qsub: first the job id
and a newline (qsub checks it, as PBS's qsub does), then the terminal's output as it comes;
the end of the stream is the end of the job.

Standard library only (and verified_connect, which the shepherd has loaded already), and
imported by the shepherd only for an interactive job.
"""
from __future__ import annotations

import fcntl
import os
import select
import signal
import socket
import struct
import termios
import time

from fake_pbs.verified_connect import peer_uid

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Tuple

FRAME = struct.Struct(">cH")
KIND_DATA, KIND_WINSIZE, KIND_TERM = b"d", b"w", b"t"
# qsub polls for the socket; a qsub that is gone (killed while waiting) ends the job after this
ATTACH_SECONDS = 120.0
HANDSHAKE_SECONDS = 10.0
TICK_SECONDS = 0.5


def frame(kind: bytes, payload: bytes) -> bytes:
    """One qsub -> shepherd frame (payloads over 65535 bytes are the caller's to split)."""
    return FRAME.pack(kind, len(payload)) + payload


def winsize_bytes(text: bytes) -> Optional[bytes]:
    """``rows,cols,xpixel,ypixel`` -> a ``struct winsize``; None when malformed."""
    try:
        values = [int(v) for v in text.split(b",")]
    except ValueError:
        return None
    if len(values) != 4 or not all(0 <= v < 65536 for v in values):
        return None
    return struct.pack("HHHH", *values)


class FrameReader:
    """Cuts qsub's byte stream into (kind, payload) frames."""

    def __init__(self) -> None:
        self.pending = b""

    def feed(self, data: bytes) -> List[Tuple[bytes, bytes]]:
        self.pending += data
        out: List[Tuple[bytes, bytes]] = []
        while len(self.pending) >= FRAME.size:
            kind, size = FRAME.unpack_from(self.pending)
            if len(self.pending) < FRAME.size + size:
                break
            out.append((kind, self.pending[FRAME.size:FRAME.size + size]))
            self.pending = self.pending[FRAME.size + size:]
        return out


class Session:
    """The pty, the listening socket and the start gate of one interactive job."""

    def __init__(self, launch: Dict[str, Any]) -> None:
        self.launch = launch
        self.path = str(launch["interactive"]["socket"])
        self.uid = int(launch["uid"])
        self.master, self.slave = os.openpty()
        self.name = os.ttyname(self.slave)
        if launch.get("drop_privileges"):
            os.fchown(self.slave, self.uid, int(launch["gid"]))
        os.fchmod(self.slave, 0o600)
        self.gate_r, self.gate_w = os.pipe()
        try:
            os.unlink(self.path)  # one left by an earlier run of this job
        except FileNotFoundError:
            pass
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        os.chmod(self.path, 0o666)  # anyone may knock; only the owner is let in (_accept)
        self.listener.listen(4)
        self.ended: Optional[Tuple[int, Any]] = None
        self.early: List[Tuple[bytes, bytes]] = []  # frames that came with the handshake
        self.pending = b""  # and the start of the next one

    # ---- in the job's child ----------------------------------------------------------------

    def child_wait(self) -> Tuple[int, str]:
        """In the forked child: leave the shepherd's session, wait for qsub; (slave fd, TERM).
        A job killed meanwhile dies here (default dispositions, the job's own session)."""
        os.setsid()
        for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
            signal.signal(signum, signal.SIG_DFL)
        self.listener.close()
        os.close(self.master)
        os.close(self.gate_w)
        chunks = []
        while True:
            chunk = os.read(self.gate_r, 4096)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(self.gate_r)
        term = b"".join(chunks)
        if not term:
            os._exit(0)  # no qsub came: nothing to run
        fcntl.ioctl(self.slave, termios.TIOCSCTTY, 0)
        return self.slave, term.decode("utf-8", "replace")

    # ---- in the shepherd -----------------------------------------------------------------

    def _reaped(self, child: int, block: bool = False) -> bool:
        if self.ended is None:
            pid, status, usage = os.wait4(child, 0 if block else os.WNOHANG)
            if pid == child:
                self.ended = (status, usage)
        return self.ended is not None

    def _accept(self, child: int) -> Optional[socket.socket]:
        """The owner's qsub, once it has sent TERM and its window size; None when the child
        ended or no qsub came in time."""
        deadline = time.monotonic() + ATTACH_SECONDS
        while time.monotonic() < deadline and not self._reaped(child):
            ready, _, _ = select.select([self.listener], [], [], TICK_SECONDS)
            if not ready:
                continue
            conn, _ = self.listener.accept()
            if peer_uid(conn) != self.uid:
                conn.close()  # another user: not a byte of the session
                continue
            if self._handshake(conn):
                return conn
            conn.close()
        return None

    def _handshake(self, conn: socket.socket) -> bool:
        conn.settimeout(HANDSHAKE_SECONDS)
        reader = FrameReader()
        got: Dict[bytes, bytes] = {}
        try:
            conn.sendall(str(self.launch["jobid"]).encode() + b"\n")
            while KIND_TERM not in got or KIND_WINSIZE not in got:
                data = conn.recv(4096)
                if not data:
                    return False
                for kind, payload in reader.feed(data):
                    if kind in (KIND_TERM, KIND_WINSIZE) and kind not in got:
                        got[kind] = payload
                    else:  # keys typed at once: relayed once the shell has its terminal
                        self.early.append((kind, payload))
        except OSError:
            del self.early[:]
            return False
        size = winsize_bytes(got[KIND_WINSIZE])
        if size is not None:
            fcntl.ioctl(self.master, termios.TIOCSWINSZ, size)
        conn.settimeout(None)
        self.pending = reader.pending
        term = got[KIND_TERM] or b"unknown"
        os.write(self.gate_w, term)
        return True

    def run(self, child: int) -> Tuple[int, Any]:
        """Relay until the job's shell ends; its (wait status, rusage)."""
        os.close(self.slave)
        os.close(self.gate_r)
        try:
            conn = self._accept(child)
        finally:
            os.close(self.gate_w)  # no qsub: the child exits without running anything
            self.listener.close()
            try:
                os.unlink(self.path)
            except OSError:
                pass
        if conn is not None:
            self._relay(conn, child)
        else:
            os.close(self.master)
        self._reaped(child, block=True)
        assert self.ended is not None
        return self.ended

    def _relay(self, conn: socket.socket, child: int) -> None:
        reader = FrameReader()
        master_open, client_open = True, True
        for kind, payload in self.early + reader.feed(self.pending):
            self._from_client(kind, payload)
        while not self._reaped(child):
            watched = ([self.master] if master_open else []) + ([conn] if client_open else [])
            if not watched:
                self._reaped(child, block=True)
                break
            ready, _, _ = select.select(watched, [], [], TICK_SECONDS)
            if self.master in ready:
                data = self._read_master()
                if data is None:
                    # every holder of the slave closed it: the shell is ending (or, having
                    # closed its terminal, lives on until it ends or the job is killed)
                    os.close(self.master)
                    master_open = False
                    self._reaped(child, block=True)
                    break
                elif client_open and not self._send(conn, data):
                    client_open = False
            if conn in ready:
                try:
                    data = conn.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    # qsub is gone: hang the terminal up, as a closed login does (SIGHUP)
                    client_open = False
                    if master_open:
                        os.close(self.master)
                        master_open = False
                    continue
                for kind, payload in reader.feed(data):
                    self._from_client(kind, payload)
        if master_open:
            self._drain(conn if client_open else None)
            os.close(self.master)
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.close()

    def _from_client(self, kind: bytes, payload: bytes) -> None:
        try:
            if kind == KIND_DATA:
                while payload:
                    payload = payload[os.write(self.master, payload):]
            elif kind == KIND_WINSIZE:
                size = winsize_bytes(payload)
                if size is not None:  # the kernel sends SIGWINCH to the foreground group
                    fcntl.ioctl(self.master, termios.TIOCSWINSZ, size)
        except OSError:
            pass

    def _read_master(self) -> Optional[bytes]:
        try:
            data = os.read(self.master, 65536)
        except OSError:  # EIO: no process holds the slave any more
            return None
        return data or None

    @staticmethod
    def _send(conn: socket.socket, data: bytes) -> bool:
        try:
            conn.sendall(data)
        except OSError:
            return False
        return True

    def _drain(self, conn: Optional[socket.socket]) -> None:
        """What the shell wrote last (``logout``), still in the master, goes to qsub."""
        os.set_blocking(self.master, False)
        for _ in range(256):
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            if conn is not None and not self._send(conn, data):
                return


def write_terminal(path: str, data: bytes) -> bool:
    """The mom's message to an interactive job's terminal (the walltime kill, I10): ``path``
    comes from the shepherd's root-written record, and must still be a pty's slave device."""
    import stat

    if not path.startswith("/dev/pts/"):
        return False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        if not stat.S_ISCHR(os.fstat(fd).st_mode):
            return False
        os.write(fd, data)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True
