"""``accept()`` on the daemons' Unix sockets without the standard library's per-call extras.

``socket.socket.accept`` looks up the listener's family, type and protocol as enums and builds
the new socket from them: in the mom and the server (~4 connections per job each) that was
~15% of the mom's Python time (py-spy, docs/performance.md).  The listeners here are always
``AF_UNIX``/``SOCK_STREAM``, so the new socket is built from those constants.
"""
import socket


def accept(listener: socket.socket) -> socket.socket:
    """The next connection on ``listener``, in blocking mode; raises as ``accept()`` does."""
    fd, _ = listener._accept()  # type: ignore[attr-defined]
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fileno=fd)
    conn.setblocking(True)
    return conn
