"""The wire format between commands, server and moms: one JSON object per line on a Unix socket.

A request is ``{"op": <name>, ...arguments}``; its reply is ``{"ok": true, "data": ...}`` or
``{"ok": false, "code": <PBSE code>, "msg": <text>}``.  A connection carries any number of
request/reply pairs in turn.  Strings that came from bytes which are not UTF-8 travel as lone
surrogates (``surrogateescape``); JSON escapes them, so nothing is lost.

The exec protocol (server -> mom ``start``/``resume``) is the one exception to request/reply:
its reply is a stream of event lines that ends with a ``release`` event whose ``final`` is true.

Start-up cost matters here: every PBS command imports this module.  It therefore imports neither
``typing`` nor ``socket`` nor ``json`` at run time (each costs more than a whole command's work);
it uses the C modules behind them (:mod:`fake_pbs.jsonwire`, ``_socket`` in
:mod:`fake_pbs.verified_connect`) instead.
"""
from __future__ import annotations

from fake_pbs import verified_connect
from fake_pbs.jsonwire import dumps, loads
from fake_pbs.model.errors import PBSE_PROTOCOL, PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Dict, Iterator, List, Optional, Union

    Message = Dict[str, Any]
else:
    Message = dict

_MAX_LINE = 64 * 1024 * 1024
_CHUNK = 256 * 1024


def encode(msg: Message) -> bytes:
    return dumps(msg).encode("ascii") + b"\n"


def decode(line: bytes) -> Message:
    value = loads(line.decode("ascii", "surrogateescape"))
    if not isinstance(value, dict):
        raise ValueError("message is not a JSON object")
    return value


class LineChannel:
    """Reads and writes newline-framed JSON messages on a connected socket.

    Any socket object with ``recv``/``sendall``/``close`` will do (``socket.socket`` on the
    daemons' side, a bare ``_socket.socket`` in the commands).
    """

    def __init__(self, sock: Any) -> None:
        self.sock = sock
        self._pending = b""

    def send(self, msg: Message) -> None:
        self.sock.sendall(encode(msg))

    def _read_line(self) -> bytes:
        """The next line with its newline; what is left at end of stream (maybe b"")."""
        pending = self._pending
        cut = pending.find(b"\n")
        if cut >= 0:
            self._pending = pending[cut + 1:]
            return pending[:cut + 1]
        chunks: List[bytes] = [pending] if pending else []
        size = len(pending)
        while True:
            chunk = self.sock.recv(_CHUNK)
            if not chunk:
                self._pending = b""
                return b"".join(chunks)
            cut = chunk.find(b"\n")
            if cut >= 0:
                chunks.append(chunk[:cut + 1])
                self._pending = chunk[cut + 1:]
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > _MAX_LINE:
                raise ValueError("truncated or oversized message")

    def receive(self) -> Optional[Message]:
        """The next message, or None when the peer closed the connection."""
        line = self._read_line()
        if not line:
            return None
        if not line.endswith(b"\n"):
            raise ValueError("truncated or oversized message")
        return decode(line)

    def messages(self) -> Iterator[Message]:
        while True:
            msg = self.receive()
            if msg is None:
                return
            yield msg

    def close(self) -> None:
        self.sock.close()


def connect(path: Union[Path, str], timeout: Optional[float] = None) -> LineChannel:
    """A channel to the socket ``path``, which passed :mod:`fake_pbs.verified_connect`'s
    checks (else ``verified_connect.Untrusted``, an ``OSError``)."""
    return LineChannel(verified_connect.connect(str(path), timeout))


class ReplyLost(PbsError):
    """The connection closed before the reply came: the request may or may not have been
    carried out (a server killed between its commit and its reply)."""


def call(channel: LineChannel, op: str, **args: Any) -> Any:
    """Send one request and return its ``data``; raise :class:`PbsError` on an error reply."""
    request: Message = {"op": op}
    request.update(args)
    channel.send(request)
    reply = channel.receive()
    if reply is None:
        raise ReplyLost(PBSE_PROTOCOL, "Protocol failure in commit")
    if not reply.get("ok"):
        raise PbsError(int(reply.get("code", PBSE_PROTOCOL)), reply.get("msg"))
    return reply.get("data")


def call_once(path: Union[Path, str], op: str, timeout: Optional[float] = None,
              **args: Any) -> Any:
    """Connect to ``path``, send one request, and return its ``data``."""
    channel = connect(path, timeout)
    try:
        return call(channel, op, **args)
    finally:
        channel.close()


def answers(path: Union[Path, str], op: str, timeout: Optional[float] = None) -> bool:
    """Whether a daemon listens at ``path`` and answers ``op`` without an error."""
    try:
        call_once(path, op, timeout)
    except Exception:
        return False
    return True


def ok(data: Any = None) -> Message:
    return {"ok": True, "data": data}
