"""A getopt that fails the way glibc's does, for qsub and the job-control commands.

PBS commands use the C library's ``getopt``; their option errors are glibc's texts
(``qsub: invalid option -- 'Z'``, transcript a11) followed by the command's usage.
"""
from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Tuple

    Options = List[Tuple[str, str]]
else:  # run time: the names exist, typing is not imported
    Options = object


class OptionError(Exception):
    """A bad option; ``message`` is glibc's complaint (already prefixed with the command)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def getopt(argv: List[str], spec: str, prog: str,
           permute: bool = False) -> Tuple[Options, List[str]]:
    """Parse ``argv`` (without the program name) against a getopt ``spec`` such as ``"a:hz"``.

    Returns ``([(letter, value), ...], operands)``.  Without ``permute`` parsing stops at the
    first operand and a ``--`` that ends the options is kept as the first operand, so that qsub
    can tell ``-- command`` from a script.  With ``permute`` (glibc's default), options after
    operands are still parsed, as ``qdel 1.vm -x`` expects, and ``--`` is dropped.
    """
    opts: Options = []
    operands: List[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            operands.extend(argv[i + 1:] if permute else argv[i:])
            break
        if not arg.startswith("-") or arg == "-":
            if not permute:
                operands.extend(argv[i:])
                break
            operands.append(arg)
            i += 1
            continue
        pos = 1
        while pos < len(arg):
            letter = arg[pos]
            where = spec.find(letter)
            if letter == ":" or where < 0:
                raise OptionError("%s: invalid option -- '%s'" % (prog, letter))
            if spec[where + 1:where + 2] == ":":
                value: Optional[str] = arg[pos + 1:] or None
                if value is None:
                    i += 1
                    if i >= len(argv):
                        raise OptionError(
                            "%s: option requires an argument -- '%s'" % (prog, letter))
                    value = argv[i]
                opts.append((letter, value))
                break
            opts.append((letter, ""))
            pos += 1
        i += 1
    return opts, operands
