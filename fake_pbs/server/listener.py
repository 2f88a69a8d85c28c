"""The server's Unix socket: one thread per connection, identity from SO_PEERCRED.

Limits (docs/security.md): a request line is capped (fake_pbs.protocol), an ordinary user holds
at most :data:`MAX_PER_USER` connections at once (more are closed at once, so idle connections
of one user cannot use up the server's descriptors), and a failing ``accept()`` (EMFILE, ENFILE,
ENOMEM, ...) is waited out, never the end of the server.
"""
import errno
import os
import pwd
import socket
import struct
import threading
import time
from pathlib import Path
from typing import Dict, Optional, Tuple

from fake_pbs.model.errors import PBSE_PROTOCOL, PbsError
from fake_pbs.unixaccept import accept
from fake_pbs.workers import Workers
from fake_pbs.protocol import LineChannel
from fake_pbs.server import privilege
from fake_pbs.server.app import ServerApp
from fake_pbs.server.handlers import Caller, Context, dispatch
from fake_pbs.server.rawreply import send_reply

_CRED = struct.Struct("3i")

#: Connections one non-manager uid may hold open at once (a busy psij client needs a few dozen).
MAX_PER_USER = 256
# accept() errors that mean "not now" (descriptors, memory, a client gone before the accept).
_TRANSIENT = frozenset((errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM,
                        errno.ECONNABORTED, errno.EPROTO, errno.EINTR, errno.EAGAIN))
_BACKOFF = 0.05


def peer_credentials(sock: socket.socket) -> Tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of a Unix socket."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _CRED.size)
    pid, uid, gid = _CRED.unpack(raw)
    return pid, uid, gid


def user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return "#%d" % uid


class Listener:
    def __init__(self, app: ServerApp, path: Path) -> None:
        self.app = app
        self.path = path
        self._sock: Optional[socket.socket] = None
        self._open: Dict[int, int] = {}  # uid -> connections being served
        self._count_lock = threading.Lock()
        self._starved = False
        self._workers = Workers("conn")  # one connection each, threads reused

    def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        shared = os.getuid() == 0
        os.chmod(str(self.path.parent), 0o755 if shared else 0o700)
        if self.path.exists() or self.path.is_symlink():
            self.path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(self.path))
        # Root's cluster serves every local user (identity from SO_PEERCRED); a user's is private.
        os.chmod(str(self.path), 0o666 if shared else 0o600)
        sock.listen(128)
        self._sock = sock

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None
        try:
            self.path.unlink()
        except OSError:
            pass

    def serve_forever(self) -> None:
        assert self._sock is not None
        self._sock.settimeout(0.5)
        while not self.app.stopping.is_set():
            try:
                conn = accept(self._sock)
            except socket.timeout:
                continue
            except OSError as err:
                if self.app.stopping.is_set():
                    return
                if err.errno not in _TRANSIENT:
                    raise
                self._starve(err)
                continue
            self._starved = False
            self._admit(conn)

    def _starve(self, err: OSError) -> None:
        """accept() failed for want of a resource: log once per episode, back off, go on."""
        if not self._starved:
            self._starved = True
            self.app.log.server("accept failed: %s; waiting for connections to close"
                                % os.strerror(err.errno or 0))
        time.sleep(_BACKOFF)

    def _admit(self, conn: socket.socket) -> None:
        try:
            pid, uid, gid = peer_credentials(conn)
        except OSError:
            conn.close()
            return
        with self._count_lock:
            held = self._open.get(uid, 0)
            # only past the cap: who may hold more is asked of the server's lists as they are now
            if held >= MAX_PER_USER and not any(privilege.levels_of_uid(self.app, uid)):
                conn.close()
                return
            self._open[uid] = held + 1
        conn.settimeout(None)
        try:
            self._workers.spawn(self._serve, conn, pid, uid, gid)
        except RuntimeError:  # no thread to be had: refuse this one, keep serving the rest
            self._release(uid)
            conn.close()

    def _release(self, uid: int) -> None:
        with self._count_lock:
            left = self._open.get(uid, 1) - 1
            if left > 0:
                self._open[uid] = left
            else:
                self._open.pop(uid, None)

    def _serve(self, conn: socket.socket, pid: int, uid: int, gid: int) -> None:
        channel = LineChannel(conn)
        try:
            # no privilege here: dispatch grants each request its own (fake_pbs/server/privilege)
            caller = Caller(uid, gid, pid, user_name(uid), self.app.host)
            ctx = Context(self.app, caller, conn.fileno())
            while True:
                try:
                    request = channel.receive()
                except ValueError:
                    channel.send(PbsError(PBSE_PROTOCOL).to_wire())
                    return
                if request is None:
                    return
                reply = dispatch(ctx, request)
                send_reply(channel, reply)
                if request.get("op") == "shutdown" and reply.get("ok"):
                    self.app.stopping.set()
                    return
        except OSError:
            return
        finally:
            channel.close()
            self._release(uid)
