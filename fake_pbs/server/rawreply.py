"""Replies whose data is a list of items encoded already (a large ``statjob``).

A handler may return :class:`EncodedList` instead of a list: the listener then sends
``{"ok":true,"data":[item,item,...]}`` from the items' JSON bytes, in pieces, without decoding
or re-encoding them.  The line on the wire is the one :func:`fake_pbs.protocol.encode` would
write for the same list (compact JSON, ASCII), so the commands cannot tell the difference.
"""
from typing import Any, Dict, Iterator, List

from fake_pbs.jsonwire import dumps
from fake_pbs.protocol import LineChannel

_CLOSE = b"]}\n"
_PIECE = 512  # items joined per send: bounded memory, few system calls


class EncodedList:
    """The data of a reply: each item's compact JSON (ASCII bytes), in order."""

    __slots__ = ("items",)

    def __init__(self, items: List[bytes]) -> None:
        self.items = items

    def pieces(self, rest: Dict[str, Any]) -> Iterator[bytes]:
        """The whole reply line, in pieces: the members of ``rest``, then ``data``."""
        items = self.items
        head = dumps(rest)  # '{"ok":true}': reopened to put "data" last
        yield (head[:-1] + (',"data":[' if len(head) > 2 else '"data":[')).encode("ascii")
        for start in range(0, len(items), _PIECE):
            piece = b",".join(items[start:start + _PIECE])
            yield piece if start == 0 else b"," + piece
        yield _CLOSE


def send_reply(channel: LineChannel, reply: Dict[str, Any]) -> None:
    """Send ``reply`` on ``channel``; an ok reply with :class:`EncodedList` data goes raw."""
    data = reply.get("data")
    if isinstance(data, EncodedList):
        for piece in data.pieces({k: v for k, v in reply.items() if k != "data"}):
            channel.sock.sendall(piece)
    else:
        channel.send(reply)
