"""Commands: cancel output handling (c01, c02), listing (k07g qselect, b12 qstat -u), the current
user without a terminal, retries of transient failures, and configuration from the
environment."""
import os
import sys
from pathlib import Path
from typing import List

import pytest
from psij import SubmitException
from psij.executors.batch.batch_scheduler_executor import InvalidJobStateError

from .pbspro_testutil import merged_output, transcript
from psijpbs import commands
from psijpbs.config import PBSProExecutorConfig
from psijpbs.executor import PBSProJobExecutor


@pytest.mark.parametrize('name', ['c01', 'c02'])
def test_cancel_of_gone_job_is_invalid_state(executor: PBSProJobExecutor, name: str) -> None:
    """c01 ``qdel: Unknown Job Id 999.vm`` (153), c02 ``qdel: Job has finished 0.vm`` (35):
    nothing to cancel, which psij's cancel() ignores."""
    case = transcript(name)
    with pytest.raises(InvalidJobStateError):
        executor.process_cancel_command_output(int(case['exit_code']), merged_output(case))


def test_cancel_of_exiting_job_is_invalid_state(executor: PBSProJobExecutor) -> None:
    """qdel of a job in state E: ``Request invalid for state of job`` (168)."""
    with pytest.raises(InvalidJobStateError):
        executor.process_cancel_command_output(
            168, 'qdel: Request invalid for state of job 5.vm\n')


def test_cancel_other_failure_is_submit_exception(executor: PBSProJobExecutor) -> None:
    """Any other qdel failure (here: not the owner, 159) is reported to the caller."""
    with pytest.raises(SubmitException, match='Unauthorized'):
        executor.process_cancel_command_output(159, 'qdel: Unauthorized Request  5.vm\n')


def test_list_parses_qselect_and_qstat_u(executor: PBSProJobExecutor) -> None:
    """k07g ``qselect -u``: one id a line; b12 / k08m ``qstat -u`` / ``-a -w``: header lines
    skipped, ids kept; b12b: nothing."""
    assert executor.parse_list_output(str(transcript('k07g')['stdout'])) == \
        ['389.vm', '390.vm', '393.vm', '394.vm', '395.vm']
    assert executor.parse_list_output(str(transcript('b12_')['stdout'])) == \
        ['1.vm', '4.vm', '5.vm', '7.vm', '8.vm', '9.vm', '15.vm']
    assert executor.parse_list_output(str(transcript('k08m')['stdout']))[0] == '389.vm'
    assert executor.parse_list_output(str(transcript('b12b')['stdout'])) == []


def test_list_command_without_terminal(executor: PBSProJobExecutor,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """psij's list() uses os.getlogin(), which fails without a controlling terminal (ENXIO)."""
    def no_terminal() -> str:
        raise OSError(6, 'No such device or address')
    monkeypatch.setattr(os, 'getlogin', no_terminal)
    command = executor.get_list_command()
    assert command[:2] == ['qselect', '-u'] and command[2]


def _flaky_command(tmp_path: Path, code: int) -> List[str]:
    """A command that fails with ``code`` the first time and succeeds the second."""
    marker = tmp_path / 'ran-once'
    program = ('import pathlib, sys\n'
               'm = pathlib.Path(%r)\n'
               'if m.exists():\n    print("ok")\n    sys.exit(0)\n'
               'm.write_text("x")\n'
               'sys.stderr.write("qstat: cannot connect to server vm (errno=111)\\n")\n'
               'sys.exit(%d)\n' % (str(marker), code))
    return [sys.executable, '-c', program]


def test_transient_failure_is_retried(tmp_path: Path) -> None:
    """rc 185 / 'cannot connect to server' (PBSE_NOCONNECTS) is retried, then succeeds."""
    result = commands.run_with_retries(_flaky_command(tmp_path, 185), 30, 2,
                                       first_pause=0.01)
    assert result.exit_code == 0 and result.stdout == 'ok\n'


def test_qsub_is_not_retried_after_premature_end() -> None:
    """rc 183 (premature end of message) may come after the job was queued: retried for
    qstat/qdel, never for qsub (a retry could submit the job twice)."""
    result = commands.run_once([sys.executable, '-c', 'import sys; sys.exit(183)'], 30)
    assert commands.is_transient(result, commands.TRANSIENT_QUERY_CODES)
    assert not commands.is_transient(result, commands.TRANSIENT_SUBMIT_CODES)


def test_timeout_becomes_exit_code_124() -> None:
    """A hung command is abandoned after the configured timeout."""
    result = commands.run_once([sys.executable, '-c', 'import time; time.sleep(5)'], 0.5)
    assert result.exit_code == commands.TIMEOUT_EXIT_CODE
    assert commands.is_transient(result, commands.TRANSIENT_QUERY_CODES)
    assert not commands.is_transient(result, commands.TRANSIENT_SUBMIT_CODES)


def test_config_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """psij's upstream tests cannot pass a config: PSIJ_PBSPRO_* variables tune polling."""
    monkeypatch.setenv('PSIJ_PBSPRO_POLL_INTERVAL', '1.5')
    monkeypatch.setenv('PSIJ_PBSPRO_MIN_POLL_INTERVAL', '0.1')
    monkeypatch.setenv('PSIJ_PBSPRO_COMMAND_TIMEOUT', 'not-a-number')
    config = PBSProExecutorConfig()
    assert config.queue_polling_interval == 1.5
    assert config.min_queue_polling_interval == 0.1
    assert config.command_timeout == 60
