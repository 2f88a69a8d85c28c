"""Turning successive qstat results into PSI/J statuses, one job id at a time.

A job that qstat does not report is not taken as completed on trust (PSI/J's default, dangerous
with OpenPBS #2672, where ``-F json`` with several ids printed only the first job):

- reported (any state): its state, and for F/X how it ended (:func:`psijpbs.states.final_status`);
- explicitly unknown or finished per qstat's stderr: if PBS last reported it Exiting after a
  limit kill (Exit_status -24..-29, seen when job history is off), that decides; if the job's
  ``.ec`` file exists, it ended
  and the file says how; if a cancel was requested, CANCELED; otherwise the absence must be seen
  twice in a row before the job is declared FAILED (an NFS cache may show the ``.ec`` late);
- not mentioned at all: nothing is concluded; after several such polls in a row the job is
  treated as unknown.
"""
import logging
from typing import Callable, Dict, Optional

from psij import JobStatus

from psijpbs.exit_status import LIMIT_KILL_CODES
from psijpbs.qstat_output import JobReport, QstatResult, find_match
from psijpbs.states import final_status, is_final_letter, running_status

logger = logging.getLogger(__name__)

#: How many polls in a row must say "unknown job" (without an exit code file) before FAILED.
GONE_CONFIRMATIONS = 2
#: How many polls in a row may omit a job without explanation before it counts as unknown.
UNEXPLAINED_LIMIT = 3

FOUND = 'found'
GONE = 'gone'
MISSING = 'missing'

#: PBS's Exiting state letter: the job's processes are gone, Exit_status is set.
EXITING = 'E'


def merge_results(first: QstatResult, second: QstatResult) -> QstatResult:
    """Combine two qstat results (for example a batch query and single-id retries)."""
    return QstatResult(jobs={**first.jobs, **second.jobs},
                       unknown=first.unknown | second.unknown,
                       finished=first.finished | second.finished,
                       history_disabled=first.history_disabled or second.history_disabled,
                       other_lines=first.other_lines + second.other_lines)


def classify(native_id: str, result: QstatResult) -> str:
    """Whether qstat reported the job (FOUND), said it is gone (GONE), or said nothing."""
    if find_match(native_id, result.jobs.keys()) is not None:
        return FOUND
    if find_match(native_id, result.unknown, result.finished) is not None:
        return GONE
    return MISSING


class StatusTracker:
    """Remembers, per job id, what earlier polls said, to decide each job's status.

    Parameters
    ----------
    read_exit_code_file
        Returns the contents of the job's ``.ec`` file, or None if it does not exist.
    cancel_requested
        Whether this executor asked PBS to delete the job.
    """

    def __init__(self, read_exit_code_file: Callable[[str], Optional[str]],
                 cancel_requested: Callable[[str], bool]) -> None:
        self._read_ec = read_exit_code_file
        self._cancel_requested = cancel_requested
        self._gone_count: Dict[str, int] = {}
        self._missing_count: Dict[str, int] = {}
        # The last Exiting (E) report of a job PBS killed for a limit: E already carries
        # Exit_status (transcripts c04b, f03), and without job history it is the last word PBS
        # says about the job before it vanishes.
        self._limit_killed: Dict[str, JobReport] = {}

    def forget(self, native_id: str) -> None:
        """Drop what is remembered about a job (it reached a final state)."""
        self._gone_count.pop(native_id, None)
        self._missing_count.pop(native_id, None)
        self._limit_killed.pop(native_id, None)

    def decide(self, native_id: str, result: QstatResult) -> Optional[JobStatus]:
        """The job's status according to ``result``, or None when nothing can be concluded."""
        kind = classify(native_id, result)
        if kind == FOUND:
            self.forget(native_id)
            match = find_match(native_id, result.jobs.keys())
            assert match is not None
            report = result.jobs[match]
            if is_final_letter(report.state):
                return final_status(report, self._read_ec(native_id),
                                    self._cancel_requested(native_id))
            if report.state == EXITING and report.exit_status in LIMIT_KILL_CODES:
                self._limit_killed[native_id] = report
            return running_status(report)
        if kind == MISSING:
            self._missing_count[native_id] = self._missing_count.get(native_id, 0) + 1
            if self._missing_count[native_id] < UNEXPLAINED_LIMIT:
                logger.info('Job %s: not in qstat output; waiting for the next poll', native_id)
                return None
            reason = 'missing from qstat output %d times' % self._missing_count[native_id]
        else:
            reason = 'qstat: Unknown Job Id or finished without history'
        return self._decide_gone(native_id, reason)

    def _decide_gone(self, native_id: str, reason: str) -> Optional[JobStatus]:
        ec = self._read_ec(native_id)
        cancel = self._cancel_requested(native_id)
        exiting = self._limit_killed.get(native_id)
        if exiting is not None:
            return final_status(exiting, ec, cancel, reason)
        if ec is not None or cancel:
            return final_status(None, ec, cancel, reason)
        self._gone_count[native_id] = self._gone_count.get(native_id, 0) + 1
        if self._gone_count[native_id] < GONE_CONFIRMATIONS:
            logger.info('Job %s: PBS no longer knows it and there is no exit code file yet; '
                        'checking again at the next poll', native_id)
            return None
        return final_status(None, None, False, reason)
