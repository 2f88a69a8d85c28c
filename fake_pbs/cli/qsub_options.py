"""qsub's options -> job attributes, with PBS's precedence (OpenPBS 23.06 ``process_opts``).

Levels: the command line is 3, script directives 2.  An option sets its attribute only when its
level is at least the level that set it before, so the command line beats directives and, within
one level, the last occurrence wins.  ``-l`` is the exception: command-line resources always
replace, directive resources only fill in what is missing (``set_resources``).

Values are stored as typed here; :mod:`fake_pbs.cli.qsub_verify` checks and normalizes them
afterwards, as PBS's ECL does when the job is submitted.
"""
from __future__ import annotations

import sys
import time

from fake_pbs.cli import qsub_env
from fake_pbs.cli.posix_getopt import Options
from fake_pbs.model import ecl
from fake_pbs.model.errors import PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Mapping, Optional, Tuple

    Pairs = List[Tuple[str, str]]
else:  # run time: the names exist, typing is not imported
    Pairs = object


CMDLINE = 3
DIRECTIVE = 2
SERVER_DEFAULT = 1  # the server's default_qsub_arguments (qsub.c do_submit: CMDLINE - 2)

GETOPT_SPEC = "a:A:c:C:e:fhIj:J:k:l:m:M:N:o:p:q:r:R:S:u:v:VW:XzP:G"

# Options that simply set one attribute to their argument.
SIMPLE_ATTRS = {
    "A": "Account_Name", "P": "project", "e": "Error_Path", "j": "Join_Path",
    "k": "Keep_Files", "M": "Mail_Users", "o": "Output_Path", "R": "Remove_Files",
    "S": "Shell_Path_List", "u": "User_List",
}
STRIPPED_ATTRS = {"m": "Mail_Points", "p": "Priority", "c": "Checkpoint"}

# -W keywords with their own precedence slot; others are set as given.
W_TRACKED = {"depend", "stagein", "stageout", "sandbox", "group_list",
             "tolerate_node_failures", "umask", "run_count"}

BAD_W = "qsub: illegal -W value"
NO_RERUN_ARRAY = "qsub:  cannot submit non-rerunable Array Job"
MULTIPLE_MAX_RUN = "qsub: multiple max_run_subjobs values found"
INTERACTIVE_NO_TTY = ("qsub:\tstandard input and output must be a terminal for\n"
                      "\tinteractive job submission")
INTER_ARRAY = "qsub: interactive and array job submission cannot be used together"
INTER_BLOCK_WARN = ('qsub (Warning) : setting "block" attribute as "true" for an interactive job '
                    "will not return job's exit status\n")
INTER_RERUN_WARN = "qsub (Warning): Interactive jobs will be treated as not rerunnable\n"
X11_NOT_INTERACTIVE = "qsub: X11 Forwarding possible only for interactive jobs"
X11_UNSUPPORTED = "qsub: X11 forwarding (-X) is not supported by fake_pbs"


