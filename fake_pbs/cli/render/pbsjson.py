"""The JSON writer of OpenPBS 23.06 (``-F json``), bugs included.

PBS builds a flat list of nodes (object start, value, object end...) and prints it with a
4-space indent and ``"key":value``.  Reproduced on purpose, because clients meet them:

* value typing by ``strtod``: a value that is wholly a C number (trailing blanks allowed) is
  written raw, unless it starts with ``0`` and is >= 1 (``005`` stays a string).  So ``inf``,
  ``nan``, ``+5``, ``.5`` or ``0x1p3``-like values come out raw and make the document invalid;
* the partial escaping of attribute values (``JSON_ESCAPE``): a backslash and the character
  after it are copied verbatim (so ``c\\d`` is invalid JSON, transcript a19f), except that
  ``\\'`` and ``\\,`` lose the backslash; a double quote is escaped unless a backslash precedes
  it or it is the first character;
* keys are never escaped;
* when nothing opened an object under the top level (no job was shown), the last "end" closes
  the top level itself and the document ends without the final newline (transcript b11e).
"""
from __future__ import annotations

from fake_pbs.cli.render.values import show_nonprint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Tuple

    Node = Tuple[str, str, Optional[str], str]  # kind, value type, key, text
else:  # run time: the names exist, typing is not imported
    Node = object

# Node kinds and value types, named after PBS's enums.  BLOCK is the fake's own: an object
# already rendered as text at its indent (a job of ``qstat -f -F json``, see ``block``).
OBJECT, OBJECT_END, ARRAY, ARRAY_END, VALUE = "object", "end", "array", "array_end", "value"
BLOCK = "block"
NONE, STRING, INT, NUMERIC = "none", "string", "int", "numeric"
ESCAPE, FULLESCAPE = "escape", "full"

_CSPACE = " \t\n\v\f\r"
_DIGITS = frozenset("0123456789")
_NUMBER_START = frozenset("+-.0123456789iInN")
_HEX = frozenset("0123456789abcdefABCDEF")
_SPECIAL_TAIL = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


# The C number grammar strtod accepts, matched by hand: ``re`` alone costs a command more
# start-up time than rendering a job (docs/performance.md).  Each matcher says whether the
# whole of ``s`` (sign and blanks already removed) is one such number.
def _run(s: str, i: int, chars: frozenset[str]) -> int:
    while i < len(s) and s[i] in chars:
        i += 1
    return i


def _mantissa_and_exponent(s: str, i: int, digits: frozenset[str],
                           marks: str) -> bool:
    """``D+ .? D* | . D+`` from ``i``, then an optional ``[marks][+-]?[0-9]+``, to the end."""
    start = i
    i = _run(s, i, digits)
    if i > start:
        if i < len(s) and s[i] == ".":
            i = _run(s, i + 1, digits)
    elif i < len(s) and s[i] == ".":
        j = _run(s, i + 1, digits)
        if j == i + 1:
            return False
        i = j
    else:
        return False
    if i == len(s):
        return True
    if s[i] not in marks:
        return False
    i += 1
    if i < len(s) and s[i] in "+-":
        i += 1
    j = _run(s, i, _DIGITS)
    return j > i and j == len(s)


def _is_special(s: str) -> bool:
    low = s.lower()
    if low in ("inf", "infinity", "nan"):
        return True
    return (low.startswith("nan(") and low.endswith(")")
            and all(c in _SPECIAL_TAIL for c in s[4:-1]))


def _matches_c_number(text: str) -> bool:
    core = text.strip(_CSPACE)
    if core[:1] not in _NUMBER_START:  # most values: a name, a date, a path
        return False
    if core[:1] in ("+", "-"):
        core = core[1:]
    if core[:2] in ("0x", "0X") and _mantissa_and_exponent(core, 2, _HEX, "pP"):
        return True
    return _mantissa_and_exponent(core, 0, _DIGITS, "eE") or _is_special(core)


def _strtod_value(text: str) -> float:
    core = text.strip(_CSPACE)
    sign = -1.0 if core.startswith("-") else 1.0
    core = core.lstrip("+-")
    lowered = core.lower()
    if lowered.startswith("0x"):
        body = core[2:]
        if "p" not in body.lower():
            body += "p0"
        return sign * float.fromhex("0x" + body)
    if lowered.startswith("nan"):
        return float("nan")
    return sign * float(core)


def is_c_number(text: str) -> bool:
    """True when PBS 23.06 writes ``text`` as a raw JSON number (see the module doc)."""
    if not text.strip(_CSPACE) or not _matches_c_number(text):
        return False
    try:
        value = _strtod_value(text)
    except (ValueError, OverflowError):
        return False
    return text[0] != "0" or value < 1


def escape_value(text: str, mode: str) -> str:
    """PBS's ``strdup_escape``: ``mode`` ESCAPE (attribute values) or FULLESCAPE."""
    # Fast path (most values): nothing to escape.  A printable string holds none of the
    # control characters below; quote and backslash are the only other special characters.
    if text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return escape_walk(text, mode)


