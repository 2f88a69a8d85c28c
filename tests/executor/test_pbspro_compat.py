"""The executor against the installed psij (0.9.11 or the development branch): the poll-thread
contract covers what psij's base class uses, and the features follow what psij offers
(psijpbs/compat.py; issue 12: on psij master every submit failed on ``status_updater``)."""
import importlib
import inspect
import re
from pathlib import Path
from typing import Set

import pytest
from psij import Job, JobSpec, JobState, JobStatus
from psij.executors.batch import batch_scheduler_executor

from psijpbs import compat
from psijpbs.executor import PBSProJobExecutor
from psijpbs.staging import staging_context

_USE = re.compile(r'self\._queue_poll_thread\.(\w+)')


def _contract() -> Set[str]:
    names = set(getattr(compat.PollThreadContract, '__annotations__', {}))
    names |= {name for name, _ in inspect.getmembers(compat.PollThreadContract,
                                                     inspect.isfunction)}
    return names - {'__init__'}


def test_contract_covers_what_psij_uses(executor: PBSProJobExecutor) -> None:
    """Every ``self._queue_poll_thread.<name>`` in the installed psij's BatchSchedulerExecutor
    is in PollThreadContract, and the executor's poll thread has it."""
    used = set(_USE.findall(inspect.getsource(batch_scheduler_executor.BatchSchedulerExecutor)))
    assert 'register_job' in used
    assert used <= _contract(), used - _contract()
    poller: object = executor._queue_poll_thread
    assert poller is executor._poller
    for name in _contract():
        assert hasattr(poller, name), name
    assert (executor._poller.status_updater is None) == (compat.STATUS_UPDATER_CLASS is None)


def test_unregister_keeps_other_jobs_of_the_id(executor: PBSProJobExecutor) -> None:
    """psij > 0.9.11 unregisters each job as it ends; a second job attached to the same id is
    still polled for, and the id is forgotten with its last job."""
    first, second = Job(), Job()
    for job in (first, second):
        job._native_id = '7.vm'
        executor._poller.register_job(job)
    executor._poller.unregister_job(first)
    assert executor._poller.tracked_ids() == ['7.vm']
    executor._poller.unregister_job(second)
    executor._poller.unregister_job(second)  # psij may call it twice (poll loop and base)
    assert executor._poller.tracked_ids() == []


@pytest.mark.skipif(compat.STATUS_UPDATER_CLASS is None,
                    reason="psij 0.9.11's base class does not unregister jobs")
def test_final_status_through_psij_unregisters(executor: PBSProJobExecutor) -> None:
    """psij > 0.9.11: a final status set through psij's base class ends the job's tracking,
    on the poll thread and on psij's status channel."""
    job = Job(JobSpec('/bin/true'))
    job._native_id = '8.vm'
    job.executor = executor
    executor._poller.register_job(job)
    updater = executor._poller.status_updater
    assert updater is not None
    assert job.id in getattr(updater, '_jobs', {job.id: None})
    executor._set_job_status(job, JobStatus(JobState.COMPLETED, exit_code=0))
    assert executor._poller.tracked_ids() == []
    assert job.id not in getattr(updater, '_jobs', {})


@pytest.mark.skipif(not compat.STAGING, reason='this psij has no file staging (0.9.11)')
def test_staging_lines_quote_once(tmp_path: Path) -> None:
    """Stage-in/out and cleanup become calls of psij's staging functions with each argument
    quoted once (psij's own partials write "'a b'" for a path with a space), in a stable
    order, each phase led by its status message."""
    staging = importlib.import_module('psij.staging')  # absent in psij 0.9.11
    StageIn, StageOut, URI = staging.StageIn, staging.StageOut, staging.URI
    StageOutFlags, StagingMode = staging.StageOutFlags, staging.StagingMode
    spec = JobSpec('/bin/true', directory=tmp_path / 'job dir')
    setattr(spec, 'stage_in', {StageIn(tmp_path / 'in put', 'b', mode=StagingMode.LINK),
                               StageIn(tmp_path / 'a', 'a')})
    setattr(spec, 'stage_out', {StageOut('out 1', tmp_path / 'o',
                                         flags=StageOutFlags.IF_PRESENT)})
    setattr(spec, 'cleanup', {'out 1'})
    ctx = staging_context(Job(spec))
    assert ctx['stage_in'] == ['_psij_update_status STAGE_IN',
                               '_psij_do_stage %s a 1 0' % (tmp_path / 'a'),
                               "_psij_do_stage '%s' b 2 0" % (tmp_path / 'in put')]
    assert ctx['stage_out'] == ['_psij_update_status STAGE_OUT',
                                "_psij_do_stageout 'out 1' %s 1 15 \"$_psij_ec\""
                                % (tmp_path / 'o')]
    assert ctx['cleanup'] == ['_psij_update_status CLEANUP',
                              "_psijpbs_cleanup 'out 1' 14 \"$_psij_ec\""]
    assert ctx['cleanup_root'] == "'%s'" % (tmp_path / 'job dir')
    setattr(spec, 'stage_in', {StageIn(URI('https://example.org/x'), 'x')})
    with pytest.raises(Exception, match='https staging is not supported'):
        staging_context(Job(spec))