class QsubExit(Exception):
    """qsub stops at once: print ``message`` (if any) on stderr and exit with ``code``."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class QsubState:
    """Everything qsub's options decided, before defaults and verification."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.attrs: Dict[str, str] = {}
        self.resources: Dict[str, str] = {}
        self.levels: Dict[str, int] = {}
        self.errors: List[str] = []
        self.prefix: Optional[str] = None
        self.destination = ""
        self.v_value: Optional[str] = None
        self.export_all = False
        self.quiet = False
        self.block = False
        self.rerun = "y"
        self.rerun_y = False  # -r y given: a later -I warns (qsub.c roptarg_inter)
        self.interactive = False
        self.x11 = 0  # the level -X was given at (0: not given)
        self.array = False
        self.max_run_set = False

    def _may(self, key: str, level: int) -> bool:
        if self.levels.get(key, 0) <= level:
            self.levels[key] = level
            return True
        return False

    def given(self, key: str) -> bool:
        return key in self.levels

    def apply(self, opts: Options, level: int) -> int:
        """Apply parsed options at ``level``; returns the number of errors (messages queued)."""
        before = len(self.errors)
        for letter, value in opts:
            self._one(letter, value, level)
        return len(self.errors) - before

    def _one(self, letter: str, value: str, level: int) -> None:
        if letter in SIMPLE_ATTRS:
            if self._may(letter, level):
                self.attrs[SIMPLE_ATTRS[letter]] = value
        elif letter in STRIPPED_ATTRS:
            if letter == "c" and value.strip() == "u":
                self.errors.append("qsub: illegal -c value")
            elif self._may(letter, level):
                self.attrs[STRIPPED_ATTRS[letter]] = value.lstrip()
        elif letter == "a":
            if self._may(letter, level):
                try:
                    self.attrs["Execution_Time"] = str(ecl.parse_exec_time(value, time.time()))
                except PbsError:
                    self.errors.append("qsub: illegal -a value")
        elif letter == "C":
            if self._may(letter, level):
                self.prefix = value
        elif letter == "h":
            if self._may(letter, level):
                self.attrs["Hold_Types"] = "u"
        elif letter == "N":
            if self._may(letter, level):
                self.attrs["Job_Name"] = value
        elif letter == "q":
            if self._may(letter, level):
                self.destination = value
        elif letter == "l":
            self._resources(value, level)
        elif letter == "J":
            self._array(value, level)
        elif letter == "r":
            self._rerun(value, level)
        elif letter == "v":
            if self._may(letter, level):
                try:
                    self.v_value = qsub_env.expand_v(value, self.env)
                except qsub_env.EnvError:
                    raise QsubExit("qsub: cannot send environment with the job", 1) from None
        elif letter == "V":
            if self._may(letter, level):
                self.export_all = True
        elif letter == "W":
            self._w(value, level)
        elif letter == "z":
            if self._may(letter, level):
                self.quiet = True
        elif letter == "I":
            if self.array:
                self.errors.append(INTER_ARRAY)
            elif self._may(letter, level):
                self._interactive()
        elif letter == "X":
            if self._may(letter, level):
                self.x11 = level
                if "DISPLAY" not in self.env:
                    self.errors.append("qsub: DISPLAY not set")
        # -f (no background daemon) and -G change nothing for the fake.

    def _interactive(self) -> None:
        """``-I`` or ``-W interactive=true`` (qsub.c: interactive_port, at once: no terminal
        ends qsub with rc 1 before anything else, I03)."""
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise QsubExit(INTERACTIVE_NO_TTY, 1)
        self.interactive = True
        if self.block:
            sys.stderr.write(INTER_BLOCK_WARN)
            self.block = False
        if self.rerun_y:
            sys.stderr.write(INTER_RERUN_WARN)

    def check_x11(self) -> None:
        """After all options: ``-X`` on the command line needs ``-I``; with it, the fake has
        no X11 forwarding to give (refused: docs/differences.md)."""
        if self.x11 == CMDLINE and not self.interactive:
            raise QsubExit(X11_NOT_INTERACTIVE, 1)
        if self.x11 and self.interactive:
            raise QsubExit(X11_UNSUPPORTED, 1)

    def _resources(self, value: str, level: int) -> None:
        pairs = parse_resource_list(value)
        if pairs is None:
            self.errors.append("qsub: illegal -l value")
            return
        self.levels.setdefault("l", level)
        for name, val in pairs:
            if level == CMDLINE or name not in self.resources:
                self.resources.pop(name, None)
                self.resources[name] = val

    def _array(self, value: str, level: int) -> None:
        if self.interactive:
            self.errors.append(INTER_ARRAY)
            return
        if self.rerun != "y":
            self.errors.append(NO_RERUN_ARRAY)
            return
        if not self._may("J", level):
            return
        self.array = True
        rng, pct, max_run = value.partition("%")
        self.attrs["array_indices_submitted"] = rng
        if pct:
            if self.max_run_set:
                self.errors.append(MULTIPLE_MAX_RUN)
                return
            self.max_run_set = True
            self.attrs["max_run_subjobs"] = max_run

    def _rerun(self, value: str, level: int) -> None:
        if not self._may("r", level):
            return
        if value not in ("y", "n"):
            self.errors.append("qsub: illegal -r value")
        elif value == "n" and self.array:
            self.errors.append(NO_RERUN_ARRAY)
        else:
            if value == "y":
                self.rerun_y = True
                if self.interactive:
                    sys.stderr.write(INTER_RERUN_WARN)
            self.rerun = value
            self.attrs["Rerunable"] = value

    def _w(self, value: str, level: int) -> None:
        value = value.lstrip()
        pairs = parse_equal_list(value) if value else None
        if pairs is None:
            self.errors.append(BAD_W)
            return
        for key, val in pairs:
            if key in ("block", "interactive"):
                folded = val.lower()
                if folded not in ("true", "false"):
                    self.errors.append(BAD_W)
                    return
                if key == "interactive":
                    if folded == "true" and self._may("I", level):
                        self._interactive()
                elif folded == "true" and self._may("W:block", level):
                    if self.interactive:
                        sys.stderr.write(INTER_BLOCK_WARN)
                    else:
                        self.block = True
            elif key == "max_run_subjobs":
                if self.max_run_set:
                    self.errors.append(MULTIPLE_MAX_RUN)
                    return
                self.max_run_set = True
                self.attrs[key] = val
            elif key not in W_TRACKED or self._may("W:" + key, level):
                self.attrs[key] = val

    def check_mail_j(self) -> Optional[str]:
        """PBS refuses ``-m j`` without ``-J`` at the end of each option pass."""
        if not self.array and "j" in self.attrs.get("Mail_Points", ""):
            return "qsub: mail option 'j' can not be used without array job"
        return None


