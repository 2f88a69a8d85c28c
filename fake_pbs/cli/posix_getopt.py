"""``getopt(3)`` as glibc's behaves for the PBS commands (which are linked against it).

glibc permutes: options may follow operands (``qstat 12 -f`` works) until ``--``; letters
group (``-Qf``); an argument is glued or in the next word; its messages
(``qstat: invalid option -- 'Z'``, transcript a11) are written to stderr by the caller.

:func:`getopt` collects every error (qstat, pbsnodes and tracejob count them, then print usage);
:func:`strict` raises the first as :class:`OptionError` (qsub and the job-control commands).
"""
from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Tuple

    Option = Tuple[str, Optional[str]]
    Options = List[Tuple[str, str]]
else:  # run time: the names exist, typing is not imported
    Option = object
    Options = object


class GetoptResult:
    """Parsed options in order, the operands, and glibc's error messages (if any)."""

    def __init__(self) -> None:
        self.options: List[Option] = []
        self.operands: List[str] = []
        self.errors: List[str] = []


class OptionError(Exception):
    """A bad option; ``message`` is glibc's complaint (already prefixed with the command)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def getopt(cmd: str, argv: List[str], spec: str, permute: bool = True) -> GetoptResult:
    """Parse ``argv`` (without the program name) against ``spec`` (``"ab:c"``).

    An unknown letter or a missing argument becomes the option ``"?"`` and a message in
    ``errors``, so the caller can keep PBS's "count the errors, then print usage" logic.
    Without ``permute`` parsing stops at the first operand, and a ``--`` that ends the options
    is kept as the first operand (qsub tells ``-- command`` from a script by it).
    """
    result = GetoptResult()
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1 if permute else 0
            break
        if not word.startswith("-") or word == "-":
            if not permute:
                break
            result.operands.append(word)
            i += 1
            continue
        j = 1
        while j < len(word):
            letter = word[j]
            where = spec.find(letter) if letter != ":" else -1
            if where < 0:
                result.errors.append("%s: invalid option -- '%s'" % (cmd, letter))
                result.options.append(("?", None))
                j += 1
                continue
            takes_arg = spec[where + 1:where + 2] == ":"
            if not takes_arg:
                result.options.append((letter, None))
                j += 1
                continue
            if j + 1 < len(word):
                result.options.append((letter, word[j + 1:]))
            elif i + 1 < len(argv):
                i += 1
                result.options.append((letter, argv[i]))
            else:
                result.errors.append("%s: option requires an argument -- '%s'" % (cmd, letter))
                result.options.append(("?", None))
            break
        i += 1
    result.operands.extend(argv[i:])
    return result


def strict(argv: List[str], spec: str, cmd: str,
           permute: bool = False) -> Tuple[Options, List[str]]:
    """``([(letter, value or ""), ...], operands)``, or :class:`OptionError` with the first
    complaint."""
    result = getopt(cmd, argv, spec, permute)
    if result.errors:
        raise OptionError(result.errors[0])
    return [(letter, value or "") for letter, value in result.options], result.operands
