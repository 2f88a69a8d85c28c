"""What pbs_rsub, pbs_rstat, pbs_rdel and pbs_ralter share: reservation ids as PBS's
``get_server`` reads them, glibc getopt's messages in order, and the server's status records.
"""
from __future__ import annotations

from fake_pbs.cli import jobctl
from fake_pbs.model.errors import PBSE_BADHOST

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator, List, Optional, Tuple

    from fake_pbs.cli.posix_getopt import GetoptResult


def qualify(resv_id: str) -> Optional[str]:
    """``R875`` -> ``R875.vm`` (also ``R875@vm``); None for another server's id or ``@server``
    (``illegally formed reservation identifier``: docs/differences.md)."""
    name, at, server = resv_id.strip(" ").partition("@")
    if jobctl.foreign(name) or (at and jobctl.foreign("0." + server)):
        return None
    return jobctl.qualify(name)


def other_server(cmd: str, dest: Optional[str]) -> Optional[str]:
    """``-q @server`` naming another server than this cluster's: the message (PBS would
    connect there; a fake cluster has one server), else None."""
    if dest is None or not jobctl.foreign("0." + dest):
        return None
    return "%s: cannot connect to server %s (errno=%d)\n" % (cmd, dest, PBSE_BADHOST)


def options_in_order(result: GetoptResult) -> Iterator[Tuple[str, str, Optional[str]]]:
    """``(letter, value, message)``: glibc's complaint travels with its ``?`` option, so a
    command prints it among its own messages in argument order."""
    errors = iter(result.errors)
    for letter, value in result.options:
        yield letter, value or "", next(errors, None) if letter == "?" else None


def pairs(record: Any) -> List[Tuple[str, str]]:
    """A status record's attributes as ``(name, value)`` (a list of pairs or a mapping)."""
    raw = record.get("attrs", []) if isinstance(record, dict) else []
    if isinstance(raw, dict):
        return [(str(k), str(v)) for k, v in raw.items()]
    return [(str(item[0]), str(item[1])) for item in raw]


def strtol(text: str) -> Optional[int]:
    """C ``strtol(text, &end, 0)`` when it reads all of ``text`` (leading blanks, a sign, then
    ``0x`` hex, ``0`` octal or decimal digits), else None (``*end`` is not the final NUL)."""
    body = text.lstrip(" \t\n\v\f\r")
    sign = -1 if body[:1] == "-" else 1
    if body[:1] in ("+", "-"):
        body = body[1:]
    if body[:2].lower() == "0x":
        digits, base, valid = body[2:], 16, "0123456789abcdefABCDEF"
    elif body[:1] == "0":
        digits, base, valid = body, 8, "01234567"
    else:
        digits, base, valid = body, 10, "0123456789"
    if not digits or any(c not in valid for c in digits):
        return None
    return sign * int(digits, base)