def parse_resource_list(text: str) -> Optional[Pairs]:
    """``res=value[,res=value...]`` as ``set_resources`` reads it; None on a syntax error.

    Values may be quoted (quotes removed, commas kept inside them); a name without ``=`` gets
    an empty value, which qsub's verification drops (a13: the resource is left unset).
    """
    pairs: Pairs = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        start = i
        while i < n and text[i] not in "=,":
            i += 1
        name = text[start:i].split()[0] if text[start:i].strip() else ""
        if not name:
            return None
        value = ""
        if i < n and text[i] == "=":
            i += 1
            while i < n and text[i].isspace():
                i += 1
            parsed = _quoted_value(text, i)
            if parsed is None:
                return None
            value, i = parsed
        pairs.append((name, value))
        if i < n and text[i] == ",":
            i += 1
            if i >= n:
                return None
    return pairs


def _quoted_value(text: str, i: int) -> Optional[Tuple[str, int]]:
    """One value up to an unquoted comma; quotes group and are removed; no blanks outside."""
    out: List[str] = []
    n = len(text)
    while i < n and text[i] != ",":
        char = text[i]
        if char in "\"'":
            end = text.find(char, i + 1)
            if end < 0:
                return None
            out.append(text[i + 1:end])
            i = end + 1
        elif char.isspace() or char == "&":
            return None
        else:
            out.append(char)
            i += 1
    return "".join(out), i


def parse_equal_list(text: str) -> Optional[Pairs]:
    """``-W`` text: ``name=value[,name=value...]``; None when malformed."""
    pairs: Pairs = []
    for part in _split_top_commas(text):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or not name:
            return None
        pairs.append((name, value.strip()))
    return pairs


def _split_top_commas(text: str) -> List[str]:
    """Split ``a=1,b=x:y,z`` on commas that start a new ``name=``; a depend list keeps its own
    commas (``depend=afterok:1,afterany:2``)."""
    parts: List[str] = []
    for piece in text.split(","):
        head = piece.split("=", 1)[0]
        if parts and ("=" not in piece or ":" in head):
            parts[-1] += "," + piece
        else:
            parts.append(piece)
    return parts
