"""The client side of every connection to a cluster's socket: what is checked before a byte goes.

A cluster's sockets live in its run directory, ``<home>/run`` or, for a long home, the
predictable ``/tmp/fake-pbs-<digest>`` (fake_pbs/paths.py), which another local user may create
first.  So a client (a command, ``fake-pbs``, a daemon calling a mom) follows these rules, and
sends nothing, not even its connection, to a socket that fails them:

1. The socket's directory, looked at without following a link (``lstat``), is a directory,
   owned by the caller or by root, and writable by neither its group nor others: only its
   owner (or root) can have put a socket in it.
2. Once connected, before anything is sent: the peer (``SO_PEERCRED``) runs as that
   directory's owner or as root, the only ones who could have bound the socket there.

A socket that fails raises :class:`Untrusted` (an ``OSError``, errno ``EPERM``) saying what was
found.  The command runner's C client (``fake_pbs/runner/runclient.c``) applies the same two
rules to the runner's socket and, when they fail, hands the command to the Python path, which
then meets them here (``tests/security/test_connect.py`` runs both clients against the same
bad directories and peers).  docs/security.md, "Trust model", says what each command checks.

Every PBS command imports this module: it uses ``posix`` and ``_socket`` only.
"""
from __future__ import annotations

import _socket
import posix
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

_EPERM = 1
_S_IFMT = 0o170000
_S_IFDIR = 0o040000
_CRED_SIZE = 12  # struct ucred: pid, uid, gid (ints)


class Untrusted(OSError):
    """A socket this process will not talk to; ``str()`` is the reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(_EPERM, reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def _parent(path: str) -> str:
    cut = path.rfind("/")
    if cut < 0:
        return "."
    return path[:cut] or "/"


def check_directory(folder: str) -> int:
    """Rule 1 for the directory ``folder``: its owner's uid; :class:`Untrusted` if it fails
    (a missing directory raises ``FileNotFoundError``, as a connect would)."""
    info = posix.lstat(folder)
    if info.st_mode & _S_IFMT != _S_IFDIR:
        raise Untrusted("refusing %s: not a directory (a link or file someone may have put "
                        "there)" % folder)
    me = posix.geteuid()
    if info.st_uid not in (me, 0):
        raise Untrusted("refusing %s: owned by uid %d, not by you (uid %d) or root; it may "
                        "be another user's trap: remove it" % (folder, info.st_uid, me))
    if info.st_mode & 0o022:
        raise Untrusted("refusing %s: writable by others (mode %o), who may have put sockets "
                        "in it" % (folder, info.st_mode & 0o7777))
    return int(info.st_uid)


def peer_uid(sock: _socket.socket) -> int:
    """The uid of the process at the other end of the connected Unix socket ``sock``."""
    raw = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, _CRED_SIZE)
    return int.from_bytes(raw[4:8], sys.byteorder)


def check_peer(sock: _socket.socket, path: str, owner: int) -> None:
    """Rule 2: the peer of ``sock`` (connected to ``path``) runs as ``owner`` or root."""
    uid = peer_uid(sock)
    if uid not in (owner, 0):
        raise Untrusted("refusing %s: it is served by uid %d, not by its directory's owner "
                        "(uid %d) or root" % (path, uid, owner))


def connect(path: str, timeout: Optional[float] = None) -> _socket.socket:
    """A connection to the Unix socket ``path`` that passed both rules (a bare
    ``_socket.socket``, in blocking mode with ``timeout``); raises ``OSError`` as ``connect()``
    does, :class:`Untrusted` when a rule fails."""
    owner = check_directory(_parent(path))
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        check_peer(sock, path, owner)
    except BaseException:
        sock.close()
        raise
    return sock
