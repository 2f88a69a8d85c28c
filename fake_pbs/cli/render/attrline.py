"""One attribute as ``qstat -f`` prints it: folded text, ``-w`` one-liners, or DSV pieces.

Folding follows PBS's rule (78-column limit, break at commas, continuation lines start with a
TAB), including its oddities: commas do not count towards the column, a piece too long for the
line is written character by character with a break each time the column passes 78, and empty
pieces between commas disappear.
"""
from __future__ import annotations


from fake_pbs.cli.render.values import show_nonprint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional

LINE_LIMIT = 78


def _label(name: str, resource: Optional[str]) -> str:
    return name if resource is None else "%s.%s" % (name, resource)


def folded(name: str, resource: Optional[str], value: str) -> str:
    """``    name = value`` folded at commas, without the final newline."""
    start = len(name) + 7
    if resource is not None:
        start += len(resource) + 1
    out: List[str] = ["    ", _label(name, resource), " = "]
    pieces = [piece for piece in value.split(",") if piece]
    for index, piece in enumerate(pieces):
        if len(piece) + start < LINE_LIMIT:
            out.append(show_nonprint(piece))
            start += len(piece)
        else:
            if index > 0:
                out.append("\n\t")
                start = 9
            for ch in piece:
                out.append(show_nonprint(ch))
                start += 1
                if start > LINE_LIMIT:
                    start = 8
                    out.append("\n\t")
        if index + 1 < len(pieces):
            out.append(",")
    return "".join(out)


def convert_feeds(value: str) -> str:
    """Newlines and form feeds as the two characters ``\\n`` / ``\\f`` (``-w`` and DSV)."""
    return value.replace("\n", "\\n").replace("\f", "\\f")


def one_line(name: str, resource: Optional[str], value: str) -> str:
    """``qstat -f -w``: one attribute per line, never folded."""
    text = convert_feeds(value)
    if resource is not None:
        # PBS shows resource values without the control-character conversion.
        return "    %s.%s = %s" % (name, resource, text)
    return "    %s = %s" % (name, show_nonprint(text))


def escape_delimiter(value: str, delim: str, esc: str = "\\") -> str:
    """PBS's ``escape_delimiter``: put ``esc`` before delimiters and before lone escapes."""
    if not value or not delim:
        return value
    out: List[str] = []
    i = 0
    while i < len(value):
        ch = value[i]
        nxt = value[i + 1] if i + 1 < len(value) else ""
        if (ch == esc and nxt not in ("'", '"', ",")) or (len(delim) == 1 and ch == delim):
            out.append(esc + ch)
            i += 1
        elif value.startswith(delim, i):
            out.append(esc + delim)
            i += len(delim)
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def dsv(name: str, resource: Optional[str], value: str, delim: str) -> str:
    """``qstat -f -F dsv``: ``name=value`` with the delimiter escaped inside the value."""
    text = show_nonprint(convert_feeds(escape_delimiter(value, delim)))
    return "%s=%s" % (_label(name, resource), text)
