"""Reading the JSON that ``qstat -f -F json`` prints, including the invalid JSON of real servers.

OpenPBS up to 23.06 writes its JSON by hand and gets it wrong in known ways (openpbs PR #2049,
#1255, PR #830; fidelity transcripts a19d/a19f): backslashes are copied unescaped (``"c\\d"``
becomes ``"c\\d"`` with a single backslash, an invalid escape), double quotes inside values may
be left unescaped, and values that look like numbers (``00``, ``+5``, ``.5``, ``inf``) are
written bare. The layout, however, is reliable: one attribute per line, ``"key":value`` with a
trailing comma, nested objects opened by ``"key":{`` and closed by ``}``. So when the strict
decoder fails, a line-oriented reader recovers every attribute, and only the broken values are
read as plain strings.
"""
import json
import re
from typing import Any, Dict, List, Optional, Tuple

_VALID_ESCAPES = {'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r',
                  't': '\t'}
_HEX4 = re.compile(r'[0-9a-fA-F]{4}')


def split_leading_json(text: str) -> Tuple[Optional[Dict[str, Any]], str]:
    """Separate the JSON object that starts ``text`` from whatever follows it.

    ``text`` is qstat's stdout, possibly followed by its stderr (PSI/J merges both as
    ``stdout + '\\n' + stderr`` when qstat fails).

    Parameters
    ----------
    text
        The command output.

    Returns
    -------
    The decoded object (None if ``text`` does not start with one) and the remaining text.
    """
    start = len(text) - len(text.lstrip())
    if not text.startswith('{', start):
        return None, text
    try:
        obj, end = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return _lenient_decode(text, start)
    if not isinstance(obj, dict):
        return None, text
    return obj, text[end:]


def _lenient_decode(text: str, start: int) -> Tuple[Optional[Dict[str, Any]], str]:
    """Decode a pretty-printed qstat JSON object line by line (see the module docstring)."""
    lines = text[start:].split('\n')
    root: Dict[str, Any] = {}
    stack: List[Dict[str, Any]] = []
    for index, raw_line in enumerate(lines):
        line = raw_line.strip()
        if not stack:
            if line != '{':
                return None, text
            stack.append(root)
            continue
        if line in ('}', '},'):
            stack.pop()
            if not stack:
                return root, '\n'.join(lines[index + 1:])
            continue
        parsed = _split_member(line)
        if parsed is None:
            continue  # not something qstat writes; skip it rather than fail every job
        key, raw_value = parsed
        if raw_value == '{':
            child: Dict[str, Any] = {}
            stack[-1][key] = child
            stack.append(child)
        else:
            stack[-1][key] = _decode_value(raw_value)
    # Unterminated object (truncated output): keep what was read.
    return (root if stack else None), ''


def _split_member(line: str) -> Optional[Tuple[str, str]]:
    if not line.startswith('"'):
        return None
    colon = line.find('":', 1)
    if colon < 0:
        return None
    key = line[1:colon]
    value = line[colon + 2:].strip()
    return key, value


def _decode_value(raw: str) -> Any:
    """Decode one member value; a broken one is returned as the string it most likely meant."""
    if raw.startswith('"'):
        if len(raw) >= 3 and raw.endswith('",'):
            return _decode_string(raw[1:-2])
        if len(raw) >= 2 and raw.endswith('"'):
            return _decode_string(raw[1:-1])
        return _decode_string(raw[1:].rstrip(','))
    bare = raw[:-1] if raw.endswith(',') else raw
    try:
        return json.loads(bare)
    except ValueError:
        return bare


def _decode_string(inner: str) -> str:
    """Decode a JSON string body, keeping invalid escapes and stray quotes literally."""
    out: List[str] = []
    i = 0
    while i < len(inner):
        char = inner[i]
        if char != '\\' or i + 1 == len(inner):
            out.append(char)
            i += 1
            continue
        nxt = inner[i + 1]
        if nxt in _VALID_ESCAPES:
            out.append(_VALID_ESCAPES[nxt])
            i += 2
        elif nxt == 'u' and _HEX4.fullmatch(inner, i + 2, i + 6):
            out.append(chr(int(inner[i + 2:i + 6], 16)))
            i += 6
        else:
            # PBS copied a backslash from the value without escaping it: it was literal.
            out.append('\\')
            i += 1
    return ''.join(out)