def escape_walk(text: str, mode: str) -> str:
    """:func:`escape_value` character by character (the general case, no fast path)."""
    out: List[str] = []
    i = 0
    n = len(text)
    controls = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    while i < n:
        ch = text[i]
        if ch in controls:
            out.append(controls[ch])
            i += 1
        elif ch == '"':
            if mode == ESCAPE:
                if i > 0 and text[i - 1] != "\\":
                    out.append("\\")
                out.append(ch)
            else:
                out.append('\\"')
            i += 1
        elif ch == "\\":
            if mode == ESCAPE:
                nxt = text[i + 1] if i + 1 < n else ""
                if nxt in ("'", ","):
                    out.append(nxt)
                    i += 2
                else:
                    out.append(ch + nxt)
                    i += 2 if nxt else 1
            else:
                out.append("\\\\")
                i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def shown_value(text: str) -> str:
    """How :func:`render_nodes` prints ``JsonDoc.value(key, text, ESCAPE)``: raw when a C
    number, else quoted, escaped and with control characters shown as ``^X``."""
    known = _SHOWN.get(text)
    if known is not None:
        return known
    if is_c_number(text):
        shown = text
    else:
        shown = '"%s"' % show_nonprint(escape_value(text, ESCAPE))
    if len(_SHOWN) < _SHOWN_LIMIT:
        _SHOWN[text] = shown
    return shown


# Values repeat across the jobs of one reply ("True", "1", "workq", dates of the same second);
# typing, escaping and showing each once saved most of the per-value work of a large
# ``qstat -f -F json`` (docs/performance.md, hotspot 8).  Bounded: a command is short-lived.
_SHOWN: Dict[str, str] = {}
_SHOWN_LIMIT = 200_000


class JsonDoc:
    """An ordered list of PBS JSON nodes; :meth:`render` prints it as PBS does.

    It also follows which containers are open (``_open``: True for an array), so that
    :meth:`indent` can say where the next member goes, for :meth:`block`.
    """

    def __init__(self) -> None:
        self.nodes: List[Node] = []
        self._open: List[bool] = []

    def open_object(self, key: str) -> None:
        self.nodes.append((OBJECT, NONE, key, ""))
        self._open.append(False)

    def close(self) -> None:
        self.nodes.append((OBJECT_END, NONE, None, ""))
        if self._open:
            self._open.pop()

    def close_with_string(self, key: str, text: str) -> None:
        """An "end" node that also carries a string (pbsnodes' ``"Error"`` entries)."""
        self.nodes.append((OBJECT_END, STRING, key, escape_value(text, FULLESCAPE)))
        if self._open:
            self._open.pop()

    def open_array(self, key: str) -> None:
        self.nodes.append((ARRAY, NONE, key, ""))
        self._open.append(True)

    def close_array(self) -> None:
        self.nodes.append((ARRAY_END, NONE, None, ""))
        if self._open:
            self._open.pop()

    def indent(self) -> int:
        """The indent of the next member (the top level's members are at 4)."""
        return 4 + 4 * len(self._open)

    def in_array(self) -> bool:
        """Whether the next member goes into an array (printed without its key)."""
        return bool(self._open) and self._open[-1]

    def block(self, text: str) -> None:
        """A whole object, already rendered at :meth:`indent` (opening line without a leading
        newline, through its closing brace), printed as the nodes it stands for would be."""
        self.nodes.append((BLOCK, NONE, None, text))

    def value(self, key: Optional[str], text: str, mode: str = ESCAPE) -> None:
        """A value typed by the strtod rule (``JSON_NULL`` in PBS)."""
        if is_c_number(text):
            self.nodes.append((VALUE, NUMERIC, key, text))
        else:
            self.nodes.append((VALUE, STRING, key, escape_value(text, mode)))

    def string(self, key: Optional[str], text: str, mode: str = FULLESCAPE) -> None:
        self.nodes.append((VALUE, STRING, key, escape_value(text, mode)))

    def integer(self, key: Optional[str], number: int) -> None:
        self.nodes.append((VALUE, INT, key, str(number)))

    def render(self) -> str:
        return render_nodes(self.nodes)


def render_nodes(nodes: List[Node]) -> str:
    """PBS's ``generate_json``, step by step (its state machine decides commas and ends)."""
    out: List[str] = ["{"]
    indent = 4
    comma = False
    levels = [0]  # indent of the innermost open array, per array depth
    for kind, vtype, key, text in nodes:
        if kind == BLOCK:  # an object's nodes, rendered already: it ends as an "end" does
            out.append(",\n" if comma else "\n")
            out.append(text)
            comma = True
            continue
        in_array = levels[-1] == indent
        ending_object = ending_array = False
        if kind in (OBJECT, ARRAY):
            out.append(",\n" if comma else "\n")
            opener = "{" if kind == OBJECT else "["
            if in_array:
                out.append(" " * indent + opener)
            else:
                out.append("%s\"%s\":%s" % (" " * indent, key, opener))
            indent += 4
            comma = False
            if kind == OBJECT:
                continue
            levels.append(indent)
        elif kind == OBJECT_END:
            ending_object = True
        elif kind == ARRAY_END:
            ending_array = True
        if vtype != NONE:
            in_array = levels[-1] == indent
            out.append(",\n" if comma else "\n")
            if vtype == STRING:
                shown = '"%s"' % show_nonprint(text)
            else:
                shown = text
            if in_array:
                out.append(" " * indent + shown)
            else:
                out.append("%s\"%s\":%s" % (" " * indent, key, shown))
            comma = True
        if ending_array:
            indent -= 4
            out.append("\n%s]" % (" " * indent))
            levels.pop()
            comma = True
        elif ending_object:
            indent -= 4
            out.append("\n%s}" % (" " * indent))
            comma = True
    indent -= 4
    if indent == 0:
        out.append("\n}\n")
    return "".join(out)
