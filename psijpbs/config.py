"""Configuration of the ``pbspro`` executor, with environment-variable overrides.

PSI/J's own test suite obtains executors with ``JobExecutor.get_instance('pbspro')`` and cannot
pass a configuration, so every tuning knob can also be set from the environment.
"""
import logging
import os
from pathlib import Path
from typing import Optional

from psij import JobExecutorConfig
from psij.executors.batch.batch_scheduler_executor import BatchSchedulerExecutorConfig

logger = logging.getLogger(__name__)

#: Environment variables read by :class:`PBSProExecutorConfig` (they win over arguments).
ENV_POLL_INTERVAL = 'PSIJ_PBSPRO_POLL_INTERVAL'
ENV_MIN_POLL_INTERVAL = 'PSIJ_PBSPRO_MIN_POLL_INTERVAL'
ENV_INITIAL_POLL_DELAY = 'PSIJ_PBSPRO_INITIAL_POLL_DELAY'
ENV_COMMAND_TIMEOUT = 'PSIJ_PBSPRO_COMMAND_TIMEOUT'
ENV_COMMAND_RETRIES = 'PSIJ_PBSPRO_COMMAND_RETRIES'
ENV_ERROR_THRESHOLD = 'PSIJ_PBSPRO_POLL_ERROR_THRESHOLD'


def _env_float(name: str, default: float, minimum: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == '':
        return default
    try:
        value = float(raw)
    except ValueError:
        logger.warning('Ignoring %s=%r: not a number', name, raw)
        return default
    if value < minimum:
        logger.warning('Ignoring %s=%r: must be at least %s', name, raw, minimum)
        return default
    return value


class PBSProExecutorConfig(BatchSchedulerExecutorConfig):
    """Configuration for :class:`~psijpbs.executor.PBSProJobExecutor`.

    Polling adapts to the age of the jobs: right after a submission (or a cancel) the queue is
    polled every ``min_queue_polling_interval`` seconds, so that a short job's final state is
    seen within a second or two; the interval then grows with the age of the youngest job up to
    ``queue_polling_interval``, to spare the PBS server when jobs run for long. A burst of
    submissions does not hold polls back, and the pause after a poll is at least twice as long
    as the poll took (a slow server is never polled back to back).
    """

    def __init__(self, launcher_log_file: Optional[Path] = None,
                 work_directory: Optional[Path] = None, queue_polling_interval: float = 30,
                 initial_queue_polling_delay: float = 0.5,
                 queue_polling_error_threshold: int = 5,
                 keep_files: bool = False,
                 min_queue_polling_interval: float = 0.5,
                 command_timeout: float = 60,
                 command_retries: int = 3) -> None:
        """
        Parameters
        ----------
        launcher_log_file
            See :class:`~psij.JobExecutorConfig`.
        work_directory
            See :class:`~psij.JobExecutorConfig`. It must be visible from the compute nodes,
            since job scripts write their exit code and output there.
        queue_polling_interval
            The longest interval, in seconds, between two ``qstat`` polls (env
            ``PSIJ_PBSPRO_POLL_INTERVAL``).
        initial_queue_polling_delay
            Delay, in seconds, before the first poll after a submission (env
            ``PSIJ_PBSPRO_INITIAL_POLL_DELAY``).
        queue_polling_error_threshold
            How many consecutive failed polls (each already retried) are tolerated before all
            jobs are reported FAILED (env ``PSIJ_PBSPRO_POLL_ERROR_THRESHOLD``).
        keep_files
            Keep submit scripts, ``.ec`` and ``.out`` files (also ``PSIJ_BATCH_KEEP_FILES``).
        min_queue_polling_interval
            The shortest interval between polls, used while jobs are young (env
            ``PSIJ_PBSPRO_MIN_POLL_INTERVAL``).
        command_timeout
            Seconds after which a ``qsub``/``qstat``/``qdel`` call is abandoned (env
            ``PSIJ_PBSPRO_COMMAND_TIMEOUT``).
        command_retries
            Extra attempts for a PBS command that failed in a transient way (server down,
            connection refused, timeout) (env ``PSIJ_PBSPRO_COMMAND_RETRIES``).
        """
        # The base class declares int types for these; floats work the same with time.sleep.
        super().__init__(launcher_log_file=launcher_log_file, work_directory=work_directory,
                         queue_polling_interval=queue_polling_interval,  # type: ignore[arg-type]
                         initial_queue_polling_delay=initial_queue_polling_delay,  # type: ignore
                         queue_polling_error_threshold=queue_polling_error_threshold,
                         keep_files=keep_files)
        self.min_queue_polling_interval = min_queue_polling_interval
        self.command_timeout = command_timeout
        self.command_retries = command_retries
        self._apply_environment()

    def _apply_environment(self) -> None:
        self.queue_polling_interval = _env_float(  # type: ignore[assignment]
            ENV_POLL_INTERVAL, self.queue_polling_interval, 0.05)
        self.min_queue_polling_interval = _env_float(
            ENV_MIN_POLL_INTERVAL, self.min_queue_polling_interval, 0.05)
        self.initial_queue_polling_delay = _env_float(  # type: ignore[assignment]
            ENV_INITIAL_POLL_DELAY, self.initial_queue_polling_delay, 0)
        self.command_timeout = _env_float(ENV_COMMAND_TIMEOUT, self.command_timeout, 1)
        self.command_retries = int(_env_float(ENV_COMMAND_RETRIES, self.command_retries, 0))
        self.queue_polling_error_threshold = int(_env_float(
            ENV_ERROR_THRESHOLD, self.queue_polling_error_threshold, 0))
        if self.min_queue_polling_interval > self.queue_polling_interval:
            self.min_queue_polling_interval = self.queue_polling_interval

    @classmethod
    def _from_config(cls, config: JobExecutorConfig) -> 'PBSProExecutorConfig':
        new = cls()
        new.work_directory = config.work_directory
        new.launcher_log_file = config.launcher_log_file
        if isinstance(config, BatchSchedulerExecutorConfig):
            new.keep_files = config.keep_files
        return new
