"""Parsing what ``qstat -f -F json [-x] <ids>`` prints, per job id, without ever failing one job
because of another.

qstat handles each id on its own: the jobs it found go to stdout as one JSON object, each id it
could not report gets one line on stderr, and the exit code is that of the last failure
(fidelity transcripts b11d, b11e, b21). The lines that matter:

- ``qstat: Unknown Job Id 999.vm`` (rc 153): the server does not know the job (never existed,
  or finished and purged because history is off or expired);
- ``qstat: 0.vm Job has finished, use -x or -H to obtain historical job information`` (rc 35):
  only without ``-x``;
- ``qstat: PBS is not configured to maintain job history 12.vm`` (rc 0): ``-x`` on a server with
  ``job_history_enable`` off; the request must be repeated without ``-x``.
"""
import re
from dataclasses import dataclass, field
from typing import AbstractSet, Any, Dict, List, Optional, Set

from psijpbs.qstat_json import split_leading_json

_UNKNOWN_RE = re.compile(r'^\S+: Unknown Job Id (\S+)\s*$')
_FINISHED_RE = re.compile(r'^\S+: (\S+) Job has finished\b')
_NO_HISTORY_RE = re.compile(r'^\S+: PBS is not configured to maintain job history\s*(\S*)')


class QstatError(RuntimeError):
    """qstat failed as a whole: nothing in its output says anything about any job."""


@dataclass(frozen=True)
class JobReport:
    """The attributes of one job that decide its PSI/J state."""

    native_id: str
    state: str
    substate: Optional[int] = None
    exit_status: Optional[int] = None
    comment: Optional[str] = None


@dataclass
class QstatResult:
    """Everything one qstat call said, by job id (ids as qstat printed them)."""

    jobs: Dict[str, JobReport] = field(default_factory=dict)
    unknown: Set[str] = field(default_factory=set)
    finished: Set[str] = field(default_factory=set)
    history_disabled: bool = False
    other_lines: List[str] = field(default_factory=list)


def _as_int(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def job_report(native_id: str, attrs: Dict[str, Any]) -> JobReport:
    """Build a :class:`JobReport` from one job's decoded JSON attributes, tolerating odd types."""
    comment = attrs.get('comment')
    return JobReport(native_id=native_id,
                     state=str(attrs.get('job_state', '')).strip(),
                     substate=_as_int(attrs.get('substate')),
                     exit_status=_as_int(attrs.get('Exit_status')),
                     comment=None if comment is None else str(comment))


def parse_qstat(exit_code: int, out: str) -> QstatResult:
    """Parse ``qstat -f -F json`` output (stdout, optionally followed by stderr).

    Parameters
    ----------
    exit_code
        qstat's exit code.
    out
        stdout, or ``stdout + '\\n' + stderr`` as PSI/J passes it when qstat failed.

    Returns
    -------
    The jobs found and the ids qstat explicitly reported as unknown or finished.

    Raises
    ------
    QstatError
        If qstat failed and its output holds no information about any job.
    """
    result = QstatResult()
    report, rest = split_leading_json(out)
    if report is not None:
        jobs = report.get('Jobs')  # absent when no job was printed (transcript b11e)
        if isinstance(jobs, dict):
            for native_id, attrs in jobs.items():
                if isinstance(attrs, dict):
                    result.jobs[native_id] = job_report(native_id, attrs)
    for line in rest.splitlines():
        line = line.strip()
        if not line:
            continue
        match = _UNKNOWN_RE.match(line)
        if match:
            result.unknown.add(match.group(1))
            continue
        match = _FINISHED_RE.match(line)
        if match:
            result.finished.add(match.group(1))
            continue
        if _NO_HISTORY_RE.match(line):
            result.history_disabled = True
            continue
        result.other_lines.append(line)
    informative = (report is not None or result.unknown or result.finished
                   or result.history_disabled)
    if exit_code != 0 and not informative:
        raise QstatError('qstat exited with %d: %s' % (exit_code, out.strip() or '(no output)'))
    if report is None and out.strip() and not informative:
        raise QstatError('qstat printed no JSON: %s' % out.strip())
    return result


def id_sequence(native_id: str) -> str:
    """The part of a PBS job id before the server name (``123`` or ``123[4]``)."""
    return native_id.split('.', 1)[0]


def same_job(wanted: str, reported: str) -> bool:
    """Whether a job id printed by PBS designates the id we hold.

    PBS may qualify ids differently from how they were typed (``123`` vs ``123.server`` vs
    ``123.server.domain``): same sequence number, and one server name a dotted prefix of the
    other.
    """
    if wanted == reported:
        return True
    if id_sequence(wanted) != id_sequence(reported):
        return False
    w_parts = wanted.split('.')[1:]
    r_parts = reported.split('.')[1:]
    shorter = min(len(w_parts), len(r_parts))
    return w_parts[:shorter] == r_parts[:shorter]


def find_match(wanted: str, *candidate_sets: AbstractSet[str]) -> Optional[str]:
    """Return the candidate id that designates ``wanted``, if any (exact match first).

    Takes sets (or a dict's ``keys()``) as they are, without copying or merging them: a poll
    decides every tracked id, so an O(len) copy per id would make each poll quadratic (5,000
    tracked jobs took seconds). The scan for a differently qualified id runs only when the
    exact id is absent.
    """
    for candidates in candidate_sets:
        if wanted in candidates:
            return wanted
    for candidates in candidate_sets:
        for candidate in candidates:
            if same_job(wanted, candidate):
                return candidate
    return None
