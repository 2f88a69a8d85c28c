"""The ``pbspro`` PSI/J executor for PBS Professional and OpenPBS."""
import getpass
import logging
import os
import pwd
import re
import subprocess
from datetime import timedelta
from pathlib import Path
from threading import Lock
from typing import IO, Collection, Dict, List, Optional, Set

from packaging.version import Version
from psij import Job, JobExecutorConfig, JobState, JobStatus, SubmitException
from psij.executors.batch.batch_scheduler_executor import BatchSchedulerExecutor, \
    InvalidJobStateError
from psij.executors.batch.script_generator import TemplatedScriptGenerator

from psijpbs import __version__, commands, compat
from psijpbs.config import PBSProExecutorConfig
from psijpbs.poller import PBSProPoller
from psijpbs.qstat_output import QstatResult, parse_qstat
from psijpbs.script import build_context, format_walltime
from psijpbs.staging import staging_context
from psijpbs.states import final_status, is_final_letter, running_status
from psijpbs.tracking import MISSING, StatusTracker, classify, merge_results

logger = logging.getLogger(__name__)

_TEMPLATE = Path(__file__).parent / 'pbspro.mustache'
# qdel's answers when there is nothing left to cancel (transcripts c01, c02; PBSE 15001, 15139,
# 15016): the job is unknown (purged), already finished, or already exiting.
_CANCEL_TOO_LATE = re.compile(r'Unknown Job Id|Job has finished|Request invalid for state of job')
_CANCEL_TOO_LATE_CODES = {35, 153, 168}
# A job id as PBS prints it: 123.server, 123[].server, 123[4].server (server part optional).
_JOB_ID = re.compile(r'^\d+(\[\d*\])?(\.\S+)?$')
#: At most this many ids are re-queried one by one when a batch qstat omitted them.
_MAX_SINGLE_QUERIES = 20


def _is_psij_single_launcher(launcher: object) -> bool:
    """True for psij's own ``single`` launcher, not a subclass or a replacement registered under
    its name: only that one may be run inline (psijpbs/script.py). psij's plugin loader loads
    its own copies of modules, so the class is recognised by its module and name."""
    cls = type(launcher)
    return cls.__module__ == 'psij.launchers.single' and cls.__qualname__ == 'SingleLauncher'


def _combine(script_message: str, status: JobStatus) -> Optional[str]:
    """A FAILED job's message, given what its script said about the failure.

    A plain exit code (1..127) that PBS only relayed (no ``.ec``: the script ended early, as
    psij's staging does with 121) is explained by the script, so its words come first. When
    PBS ended the job (a negative code, a signal), PBS's message stands.
    """
    if status.message is None:
        return script_message
    code = status.exit_code
    if code is not None and 0 < code < 128:
        return '%s (%s)' % (script_message, status.message)
    return status.message


