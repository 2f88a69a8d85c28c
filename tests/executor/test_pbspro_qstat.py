"""Parsing real ``qstat -f -F json`` output from OpenPBS 23.06.06 (transcripts in tests/data/qstat,
captured from the project's fidelity set)."""
from pathlib import Path

import pytest
from psij import JobState

from .pbspro_testutil import DATA, merged_output, poll_statuses, transcript
from psijpbs.executor import PBSProJobExecutor
from psijpbs.qstat_json import split_leading_json
from psijpbs.qstat_output import QstatError, parse_qstat, same_job


def test_running_job_is_active() -> None:
    """b03: a running job (job_state R, substate 42) is ACTIVE, without the 'Job run at' comment."""
    case = transcript('b03_')
    statuses = poll_statuses(int(case['exit_code']), merged_output(case))
    assert list(statuses) == ['13.vm']
    assert statuses['13.vm'].state == JobState.ACTIVE
    assert statuses['13.vm'].message is None


def test_queued_job_is_queued_with_scheduler_comment() -> None:
    """b03b: a queued job (Q) is QUEUED and keeps the scheduler's comment as its message."""
    case = transcript('b03b')
    statuses = poll_statuses(int(case['exit_code']), merged_output(case))
    (status,) = statuses.values()
    assert status.state == JobState.QUEUED


def test_finished_exit0_is_completed() -> None:
    """b04: F, substate 92, Exit_status 0 -> COMPLETED with exit code 0."""
    case = transcript('b04')
    status = poll_statuses(0, str(case['stdout']))['0.vm']
    assert status.state == JobState.COMPLETED
    assert status.exit_code == 0


def test_finished_exit3_is_failed_with_code() -> None:
    """b07b: F, substate 93, Exit_status 3 -> FAILED, exit code 3, PBS comment in the message."""
    case = transcript('b07b')
    status = poll_statuses(0, str(case['stdout']))['16.vm']
    assert status.state == JobState.FAILED
    assert status.exit_code == 3
    assert status.message is not None and 'and failed' in status.message


def test_walltime_kill_is_failed_with_reason() -> None:
    """b08c: Exit_status -29 (JOB_EXEC_KILL_WALLTIME) -> FAILED saying the walltime was
    exceeded."""
    case = transcript('b08c')
    status = poll_statuses(0, str(case['stdout']))['17.vm']
    assert status.state == JobState.FAILED
    assert status.exit_code == -29
    assert status.message is not None and 'walltime exceeded' in status.message


def test_qdel_of_running_job_is_canceled() -> None:
    """b05b: qdel'd running job: F, substate 91, Exit_status 271 (SIGTERM) -> CANCELED."""
    case = transcript('b05b')
    status = poll_statuses(0, str(case['stdout']))['13.vm']
    assert status.state == JobState.CANCELED


def test_deleted_but_still_running_is_active() -> None:
    """b05: one second after qdel the job is still R (comment already says terminated): not
    final yet."""
    case = transcript('b05_')
    status = poll_statuses(0, str(case['stdout']))['13.vm']
    assert status.state == JobState.ACTIVE


def test_force_deleted_exiting_is_active_then_canceled() -> None:
    """c04b/c04c: qdel -W force: E with Exit_status 265 is still ACTIVE; F substate 91 is
    CANCELED."""
    exiting = transcript('c04b')
    final = transcript('c04c')
    assert poll_statuses(0, str(exiting['stdout']))['14.vm'].state \
        == JobState.ACTIVE
    assert poll_statuses(0, str(final['stdout']))['14.vm'].state \
        == JobState.CANCELED


def test_deleted_while_queued_is_canceled() -> None:
    """c10b: a held job deleted before running: F, substate 91, no Exit_status -> CANCELED."""
    case = transcript('c10b')
    status = poll_statuses(0, str(case['stdout']))['8.vm']
    assert status.state == JobState.CANCELED


def test_preempted_by_deletion_is_failed_naming_preemption() -> None:
    """g08: preempt_order D: F, substate 91, Exit_status 271, comment 'terminated by
    Scheduler@vm' -> FAILED, message names the preemption."""
    case = transcript('g08')
    status = poll_statuses(0, str(case['stdout']))['19.vm']
    assert status.state == JobState.FAILED
    assert status.message is not None and 'preempt' in status.message


def test_held_after_hook_rejections_stays_queued() -> None:
    """f12: job held after too many failed starts (H, Exit_status -16): QUEUED, not final,
    with the comment as message."""
    case = transcript('f12')
    status = poll_statuses(0, str(case['stdout']))['22.vm']
    assert status.state == JobState.QUEUED
    assert status.message == 'job held, too many failed attempts to run'


def test_unknown_id_keeps_found_jobs() -> None:
    """b21: ``qstat -f -F json -x 16.vm 999.vm`` exits 153 with 16.vm on stdout and
    'Unknown Job Id 999.vm' on stderr: 16.vm is still reported."""
    case = transcript('b21')
    assert case['exit_code'] == 153
    out = merged_output(case)
    statuses = poll_statuses(153, out)
    assert statuses['16.vm'].state == JobState.FAILED
    assert '999.vm' not in statuses
    result = parse_qstat(153, out)
    assert result.unknown == {'999.vm'}


