"""Normalization of command output before a transcript and the fake's output are compared.

The rules are exactly those of the transcripts' README (see docs/fidelity.md), nothing more:
everything they do not mention -- field order, spacing, tabs, trailing newlines, exit codes,
wording -- is behaviour and must match byte for byte.

Two stages:

1. ``fake_to_golden`` (fake side only) turns what is specific to this machine back into what the
   capture machine had: the fake's server name and this host's names -> ``vm``; literal strings
   of the test set-up (the PATH shim directories, homes, FAKE_PBS_HOME, the hook directory, user
   names) -> the capture's; the fake's job numbers -> the transcript's (:class:`JobMap`).
2. ``mask`` (both sides) replaces values that legitimately differ between two runs of the same
   PBS with placeholders: times, pids, session ids, socket numbers, used resources, and the
   ``PBS_O_*`` values that come from the submitter's environment.
"""
import re
from typing import Callable, List, Match, Optional, Pattern, Sequence, Tuple

from .jobids import JobMap

_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"

Rule = Tuple[str, Pattern[str], str]

# Each rule: (name, pattern, replacement).  Order matters only where noted.
RULES: List[Rule] = [
    # ctime(3) dates: "Sat Nov 21 19:52:14 2026" (qstat -f, pbsnodes, comments, Execution_Time).
    ("ctime", re.compile(_DAY + r" " + _MONTH + r" [ \d]\d \d\d:\d\d:\d\d \d{4}"), "<CTIME>"),
    # The scheduler's comments: "Job run at Sat Nov 21 at 19:52 on ...".
    ("comment_time", re.compile(r"(" + _DAY + r" " + _MONTH + r" [ \d]?\d) at \d\d:\d\d\b"),
     r"<DAY> at <HH:MM>"),
    # Log and tracejob line stamps: "11/21/2026 19:59:12".
    ("log_time", re.compile(r"\b\d\d/\d\d/\d{4} \d\d:\d\d:\d\d\b"), "<LOGTIME>"),
    # Epoch seconds: JSON "timestamp", pbsnodes -F json times, accounting ctime=/start=/end=.
    ("epoch", re.compile(r"(?<![\w.])1[5-9]\d{8}(?![\w.])"), "<EPOCH>"),
    # Used resources, text and log forms: "resources_used.cput = 00:00:01", "...walltime=00:00:02".
    ("resources_used", re.compile(
        r"(resources_used\.(?:cput|mem|vmem|cpupercent|walltime))( = |=)[^\s,\"]+"),
     r"\1\2<USED>"),
    # The mom's usage lines: "task 00000001 cput=00:00:00", "vm cput=00:00:00 mem=0kb".
    ("mom_usage", re.compile(r"(?<![\w.:])cput=[^\s,]+(?: mem=[^\s,]+)?"), "cput=<USED>"),
    # Elapsed time of stage-out: "Staged 2/2 items out over 0:00:00".
    ("stage_time", re.compile(r"(items (?:out|in) over )\d+:\d\d:\d\d"), r"\1<ELAPSED>"),
    # Session ids and pids.
    ("session_id", re.compile(r"(session_id(?: = |\":))\d+"), r"\1<SID>"),
    ("sid_is", re.compile(r"(SID is: )\d+"), r"\1<SID>"),
    ("pid", re.compile(r"(\bpid ?= ?)\d+"), r"\1<PID>"),
    ("session_acct", re.compile(r"(?<![\w.])(session=)\d+"), r"\1<SID>"),
    # mkstemp's part of the temporary file qmgr hands a hook import (m01e, m09d):
    # "</var/spool/pbs/server_priv/hooks/tmp/qmgr_hook27693AjSPbx.tmp>" -- pid and 6 characters.
    ("hook_tmp", re.compile(r"(\bqmgr_hook)\d+[A-Za-z0-9]{6}(\.tmp\b)"), r"\1<TMP>\2"),
    # Socket numbers in server logs: "request received from pbsuser@vm, sock=19".
    ("sock", re.compile(r"(\bsock=)\d+"), r"\1<SOCK>"),
    # Job cookies (extra set: PBS_JOBCOOKIE=...).
    ("cookie", re.compile(r"(PBS_JOBCOOKIE=)[0-9A-Fa-f]+"), r"\1<COOKIE>"),
    # PBS_O_* values copied from the submitter's environment (text values may wrap: "\n\t").
    ("pbs_o_env", re.compile(
        r"(PBS_O_(?:PATH|HOME|SHELL|LANG|TZ)(?:=|\":\"))((?:[^,\n\"\\]|\\.|\n\t)*)"),
     r"\1<ENV>"),
]

# qstat's default table: "13.vm  sleeper  pbsuser  00:00:00 R workq" -- the used cput.
_QSTAT_USED = re.compile(r"(?m)^(\S+ +\S+ +\S+ +)(\d+:\d\d:\d\d)( [A-Z] \S+ *)$")
# qstat -a/-s/-n tables: SessID (column 5) and Elap Time (column 11), whatever follows it on
# the row: nothing, or with -1 the nodes (-n) and the comment (-s) (k08c, k08k, k08l).
_QSTAT_A_ROW = re.compile(
    r"(?m)^(\S+ +\S+ +\S+ +\S+)( +)(\d+|--)( +\S+ +\S+ +\S+ +\S+ +[A-Z] +)(\d+:\d\d|--)"
    r"((?: .*)?)$")