class PBSProJobExecutor(BatchSchedulerExecutor):
    """A :class:`~psij.JobExecutor` for PBS Professional and OpenPBS.

    Jobs are submitted with ``qsub``, polled with ``qstat -f -F json -x``, canceled with ``qdel``
    and listed with ``qselect -u <user>``. The submit script carries ``#PBS`` directives for
    every PSI/J field: the name (``-N``), resources (``-l select=...:ncpus=...:mpiprocs=...
    [:ngpus=...][:mem=...]`` and ``-l place=...``), walltime, queue, account, reservation,
    ``-V`` for ``inherit_environment``, and custom attributes: ``custom_attributes['pbs.c'] =
    'n'`` becomes ``#PBS -c n``; a custom ``pbs.l`` naming ``select``, ``place`` or ``walltime``
    replaces the generated one.

    Final states come from the job's exit code file, else from PBS's ``Exit_status``; a job this
    executor canceled (or that a user deleted) is CANCELED, a job the scheduler deleted for
    preemption is FAILED with a message saying so. One unknown or broken job never affects the
    others, and a job missing from qstat's output is not assumed to have completed.
    """

    # Set by JobExecutor.get_instance(); defaults so that the class can also be instantiated
    # directly (psij loads its own copy of this module, so the two never interfere).
    _NAME_ = 'pbspro'
    _VERSION_ = Version(__version__)

    def __init__(self, url: Optional[str] = None,
                 config: Optional[JobExecutorConfig] = None) -> None:
        """
        Parameters
        ----------
        url
            Not used, but required by the spec for automatic initialization.
        config
            An optional configuration; a plain :class:`~psij.JobExecutorConfig` is converted.
        """
        if config is None:
            config = PBSProExecutorConfig()
        elif not isinstance(config, PBSProExecutorConfig):
            config = PBSProExecutorConfig._from_config(config)
        self._pbs_config: PBSProExecutorConfig = config
        self._cancel_lock = Lock()
        self._cancel_requested: Set[str] = set()
        self._history = True
        self._tracker = StatusTracker(self._read_exit_code_file, self._is_cancel_requested)
        self.generator = TemplatedScriptGenerator(config, _TEMPLATE)
        # The base constructor starts the poll thread, so everything above must exist first.
        super().__init__(url=url, config=config)

    # Submit

    def generate_submit_script(self, job: Job, context: Dict[str, object],
                               submit_file: IO[str]) -> None:
        """See :meth:`~psij.executors.batch.BatchSchedulerExecutor.generate_submit_script`."""
        self.generator.generate_submit_script(job, context, submit_file)

    def _create_script_context(self, job: Job) -> Dict[str, object]:
        context = super()._create_script_context(job)
        psij_ctx = context['psij']
        assert isinstance(psij_ctx, dict)
        single = _is_psij_single_launcher(self._get_launcher_from_job(job))
        pbspro = build_context(job, Path(str(psij_ctx['script_dir'])),
                               [str(word) for word in psij_ctx['launch_command']],
                               single_launcher=single,
                               launcher_marker=compat.LAUNCHER_MARKER)
        staging = staging_context(job)
        if not compat.PSIJ_BATCH_LIB and (staging['stage_in'] or staging['stage_out']
                                          or staging['cleanup']):
            raise SubmitException('This psij has file staging but not the shell library '
                                  'psijpbs stages files with (common/batch_lib.mustache)')
        pbspro['staging'] = staging
        pbspro['psij_lib'] = compat.PSIJ_BATCH_LIB
        pbspro['script_done_marker'] = not compat.LAUNCHER_MARKER
        # psij's library logs each staging step to the status channel unless debug is "0";
        # psij leaves it unset (always on).
        psij_ctx['debug'] = '1' if logger.isEnabledFor(logging.DEBUG) else '0'
        context['pbspro'] = pbspro
        return context

    def _format_duration(self, d: timedelta) -> str:
        return format_walltime(d)

    def get_submit_command(self, job: Job, submit_file_path: Path) -> List[str]:
        """See :meth:`~psij.executors.batch.BatchSchedulerExecutor.get_submit_command`."""
        return commands.submit_command(str(submit_file_path.absolute()))

    def job_id_from_submit_output(self, out: str) -> str:
        """The job id: the last word qsub printed (``123.server``)."""
        words = out.split()
        if not words:
            raise SubmitException('qsub printed no job id (output: %r)' % out)
        return words[-1]

    # Cancel

    def get_cancel_command(self, native_id: str) -> List[str]:
        """See :meth:`~psij.executors.batch.BatchSchedulerExecutor.get_cancel_command`."""
        return commands.cancel_command(native_id)

    def process_cancel_command_output(self, exit_code: int, out: str) -> None:
        """Interpret a failed ``qdel``.

        Raises
        ------
        InvalidJobStateError
            If the job is already finished, exiting or unknown (rc 35, 168, 153).
        SubmitException
            For any other failure.
        """
        if exit_code in _CANCEL_TOO_LATE_CODES or _CANCEL_TOO_LATE.search(out):
            raise InvalidJobStateError(out.strip())
        raise SubmitException('Failed to cancel the job: qdel exited with %d: %s'
                              % (exit_code, out.strip()))

    def cancel(self, job: Job) -> None:
        """Ask PBS to delete the job; its status becomes CANCELED once PBS reports it ended.

        Canceling a job that already ended does nothing.
        """
        native_id = job.native_id
        if native_id is None:
            raise SubmitException('Job does not have a native ID.')
        if job.status.state.final:
            return
        # Marked before qdel runs: a poll racing with qdel must already see the intent.
        with self._cancel_lock:
            already = native_id in self._cancel_requested
            self._cancel_requested.add(native_id)
        try:
            self._run_command(self.get_cancel_command(native_id))
        except subprocess.CalledProcessError as ex:
            if not already:
                with self._cancel_lock:
                    self._cancel_requested.discard(native_id)
            try:
                self.process_cancel_command_output(ex.returncode, ex.output)
            except InvalidJobStateError as too_late:
                logger.info('Job %s: nothing to cancel: %s', native_id, too_late)
                return
        self._poller.note_activity()

    def _is_cancel_requested(self, native_id: str) -> bool:
        with self._cancel_lock:
            return native_id in self._cancel_requested

    # Status

    def get_status_command(self, native_ids: Collection[str]) -> List[str]:
        """``qstat -f -F json -x <ids>`` (without ``-x`` once the server said it keeps no
        history)."""
        return commands.status_command(native_ids, history=self._history)

    def parse_status_output(self, exit_code: int, out: str) -> Dict[str, JobStatus]:
        """Statuses of the jobs qstat reported, keyed by the ids qstat printed.

        Pure: final states come from ``Exit_status`` only (the ``.ec`` files are read by the
        poll loop). Ids that qstat reported as unknown or finished are left out, as are jobs in
        a state this executor does not know.

        Raises
        ------
        psijpbs.qstat_output.QstatError
            If qstat failed and said nothing about any job.
        """
        result = parse_qstat(exit_code, out)
        statuses: Dict[str, JobStatus] = {}
        for native_id, report in result.jobs.items():
            if is_final_letter(report.state):
                statuses[native_id] = final_status(report, None, False)
            else:
                status = running_status(report)
                if status is not None:
                    statuses[native_id] = status
        return statuses

    def _query(self, native_ids: List[str]) -> QstatResult:
        result = self._run_status(native_ids)
        if result.history_disabled and self._history:
            logger.info('PBS keeps no job history; polling without -x from now on')
            self._history = False
            result = self._run_status(native_ids)
        return result

    def _run_status(self, native_ids: List[str]) -> QstatResult:
        cmd = self.get_status_command(native_ids)
        res = commands.run_with_retries(cmd, self._pbs_config.command_timeout,
                                        self._pbs_config.command_retries)
        return parse_qstat(res.exit_code, res.merged)

    def _poll_statuses(self, native_ids: List[str]) -> Dict[str, JobStatus]:
        """One poll: the new status of each job for which something can be concluded."""
        result = self._query(native_ids)
        missing = [i for i in native_ids if classify(i, result) == MISSING]
        if missing and len(native_ids) > 1:
            # Asking for one id at a time sidesteps servers that print only some of the jobs
            # (OpenPBS #2672).
            for native_id in missing[:_MAX_SINGLE_QUERIES]:
                result = merge_results(result, self._query([native_id]))
        statuses: Dict[str, JobStatus] = {}
        for native_id in native_ids:
            status = self._tracker.decide(native_id, result)
            if status is not None:
                statuses[native_id] = status
        return statuses

    def _forget(self, native_id: str) -> None:
        self._tracker.forget(native_id)
        with self._cancel_lock:
            self._cancel_requested.discard(native_id)

    def _start_queue_poll_thread(self) -> PBSProPoller:  # type: ignore[override]
        poller = PBSProPoller(self.name + ' Queue Polling Thread', self._pbs_config, self)
        self._poller = poller
        poller.start()
        return poller

    # Auxiliary files

    def _read_exit_code_file(self, native_id: str) -> Optional[str]:
        path = self.work_directory / (native_id + '.ec')
        try:
            return path.read_text()
        except FileNotFoundError:
            return None
        except OSError as ex:
            logger.warning('Job %s: cannot read %s: %s', native_id, path, ex)
            return None

    def _read_aux_files(self, job: Job, status: JobStatus) -> None:
        """Add the launcher's error output to a FAILED job's message; remove the aux files.

        Replaces PSI/J's version, which leaks ``.out`` for COMPLETED jobs and ``.ec``/``.out``
        for CANCELED ones, and which would re-read the ``.ec`` file the poll loop already used.
        """
        try:
            if logger.isEnabledFor(logging.DEBUG):
                launcher_log = self._read_aux_file(
                    path=self.work_directory / (job.id + '_launcher.log'))
                if launcher_log is not None:
                    logger.debug('Job %s: launcher log: %s', job.id, launcher_log)
            if status.state == JobState.FAILED:
                out = self._read_aux_file(job, '.out')
                said = self._failure_message(job, out) if out else None
                if said is not None:
                    status.message = _combine(said, status)
            for suffix in ('.ec', '.out'):
                self._delete_aux_file(job, suffix)
        except Exception as ex:
            logger.warning('Job %s: failed to read auxiliary files: %s', job.id, ex)

    def _failure_message(self, job: Job, out: str) -> Optional[str]:
        """What the job script's output says about a failure, if anything.

        psij 0.9.11: the launcher's output without its end marker (``is_launcher_failure``);
        later psij: the script's output without ``_PSIJ_SCRIPT_DONE`` (a staging failure, a
        missing directory). Either way a line of this script starting ``psij: `` is one.
        """
        if compat.LAUNCHER_MARKER:
            # Looked up by name: these methods exist in psij 0.9.11 only.
            launcher = self._get_launcher_from_job(job)
            if getattr(launcher, 'is_launcher_failure')(out):
                return str(getattr(launcher, 'get_launcher_failure_message')(out))
        elif out.strip() and compat.SCRIPT_DONE_MARKER not in out:
            return out.strip()
        return out.strip() if out.startswith('psij: ') else None

    # List

    def get_list_command(self) -> List[str]:
        """See :meth:`~psij.executors.batch.BatchSchedulerExecutor.get_list_command`."""
        return commands.list_command(self._current_user())

    def parse_list_output(self, out: str) -> List[str]:
        """Job ids from ``qselect`` output (one per line); header lines and blank lines of other
        formats (``qstat -u``) are skipped."""
        ids = []
        for line in out.splitlines():
            words = line.split()
            if words and _JOB_ID.match(words[0]):
                ids.append(words[0])
        return ids

    def _current_user(self) -> str:
        # os.getlogin() (PSI/J's choice) fails without a controlling terminal; PBS identifies
        # users by their uid anyway.
        try:
            return pwd.getpwuid(os.getuid()).pw_name
        except KeyError:
            return getpass.getuser()

    # Commands

    def _run_command(self, cmd: List[str]) -> str:
        """Run a PBS command with a timeout and retries of transient failures.

        Raises
        ------
        subprocess.CalledProcessError
            On failure, with stdout and stderr merged in ``output`` as PSI/J expects.
        """
        codes = commands.TRANSIENT_SUBMIT_CODES if cmd and cmd[0] == commands.QSUB \
            else commands.TRANSIENT_QUERY_CODES
        res = commands.run_with_retries(cmd, self._pbs_config.command_timeout,
                                        self._pbs_config.command_retries, codes)
        if res.exit_code != 0:
            raise subprocess.CalledProcessError(res.exit_code, cmd,
                                                output=res.merged or 'PSIJ: Unknown error')
        return res.stdout
