"""PBS job states and end-of-job facts turned into PSI/J states (pure rules, no I/O)."""
import logging
from typing import Dict, Optional

from psij import JobState, JobStatus

from psijpbs.exit_status import LIMIT_KILL_CODES, SIGNAL_OFFSET, outcome_of_exit_status
from psijpbs.qstat_output import JobReport

logger = logging.getLogger(__name__)

#: Substate of a job that was deleted (qdel, preemption by deletion, ...): JOB_SUBSTATE_TERMINATED.
SUBSTATE_TERMINATED = 91

#: The comment PBS appends when the scheduler deleted a job to preempt it (transcript g08).
PREEMPTION_MARK = 'terminated by Scheduler@'
#: The comment PBS appends when a user deleted a running job (transcripts b05b, c04c).
DELETION_MARK = 'terminated by '

# One entry per PBS job_state letter. None means "the job is over; look at how it ended".
_STATE_MAP: Dict[str, Optional[JobState]] = {
    'B': JobState.ACTIVE,  # Begun: an array job has started subjobs
    'E': JobState.ACTIVE,  # Exiting: shells ended, stage-out/cleanup pending; no final facts yet
    'F': None,             # Finished: completed, failed or deleted (history, i.e. qstat -x)
    'H': JobState.QUEUED,  # Held (user/system/dependency hold, or too many failed starts)
    'M': JobState.QUEUED,  # Moved to another server
    'Q': JobState.QUEUED,  # Queued, eligible to run
    'R': JobState.ACTIVE,  # Running
    'S': JobState.ACTIVE,  # Suspended by the scheduler or an admin: it has started
    'T': JobState.QUEUED,  # Transiting between queues or servers
    'U': JobState.ACTIVE,  # Suspended because its workstation became busy: it has started
    'W': JobState.QUEUED,  # Waiting for its Execution_Time, or after a stage-in failure
    'X': None,             # eXpired: a finished subjob of an array
}


def is_final_letter(letter: str) -> bool:
    """Whether a PBS job_state letter means the job is over."""
    return letter in _STATE_MAP and _STATE_MAP[letter] is None


def running_status(report: JobReport) -> Optional[JobStatus]:
    """The PSI/J status of a job that PBS reports as not finished.

    Returns None for a letter this executor does not know (logged; the job keeps its state).
    """
    if report.state not in _STATE_MAP:
        logger.warning('Job %s: unknown PBS job_state %r; keeping its current state',
                       report.native_id, report.state)
        return None
    state = _STATE_MAP[report.state]
    if state is None:
        raise ValueError('job_state %r is final' % report.state)
    # The comment explains a wait ("Not Running: ...", "job held, ..."), not a running job.
    message = report.comment if state == JobState.QUEUED else None
    return JobStatus(state, message=message, metadata={'pbs_state': report.state})


def _with_comment(text: str, comment: Optional[str]) -> str:
    return text if not comment else '%s; PBS comment: %s' % (text, comment)


def final_status(report: Optional[JobReport], exit_code_file: Optional[str],
                 cancel_requested: bool, gone_reason: Optional[str] = None) -> JobStatus:
    """Decide how a finished job ended.

    Parameters
    ----------
    report
        The job's last qstat report (state F or X), or None if PBS no longer knows the job.
    exit_code_file
        The contents of the ``<native_id>.ec`` file the job script writes, if it exists.
    cancel_requested
        Whether this executor successfully asked PBS to delete the job.
    gone_reason
        Why PBS no longer reports the job (for messages), when ``report`` is None.

    Returns
    -------
    CANCELED if the job was deleted on request (ours, or a user's qdel); FAILED naming the
    preemption if the scheduler deleted it; FAILED with PBS's message if the mom killed it for
    exceeding a limit (walltime: Exit_status -29, whatever the ``.ec`` file says); otherwise
    the outcome of the ``.ec`` file, then of ``Exit_status``; FAILED when neither says
    anything.
    """
    comment = report.comment if report is not None else None
    exit_status = report.exit_status if report is not None else None
    metadata: Dict[str, object] = {}
    if exit_status is not None:
        metadata['pbs_exit_status'] = exit_status
    if comment:
        metadata['pbs_comment'] = comment
    if cancel_requested:
        return JobStatus(JobState.CANCELED, message='canceled (PBS Exit_status %s)' % (
            'not set' if exit_status is None else exit_status), metadata=metadata)
    if comment and PREEMPTION_MARK in comment:
        return JobStatus(JobState.FAILED, exit_code=exit_status,
                         message=_with_comment('the job was deleted by the PBS scheduler to '
                                               'preempt it for a higher-priority job', comment),
                         metadata=metadata)
    if (report is not None and report.substate == SUBSTATE_TERMINATED
            and (exit_status is None or exit_status >= SIGNAL_OFFSET)):
        # Deleted by a user (qdel from another process or an administrator) while queued (no
        # Exit_status, transcript c10b) or running (signal, b05b/c04c): a cancellation. A hook
        # deletion also ends in substate 91 but with a negative Exit_status: handled below.
        return JobStatus(JobState.CANCELED, message=_with_comment('deleted in PBS', comment),
                         metadata=metadata)
    ec = _parse_exit_code_file(exit_code_file)
    if ec is not None and exit_status not in LIMIT_KILL_CODES:
        if ec == 0:
            return JobStatus(JobState.COMPLETED, exit_code=0, metadata=metadata)
        return JobStatus(JobState.FAILED, exit_code=ec, metadata=metadata)
    if exit_status is not None:
        outcome = outcome_of_exit_status(exit_status)
        message = outcome.message
        if outcome.state == JobState.FAILED:
            message = _with_comment(message or 'the job exited with code %d' % exit_status,
                                    comment)
        return JobStatus(outcome.state, exit_code=outcome.exit_code, message=message,
                         metadata=metadata)
    if report is None:
        return JobStatus(JobState.FAILED, message='PBS no longer knows the job (%s) and it left no '
                         'exit code file, so how it ended is unknown'
                         % (gone_reason or 'not in qstat output'), metadata=metadata)
    return JobStatus(JobState.FAILED,
                     message=_with_comment('the job finished without running or without an '
                                           'exit status (for example a dependency that can no '
                                           'longer be satisfied)', comment),
                     metadata=metadata)


def _parse_exit_code_file(text: Optional[str]) -> Optional[int]:
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None