def test_unknown_first_then_running() -> None:
    """b11d: unknown id first, running job second, without -x: the running job is ACTIVE."""
    case = transcript('b11d')
    statuses = poll_statuses(int(case['exit_code']), merged_output(case))
    assert statuses['15.vm'].state == JobState.ACTIVE


def test_only_unknown_has_no_jobs_key() -> None:
    """b11e: the JSON header without "Jobs" (and without a final newline), then the error."""
    case = transcript('b11e')
    result = parse_qstat(153, merged_output(case))
    assert result.jobs == {}
    assert result.unknown == {'999.vm'}


def test_two_ids_both_reported() -> None:
    """b22: ``qstat -f -F json -x 16.vm 17.vm`` on the release prints both jobs."""
    case = transcript('b22_')
    statuses = poll_statuses(0, str(case['stdout']))
    assert statuses['16.vm'].exit_code == 3
    assert statuses['17.vm'].exit_code == -29


def test_master_json_layout_and_first_job_only_bug() -> None:
    """openpbs-master b22: tab-indented JSON, and only the first of two ids printed (OpenPBS
    #2672): the second id is simply not mentioned, it is not reported as anything."""
    case = transcript('master_b22')
    result = parse_qstat(0, str(case['stdout']))
    assert list(result.jobs) == ['8.vm']
    assert not result.unknown


def test_invalid_backslash_json_is_repaired() -> None:
    """a19f: 23.06 prints ``"Submit_arguments":"-h -v BS=c\\d hello.sh"`` (an invalid JSON
    escape): the job is still parsed, the value keeps its backslash."""
    case = transcript('a19f')
    out = str(case['stdout'])
    with pytest.raises(ValueError):
        import json
        json.loads(out)
    obj, _ = split_leading_json(out)
    assert obj is not None
    job = obj['Jobs']['8.vm']
    assert job['Submit_arguments'] == '-h -v BS=c\\d hello.sh'
    assert job['Variable_List']['BS'] == 'c\\\\d'
    assert poll_statuses(0, out)['8.vm'].state == JobState.QUEUED


def test_other_broken_values_do_not_hide_the_job() -> None:
    """openpbs-behaviour §2.4: 23.06 writes values like ``00`` or ``inf`` bare and may leave
    quotes unescaped; the job's state is still read."""
    out = ('{\n    "timestamp":1,\n    "pbs_version":"23.06.06",\n    "pbs_server":"vm",\n'
           '    "Jobs":{\n        "5.vm":{\n            "Job_Name":00,\n'
           '            "job_state":"F",\n            "comment":"say "hi"",\n'
           '            "Variable_List":{\n                "A":inf,\n'
           '                "B":"x\\\'y"\n            },\n'
           '            "Exit_status":2\n        }\n    }\n}\n')
    result = parse_qstat(0, out)
    report = result.jobs['5.vm']
    assert report.state == 'F'
    assert report.exit_status == 2
    assert report.comment == 'say "hi"'


def test_finished_without_x_and_history_disabled_lines() -> None:
    """b10c (``Job has finished``, rc 35) and the history-disabled message (rc 0) are
    recognized per id."""
    finished = transcript('b10c')
    result = parse_qstat(35, str(finished['stderr']))
    assert result.finished == {'0.vm'}
    header = '{\n    "timestamp":1,\n    "pbs_version":"23.06.06",\n    "pbs_server":"vm"\n}'
    line = 'qstat: PBS is not configured to maintain job history 12.vm\n'
    result = parse_qstat(0, header + '\n' + line)
    assert result.history_disabled


def test_whole_failure_raises() -> None:
    """``qstat: cannot connect to server`` says nothing about any job: a poll error."""
    with pytest.raises(QstatError):
        parse_qstat(162, 'qstat: cannot connect to server vm (errno=111)')


def test_unknown_state_letter_is_logged_not_asserted() -> None:
    """An unknown job_state letter (not in PBS 23.06) leaves that job out, others unaffected."""
    out = ('{"timestamp":1,"Jobs":{"1.vm":{"job_state":"Z"},'
           '"2.vm":{"job_state":"R"}}}')
    statuses = poll_statuses(0, out)
    assert '1.vm' not in statuses
    assert statuses['2.vm'].state == JobState.ACTIVE


def test_job_id_qualification() -> None:
    """PBS qualifies ids with the server name (``qstat 999`` -> ``Unknown Job Id 999.vm``)."""
    assert same_job('999', '999.vm')
    assert same_job('12.vm', '12.vm.example.org')
    assert not same_job('12.vm', '12.other')
    assert not same_job('12.vm', '120.vm')


@pytest.mark.parametrize('path', sorted(DATA.glob('*.json')), ids=lambda p: p.stem)
def test_parse_status_output_agrees_with_the_poll(executor: PBSProJobExecutor,
                                                  path: Path) -> None:
    """psij's ``parse_status_output`` concludes what the poll loop concludes, on every transcript
    that says something about a job."""
    case = transcript(path.stem)
    code, out = int(case['exit_code']), merged_output(case)
    try:
        expected = poll_statuses(code, out)
    except QstatError:
        return
    got = executor.parse_status_output(code, out)
    assert {k: (s.state, s.exit_code, s.message) for k, s in got.items()} == \
        {k: (s.state, s.exit_code, s.message) for k, s in expected.items()}
