"""The wire format between commands, server and moms: one JSON object per line on a Unix socket.

A request is ``{"op": <name>, ...arguments}``; its reply is ``{"ok": true, "data": ...}`` or
``{"ok": false, "code": <PBSE code>, "msg": <text>}``.  A connection carries any number of
request/reply pairs in turn.  Strings that came from bytes which are not UTF-8 travel as lone
surrogates (``surrogateescape``); JSON escapes them, so nothing is lost.

The exec protocol (server -> mom ``start``/``resume``) is the one exception to request/reply:
its reply is a stream of event lines that ends with a ``release`` event whose ``final`` is true.
"""
import json
import socket
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

from fake_pbs.model.errors import PBSE_PROTOCOL, PbsError

Message = Dict[str, Any]

_MAX_LINE = 64 * 1024 * 1024


def encode(msg: Message) -> bytes:
    return json.dumps(msg, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def decode(line: bytes) -> Message:
    value = json.loads(line.decode("ascii", "surrogateescape"))
    if not isinstance(value, dict):
        raise ValueError("message is not a JSON object")
    return value


class LineChannel:
    """Reads and writes newline-framed JSON messages on a connected socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._reader = sock.makefile("rb", buffering=65536)

    def send(self, msg: Message) -> None:
        self.sock.sendall(encode(msg))

    def receive(self) -> Optional[Message]:
        """The next message, or None when the peer closed the connection."""
        line = self._reader.readline(_MAX_LINE)
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
        try:
            self._reader.close()
        finally:
            self.sock.close()


def connect(path: Path, timeout: Optional[float] = None) -> LineChannel:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        raise
    return LineChannel(sock)


def call(channel: LineChannel, op: str, **args: Any) -> Any:
    """Send one request and return its ``data``; raise :class:`PbsError` on an error reply."""
    request: Message = {"op": op}
    request.update(args)
    channel.send(request)
    reply = channel.receive()
    if reply is None:
        raise PbsError(PBSE_PROTOCOL, "Protocol failure in commit")
    if not reply.get("ok"):
        raise PbsError(int(reply.get("code", PBSE_PROTOCOL)), reply.get("msg"))
    return reply.get("data")


def ok(data: Any = None) -> Message:
    return {"ok": True, "data": data}
