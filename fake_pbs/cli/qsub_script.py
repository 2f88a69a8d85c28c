"""Finding ``#PBS`` directives in a job script, as qsub's ``get_script`` and ``make_argv`` do.

Rules (OpenPBS 23.06 ``qsub_sup.c``/``check_job_script.c``, extra transcripts j15/j16):

- a directive is a line whose first non-blank text starts with the prefix (``#PBS``, ``-C``,
  or ``$PBS_DPREFIX``); an empty prefix (``-C ""``) disables directives;
- a directive ending in ``\\`` (and blanks) continues on the next line;
- scanning stops at the first executable line: one whose first non-blank character is not
  ``#``; lines starting with ``:`` or ``#!`` and blank lines do not stop it;
- the text after the prefix is split into words: blanks separate, quotes group (and are
  removed), a backslash takes the next character literally.
"""
from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator, List, Tuple

DEFAULT_PREFIX = "#PBS"


class UnmatchedQuote(Exception):
    """A directive has an opening quote without its closing one."""


def split_words(text: str) -> List[str]:
    """Split a directive's option text into words (qsub's ``make_argv``)."""
    words: List[str] = []
    current: List[str] = []
    in_word = False
    i, n = 0, len(text)
    while i < n and text[i].isspace():
        i += 1
    while i < n:
        char = text[i]
        if char in "\"'":
            end = text.find(char, i + 1)
            if end < 0:
                raise UnmatchedQuote()
            current.append(text[i + 1:end])
            in_word = True
            i = end + 1
        elif char == "\\":
            current.append(text[i + 1:i + 2])
            in_word = True
            i += 2
        elif char.isspace():
            words.append("".join(current))
            current, in_word = [], False
            while i < n and text[i].isspace():
                i += 1
        else:
            current.append(char)
            in_word = True
            i += 1
    if in_word or current:
        words.append("".join(current))
    return words


def _is_executable(line: str) -> bool:
    if line.startswith(":") or line.startswith("#!"):
        return False
    stripped = line.lstrip()
    return bool(stripped) and not stripped.startswith("#")


def _continued(line: str) -> Tuple[str, bool]:
    body = line.rstrip()
    if body.endswith("\\"):
        return body[:-1], True
    return line, False


def directives(script: str, prefix: str) -> Iterator[str]:
    """Yield the option text of each directive (what follows the prefix), in order."""
    if not prefix:
        return
    lines = script.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        stripped = line.lstrip()
        if stripped.startswith(prefix):
            text, more = _continued(stripped[len(prefix):])
            while more and i < len(lines):
                extra, more = _continued(lines[i])
                text += extra
                i += 1
            yield text
        elif _is_executable(line):
            return
