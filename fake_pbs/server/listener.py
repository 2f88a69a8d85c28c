"""The server's Unix socket: one thread per connection, identity from SO_PEERCRED."""
import os
import pwd
import socket
import struct
import threading
from pathlib import Path
from typing import Optional, Tuple

from fake_pbs.model.errors import PBSE_PROTOCOL, PbsError
from fake_pbs.protocol import LineChannel
from fake_pbs.server.app import ServerApp
from fake_pbs.server.handlers import Caller, Context, dispatch
from fake_pbs.server.rawreply import send_reply

_CRED = struct.Struct("3i")


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
                conn, _ = self._sock.accept()
            except socket.timeout:
                continue
            except OSError:
                if self.app.stopping.is_set():
                    return
                raise
            conn.settimeout(None)
            threading.Thread(target=self._serve, args=(conn,), daemon=True,
                             name="conn").start()

    def _serve(self, conn: socket.socket) -> None:
        channel = LineChannel(conn)
        try:
            pid, uid, gid = peer_credentials(conn)
            caller = Caller(uid, gid, pid, user_name(uid), self.app.host,
                            self.app.is_manager(uid))
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
