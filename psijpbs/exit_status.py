"""What a PBS ``Exit_status`` value means, as a PSI/J final state.

PBS reports a job's end in ``Exit_status``: the job shell's exit code (0..255), ``256 + N`` when
the shell was killed by signal N (``qdel`` sends SIGTERM first, hence 271; ``qdel -W force`` and
a kill after ``kill_delay`` give 265), or a negative ``JOB_EXEC_*`` code when the mom (or a hook)
ended the job itself (OpenPBS ``src/include/job.h``).
"""
import signal
from typing import Dict, NamedTuple, Optional

from psij import JobState

#: PBS adds this to a signal number when the job shell died from that signal.
SIGNAL_OFFSET = 256

# One line per JOB_EXEC_* code: what happened, in words a user can act on.
JOB_EXEC_MESSAGES: Dict[int, str] = {
    -1: 'PBS could not start the job (JOB_EXEC_FAIL1: failure before the job files were set up)',
    -2: 'PBS could not start the job (JOB_EXEC_FAIL2: failure after the job files were set up)',
    -3: 'PBS could not start the job and will retry it (JOB_EXEC_RETRY)',
    -4: 'PBS aborted the job while initializing it (JOB_EXEC_INITABT)',
    -5: 'PBS aborted the job while restarting it (JOB_EXEC_INITRST)',
    -6: 'PBS aborted the job while restarting it after migration (JOB_EXEC_INITRMG)',
    -7: 'PBS could not restart the job from its checkpoint (JOB_EXEC_BADRESRT)',
    -10: 'PBS could not run the job as its owner: bad user or group (JOB_EXEC_FAILUID)',
    -11: 'the job was requeued to be run again (JOB_EXEC_RERUN)',
    -12: 'the job was checkpointed and stopped (JOB_EXEC_CHKP)',
    -13: 'PBS could not start the job: password problem (JOB_EXEC_FAIL_PASSWORD)',
    -14: 'the job was requeued because a sister node failed (JOB_EXEC_RERUN_SIS_FAIL)',
    -15: 'the job was requeued (JOB_EXEC_QUERST)',
    -16: 'a hook rejected the job; PBS requeues it (JOB_EXEC_FAILHOOK_RERUN)',
    -17: 'a hook rejected the job and PBS deleted it (JOB_EXEC_FAILHOOK_DELETE)',
    -18: 'a hook asked PBS to rerun the job (JOB_EXEC_HOOK_RERUN)',
    -19: 'a hook asked PBS to delete the job (JOB_EXEC_HOOK_DELETE)',
    -20: 'the job was requeued because its primary execution host failed '
         '(JOB_EXEC_RERUN_MS_FAIL)',
    -21: 'PBS could not start the job: security check failed (JOB_EXEC_FAIL_SECURITY)',
    -22: 'a hook failed (exception or alarm) while starting the job (JOB_EXEC_HOOKERROR)',
    -23: 'PBS could not start the job: Kerberos credentials failed (JOB_EXEC_FAIL_KRB5)',
    -24: 'PBS killed the job: it used more CPUs than requested (JOB_EXEC_KILL_NCPUS_BURST)',
    -25: 'PBS killed the job: it used more CPUs than requested (JOB_EXEC_KILL_NCPUS_SUM)',
    -26: 'PBS killed the job: virtual memory limit exceeded (JOB_EXEC_KILL_VMEM)',
    -27: 'PBS killed the job: memory limit exceeded (JOB_EXEC_KILL_MEM)',
    -28: 'PBS killed the job: CPU time limit exceeded (JOB_EXEC_KILL_CPUT)',
    -29: 'PBS killed the job: walltime exceeded (JOB_EXEC_KILL_WALLTIME)',
    -30: 'a sister node could not join the job (JOB_EXEC_JOINJOB)',
}


#: The JOB_EXEC_KILL_* codes: the mom killed the job for exceeding a limit (ncpus, vmem, mem,
#: cput, walltime). The mom signals the job's processes children first (kill_task walks the
#: process tree bottom-up), so the job shell may outlive its child long enough to record the
#: child's death (exit code 143) in the ``.ec`` file: with these codes PBS's account wins.
LIMIT_KILL_CODES = frozenset(range(-29, -23))


class ExitOutcome(NamedTuple):
    """The PSI/J view of one ``Exit_status`` value."""

    state: JobState
    exit_code: Optional[int]
    message: Optional[str]


def signal_name(number: int) -> str:
    """Return ``SIGTERM``-style name of a signal number, or ``signal N`` if unknown."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return 'signal %d' % number


def outcome_of_exit_status(exit_status: int) -> ExitOutcome:
    """Map a PBS ``Exit_status`` to a final PSI/J state, exit code and message.

    Parameters
    ----------
    exit_status
        The value of the job's ``Exit_status`` attribute.

    Returns
    -------
    0 gives COMPLETED; 1..255 FAILED with that exit code; 256+N FAILED "killed by signal N"
    (exit code 128+N, as a shell reports it); negative codes FAILED with the exit code kept and
    a message saying what PBS did.
    """
    if exit_status == 0:
        return ExitOutcome(JobState.COMPLETED, 0, None)
    if 0 < exit_status < SIGNAL_OFFSET:
        return ExitOutcome(JobState.FAILED, exit_status, None)
    if exit_status >= SIGNAL_OFFSET:
        number = exit_status - SIGNAL_OFFSET
        return ExitOutcome(JobState.FAILED, 128 + number,
                           'the job was killed by signal %d (%s; PBS Exit_status %d)'
                           % (number, signal_name(number), exit_status))
    text = JOB_EXEC_MESSAGES.get(exit_status,
                                 'PBS ended the job with the internal code %d' % exit_status)
    return ExitOutcome(JobState.FAILED, exit_status,
                       '%s (PBS Exit_status %d)' % (text, exit_status))
