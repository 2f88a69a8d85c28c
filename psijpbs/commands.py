"""PBS command lines (pure builders) and running them with a timeout and a few retries."""
import logging
import re
import subprocess
import time
from dataclasses import dataclass
from typing import Collection, FrozenSet, List

logger = logging.getLogger(__name__)

QSUB = 'qsub'
QSTAT = 'qstat'
QDEL = 'qdel'
QSELECT = 'qselect'

# Exit codes (pbs_errno & 0xff) of failures that say nothing about the request itself: the
# server could not be reached or the conversation broke. PBSE_SYSTEM 15010 -> 162,
# PBSE_INTERNAL 15011 -> 163, PBSE_BADCRED 15019 -> 171, PBSE_OBJBUSY 15027 -> 179,
# PBSE_PROTOCOL 15031 -> 183, PBSE_NOCONNECTS 15033 -> 185, PBSE_NOSERVER 15034 -> 186,
# PBSE_SVRDOWN 15060 -> 212; 124 is our own code for a command that timed out.
TRANSIENT_QUERY_CODES: FrozenSet[int] = frozenset({124, 162, 163, 171, 179, 183, 185, 186, 212})
# For qsub only the failures that happen before the server could have accepted the job: a
# "premature end of message" (183) or a timeout may come after the job was queued, and a retry
# would then submit it twice.
TRANSIENT_SUBMIT_CODES: FrozenSet[int] = frozenset({162, 171, 185, 186, 212})
#: Exit code reported for a command that timed out (as ``timeout(1)`` does).
TIMEOUT_EXIT_CODE = 124
_CANNOT_CONNECT = re.compile(r'cannot connect to server', re.IGNORECASE)


def submit_command(script_path: str) -> List[str]:
    """``qsub <script>``: the job id is the last word of stdout."""
    return [QSUB, script_path]


def status_command(native_ids: Collection[str], history: bool = True) -> List[str]:
    """``qstat -f -F json [-x] <ids>``: full ids, exit status and comment of each job.

    ``-x`` includes finished jobs; it is dropped for servers that keep no job history.
    """
    return [QSTAT, '-f', '-F', 'json'] + (['-x'] if history else []) + list(native_ids)


def cancel_command(native_id: str) -> List[str]:
    """``qdel <id>``: SIGTERM, then SIGKILL after the server's ``kill_delay``."""
    return [QDEL, native_id]


def list_command(user: str) -> List[str]:
    """``qselect -u <user>``: the user's unfinished jobs, one full (never truncated) id a line."""
    return [QSELECT, '-u', user]


@dataclass(frozen=True)
class CommandResult:
    """What one run of a command produced."""

    command: List[str]
    exit_code: int
    stdout: str
    stderr: str

    @property
    def merged(self) -> str:
        """stdout and stderr joined the way PSI/J's ``_run_command`` joins them."""
        if self.stdout and self.stderr:
            return self.stdout + '\n' + self.stderr
        return self.stdout or self.stderr

    def describe(self) -> str:
        """A message for errors: what ran, its exit code and what it printed."""
        return ('%s exited with %d; stdout: %r; stderr: %r'
                % (' '.join(self.command), self.exit_code, self.stdout, self.stderr))


def run_once(command: List[str], timeout: float) -> CommandResult:
    """Run ``command``; a timeout becomes exit code 124 with a message on stderr.

    Raises
    ------
    OSError
        If the command cannot be started at all (for example not on PATH).
    """
    try:
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return CommandResult(command, TIMEOUT_EXIT_CODE, '',
                             '%s: no answer within %g s' % (command[0], timeout))
    return CommandResult(command, proc.returncode, proc.stdout, proc.stderr)


def is_transient(result: CommandResult, codes: FrozenSet[int]) -> bool:
    """Whether a failure is worth retrying (server unreachable, broken conversation, timeout)."""
    if result.exit_code == 0:
        return False
    if result.exit_code in codes:
        return True
    return bool(_CANNOT_CONNECT.search(result.stderr))


def run_with_retries(command: List[str], timeout: float, retries: int,
                     codes: FrozenSet[int] = TRANSIENT_QUERY_CODES,
                     first_pause: float = 0.5) -> CommandResult:
    """Run ``command``, retrying up to ``retries`` times after transient failures.

    Pauses double between attempts, starting at ``first_pause`` seconds. The last result is
    returned whether it succeeded or not.
    """
    pause = first_pause
    result = run_once(command, timeout)
    for attempt in range(retries):
        if not is_transient(result, codes):
            break
        logger.info('Transient failure (attempt %d): %s; retrying in %g s', attempt + 1,
                    result.describe(), pause)
        time.sleep(pause)
        pause *= 2
        result = run_once(command, timeout)
    return result
