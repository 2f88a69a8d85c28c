"""What the installed psij offers, decided once at import from psij itself (not its version).

psijpbs supports psij 0.9.11 (PyPI) and psij's development branch (commit 914ffa3, whose
``version.py`` still says 0.9.3, so a version number cannot tell them apart). They differ in:

- the poll thread's contract: 0.9.11's ``BatchSchedulerExecutor`` only calls
  ``register_job``; the development branch also calls ``unregister_job`` when a job ends and
  reads ``status_updater`` (its UDP status channel) while building the script context;
- file staging (``JobSpec.stage_in``/``stage_out``/``cleanup``) and psij's shell library for
  it (``common/batch_lib.mustache``), only on the development branch;
- how a launcher failure is recognised: 0.9.11's launcher scripts end with the
  ``_PSI_J_LAUNCHER_DONE`` marker (``Launcher.is_launcher_failure``); the development branch's
  job scripts end with ``_PSIJ_SCRIPT_DONE`` instead.
"""
import importlib
import logging
from pathlib import Path
from typing import List, Optional, Protocol

from psij import Job, JobSpec
from psij.executors.batch import script_generator
from psij.launchers.script_based_launcher import ScriptBasedLauncher

logger = logging.getLogger(__name__)


class StatusUpdater(Protocol):
    """psij's status channel (``psij.utils._StatusUpdater``), as the base class reads it."""

    update_file_name: str
    update_port: int
    ips: List[str]

    def register_job(self, job: Job, ex: object) -> None:
        """Deliver the job's status messages to ``ex``."""

    def unregister_job(self, job: Job) -> None:
        """Stop delivering the job's status messages."""


class PollThreadContract(Protocol):
    """What psij's ``BatchSchedulerExecutor`` uses of the thread that
    ``_start_queue_poll_thread`` returns (its ``_queue_poll_thread``), in either psij.

    ``tests/executor/test_pbspro_compat.py`` checks this list against the attributes the
    installed psij's base class actually reads, so a psij that needs more fails a test instead
    of every submit.
    """

    #: psij's status channel, or None when psij has none (0.9.11 never reads it).
    status_updater: Optional[StatusUpdater]

    def register_job(self, job: Job) -> None:
        """Track ``job`` (after submit or attach)."""

    def unregister_job(self, job: Job) -> None:
        """Stop tracking ``job`` (it reached a final state)."""


def _status_updater_class() -> Optional[type]:
    utils = importlib.import_module('psij.utils')
    cls = getattr(utils, '_StatusUpdater', None)
    return cls if isinstance(cls, type) and hasattr(cls, 'get_instance') else None


#: psij's status-channel thread class, or None (0.9.11).
STATUS_UPDATER_CLASS = _status_updater_class()

#: Whether ``JobSpec`` has file staging (``stage_in``, ``stage_out``, ``cleanup``).
STAGING = all(hasattr(JobSpec(), name) for name in ('stage_in', 'stage_out', 'cleanup'))

#: psij's shell library for staging and status messages, found by the script generator's
#: renderer as the partial ``batch_lib``.
PSIJ_BATCH_LIB = (Path(script_generator.__file__).parent / 'common' / 'batch_lib.mustache'
                  ).exists()

#: Whether psij's launchers end their output with ``_PSI_J_LAUNCHER_DONE`` (0.9.11).
LAUNCHER_MARKER = hasattr(ScriptBasedLauncher, 'is_launcher_failure')

#: The line psij's development-branch job scripts print last; output without it is the
#: message of a failure (``BatchSchedulerExecutor._read_aux_files`` there).
SCRIPT_DONE_MARKER = '_PSIJ_SCRIPT_DONE'


class NoStatusChannel:
    """Stands in for psij's status channel when it cannot start: no addresses, so the job
    script sends nothing, and statuses come from polling alone."""

    update_file_name = ''
    update_port = 0
    ips: List[str] = []

    def register_job(self, job: Job, ex: object) -> None:
        """Nothing to deliver."""

    def unregister_job(self, job: Job) -> None:
        """Nothing to stop."""


def status_updater() -> Optional[StatusUpdater]:
    """psij's process-wide status channel, started on first use; None if psij has none.

    psij keeps the channel's file in ``~/.psij``, which it creates only as part of its
    default work directory: it is created here, as psij would. If the channel still cannot
    start, polling alone reports statuses (:class:`NoStatusChannel`).
    """
    if STATUS_UPDATER_CLASS is None:
        return None
    try:
        (Path.home() / '.psij').mkdir(exist_ok=True)
        instance: StatusUpdater = getattr(STATUS_UPDATER_CLASS, 'get_instance')()
    except OSError as ex:
        logger.warning('psij status channel unavailable (%s): polling only', ex)
        return NoStatusChannel()
    return instance