# JSON resources_used objects: every value in them is a used amount.
_JSON_USED_BLOCK = re.compile(r"(\"resources_used\":\{)([^{}]*)(\})")
_JSON_USED_VALUE = re.compile(r"(\"(?:cput|mem|vmem|cpupercent|walltime)\":)(\"[^\"]*\"|\d+)")


def _mask_qstat_a(match: Match[str]) -> str:
    """Mask a SessID number keeping its right-aligned field width; mask the Elap Time."""
    field = match.group(2) + match.group(3)
    sid = field if match.group(3) == "--" else " " * max(1, len(field) - 5) + "<SID>"
    elapsed = match.group(5)
    return "%s%s%s%s%s" % (match.group(1), sid, match.group(4),
                           "--" if elapsed == "--" else "<ELAP>", match.group(6))


def _mask_json_used(match: Match[str]) -> str:
    return match.group(1) + _JSON_USED_VALUE.sub(r"\1<USED>", match.group(2)) + match.group(3)


def mask(text: str) -> str:
    """Replace run-to-run values (times, pids, used resources, env) with placeholders."""
    text = _JSON_USED_BLOCK.sub(_mask_json_used, text)
    for _name, pattern, replacement in RULES:
        text = pattern.sub(replacement, text)
    text = _QSTAT_USED.sub(r"\1<CPUT>\3", text)
    return _QSTAT_A_ROW.sub(_mask_qstat_a, text)


def wrap_tolerant(literal: str) -> Pattern[str]:
    """A pattern for ``literal`` that also matches it split by qstat's line wrap ("\\n\\t")."""
    return re.compile(r"(?:\n\t)?".join(re.escape(ch) for ch in literal))


class Normalizer:
    """Normalizes the fake's output and the transcript's for one cluster set-up.

    Parameters
    ----------
    substitutions:
        (fake string, transcript string) pairs, longest first: shim directories, homes,
        FAKE_PBS_HOME, hook directory, user names when they differ.
    host_names:
        this machine's names (short and long), shown as ``vm`` in the transcripts.
    server_name:
        the fake's server name (``vm`` in conformance mode).
    golden_server:
        the transcripts' server and host name.
    """

    def __init__(self, substitutions: Sequence[Tuple[str, str]] = (),
                 host_names: Sequence[str] = (), server_name: str = "vm",
                 golden_server: str = "vm") -> None:
        self.golden_server = golden_server
        pairs = [(a, b) for a, b in substitutions if a and a != b]
        pairs.sort(key=lambda pair: len(pair[0]), reverse=True)
        self._literals: List[Tuple[Pattern[str], str]] = [
            (wrap_tolerant(a) if len(a) >= 4 else re.compile(r"\b%s\b" % re.escape(a)), b)
            for a, b in pairs if "/" in a]
        # User names (no "/"): a stand-in of another length than the transcript's user shifts
        # the columns of qstat's tables, so the run of spaces after it is adjusted too.
        self._names: List[Tuple[Pattern[str], str]] = [
            (re.compile((wrap_tolerant(a).pattern if len(a) >= 4
                         else r"\b%s\b" % re.escape(a)) + "( *)"), b)
            for a, b in pairs if "/" not in a]
        names = sorted({n for n in list(host_names) + [server_name] if n and n != golden_server},
                       key=len, reverse=True)
        self._hosts: Optional[Pattern[str]] = (
            re.compile(r"(?<![\w\-])(?:%s)(?![\w\-])" % "|".join(re.escape(n) for n in names))
            if names else None)

    def fake_to_golden(self, text: str, jobs: Optional[JobMap] = None) -> str:
        """Stage 1 on the fake's output: machine-specific strings and job numbers."""
        for pattern, replacement in self._literals:
            text = pattern.sub(_literal(replacement), text)
        for pattern, replacement in self._names:
            text = pattern.sub(_aligned(replacement), text)
        if self._hosts is not None:
            text = self._hosts.sub(self.golden_server, text)
        if jobs is not None:
            text = jobs.to_golden(text)
        return text

    def golden(self, text: str) -> str:
        """The transcript's text, masked."""
        return mask(text)

    def fake(self, text: str, jobs: Optional[JobMap] = None) -> str:
        """The fake's text, brought to the capture machine's terms and masked."""
        return mask(self.fake_to_golden(text, jobs))


def _literal(replacement: str) -> Callable[[Match[str]], str]:
    return lambda _match: replacement


def _aligned(replacement: str) -> Callable[[Match[str]], str]:
    """``replacement`` for a user name, keeping a table's next column where it was: a run of
    two or more spaces after the name (a padded column) absorbs the difference in length."""
    def sub(match: Match[str]) -> str:
        spaces = match.group(match.lastindex or 0) if match.lastindex else ""
        width = len(spaces) - (len(replacement) - (len(match.group(0)) - len(spaces)))
        if len(spaces) >= 2 and width >= 1:
            spaces = " " * width
        return replacement + spaces
    return sub
