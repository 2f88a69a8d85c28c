"""One record, one line: what every daemon log writer (server, scheduler, accounting, mom) does
to the values it writes.

Control characters are written as ``^X`` (as PBS's commands show them, show_nonprint_chars; DEL
is ``^?``) and Unicode line separators as ``<U+XXXX>``, so no value a user chose (a job name,
``-A``, ``-P``, a path, a comment) can end a record early or forge the next one.  Tabs stay.
"""
import re

_BREAKING = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")


def _shown(char: "re.Match[str]") -> str:
    code = ord(char.group())
    if code < 0x20:
        return "^" + chr(code + 64)
    return "^?" if code == 0x7F else "<U+%04X>" % code


def one_line(text: str) -> str:
    """``text`` with nothing in it that a reader of the log could take for a line break."""
    return _BREAKING.sub(_shown, text) if _BREAKING.search(text) else text
