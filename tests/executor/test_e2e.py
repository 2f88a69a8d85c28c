"""End to end: real jobs submitted through PSI/J's ``pbspro`` executor to a PBS: the fake
cluster (``fake_pbs/bin`` first on PATH, as users do) or, with ``--real-pbs``, the PBS on PATH
(conftest.py, pbs_site.py). Each test names the PBS/PSI/J behaviour it pins.
"""
import importlib
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any, Iterator, List, Optional

import pytest
from psij import Job, JobAttributes, JobExecutor, JobSpec, JobState, ResourceSpecV1

from .pbs_site import PbsSite
from psijpbs import compat
from psijpbs.config import PBSProExecutorConfig

WAIT = timedelta(seconds=60)


@pytest.fixture
def executor(execparams: object, pbs: PbsSite, tmp_path: Path) -> Iterator[JobExecutor]:
    """A pbspro executor (through psij's registry) with its work dir in tmp, polling fast."""
    pbs.require_jobs()
    config = PBSProExecutorConfig(work_directory=tmp_path / 'psij-work',
                                  queue_polling_interval=2, min_queue_polling_interval=0.2,
                                  initial_queue_polling_delay=0.2)
    ex = JobExecutor.get_instance(getattr(execparams, 'executor'),
                                  url=getattr(execparams, 'url'), config=config)
    yield ex


def _spec(execparams: object, executable: str, arguments: Optional[List[str]] = None,
          **kwargs: Any) -> JobSpec:
    spec = JobSpec(executable, arguments, **kwargs)
    launcher = getattr(execparams, 'launcher')
    if launcher:
        spec.launcher = launcher
    return spec


def _run(ex: JobExecutor, spec: JobSpec) -> Job:
    job = Job(spec)
    ex.submit(job)
    status = job.wait(timeout=WAIT)
    assert status is not None, 'job %s did not finish in %s' % (job.native_id, WAIT)
    return job


def _aux_files(ex: JobExecutor) -> List[str]:
    return sorted(p.name for p in Path(getattr(ex, 'work_directory')).glob('*')
                  if p.suffix in ('.ec', '.out', '.job'))


def test_real_pbs_runs_without_the_fake(pbs: PbsSite, request: pytest.FixtureRequest) -> None:
    """The executor's tests reach PBS only through ``pbs``: none asks for the fake's fixtures,
    and with --real-pbs nothing of fake_pbs is loaded into the test process (unless a plugin
    or other test directories load it), so a site's cluster needs only psijpbs and the PBS
    commands on PATH. By default the fake is what runs."""
    ours = [item for item in request.session.items
            if item.nodeid.startswith('tests/executor/')]
    for item in ours:
        used = set(getattr(item, 'fixturenames', ()))
        assert not used & {'fake_pbs', 'fake_cluster'}, item.nodeid
    if not pbs.real:
        assert pbs.fake is not None and 'fake_pbs' in sys.modules
    elif (len(ours) == len(request.session.items)
          and not request.config.pluginmanager.has_plugin('fake_pbs.testing')):
        assert 'fake_pbs' not in sys.modules


def test_simple_job_completes_and_leaves_no_files(execparams: object,
                                                  executor: JobExecutor) -> None:
    """psij test_simple_job: /bin/date -> COMPLETED, exit code 0; unlike psij's base class the
    .out of a COMPLETED job is removed too."""
    job = _run(executor, _spec(execparams, '/bin/date'))
    assert job.status.state == JobState.COMPLETED, job.status
    assert job.status.exit_code == 0
    assert _aux_files(executor) == []


def test_failing_job_reports_exit_code(execparams: object, executor: JobExecutor) -> None:
    """psij test_failing_job: a non-zero exit -> FAILED with that exit code (from .ec)."""
    job = _run(executor, _spec(execparams, '/bin/bash', ['-c', 'exit 3']))
    assert job.status.state == JobState.FAILED, job.status
    assert job.status.exit_code == 3


def test_cancel_running_job(execparams: object, executor: JobExecutor) -> None:
    """psij test_cancel: qdel of a running job (Exit_status 271 on PBS) -> CANCELED; a second
    cancel of the ended job is a no-op."""
    job = Job(_spec(execparams, '/bin/sleep', ['60']))
    executor.submit(job)
    job.wait(target_states=[JobState.ACTIVE], timeout=WAIT)
    assert job.status.state == JobState.ACTIVE, job.status
    job.cancel()
    status = job.wait(timeout=WAIT)
    assert status is not None and status.state == JobState.CANCELED, job.status
    job.cancel()
    assert _aux_files(executor) == []


def test_env_vars_and_redirects(execparams: object, executor: JobExecutor,
                                tmp_path: Path) -> None:
    """psij test_env_var/test_simple_job_redirect/test_stderr_redirect: the spec's variables
    reach the job; stdout and stderr go to the requested files."""
    out, err = tmp_path / 'out.txt', tmp_path / 'err.txt'
    spec = _spec(execparams, '/bin/bash', ['-c', 'echo -n "$TEST_VAR$TEST_INT"; echo -n e >&2'],
                 environment={'TEST_VAR': '_y _', 'TEST_INT': 1}, stdout_path=out,
                 stderr_path=err)
    job = _run(executor, spec)
    assert job.status.state == JobState.COMPLETED, job.status
    assert out.read_text() == '_y _1'
    assert err.read_text() == 'e'


def test_clean_environment(execparams: object, executor: JobExecutor, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """inherit_environment=False: the submitter's variables do not reach the job, the spec's
    do."""
    monkeypatch.setenv('PSIJPBS_SUBMITTER_ONLY', 'leak')
    out = tmp_path / 'out.txt'
    spec = _spec(execparams, '/bin/bash',
                 ['-c', 'echo "[${PSIJPBS_SUBMITTER_ONLY:-}] [$MINE]"'],
                 environment={'MINE': 'x'}, inherit_environment=False, stdout_path=out)
    job = _run(executor, spec)
    assert job.status.state == JobState.COMPLETED, job.status
    assert out.read_text() == '[] [x]\n'


def test_directory(execparams: object, executor: JobExecutor, tmp_path: Path) -> None:
    """spec.directory (with a space) is the job's working directory; a missing one fails the
    job with a message saying so."""
    workdir = tmp_path / 'dir with space'
    workdir.mkdir()
    out = tmp_path / 'pwd.txt'
    job = _run(executor, _spec(execparams, '/bin/pwd', directory=workdir, stdout_path=out))
    assert job.status.state == JobState.COMPLETED, job.status
    assert out.read_text().strip() == str(workdir)
    job = _run(executor, _spec(execparams, '/bin/pwd', directory=tmp_path / 'missing'))
    assert job.status.state == JobState.FAILED, job.status
    assert job.status.message is not None and 'missing' in job.status.message


def test_multi_node_select(execparams: object, executor: JobExecutor, tmp_path: Path,
                           pbs: PbsSite) -> None:
    """user_guide test_resourcespec: node_count=2, processes_per_node=2 renders
    select=2:ncpus=2:mpiprocs=2 with place=scatter; PBS accepts and runs it, and
    $PSIJ_NODEFILE has one line per process."""
    pbs.require_nodes(2, 2)
    out = tmp_path / 'nodes.txt'
    spec = _spec(execparams, '/bin/bash', ['-c', 'wc -l < "$PSIJ_NODEFILE"'], stdout_path=out,
                 resources=ResourceSpecV1(node_count=2, processes_per_node=2),
                 attributes=JobAttributes(duration=timedelta(seconds=3700.5)))
    if spec.launcher not in (None, 'single'):
        pytest.skip('the line count is printed once only with the single launcher')
    job = _run(executor, spec)
    assert job.status.state == JobState.COMPLETED, job.status
    assert out.read_text().strip() == '4'


def test_list_right_after_submit(execparams: object, executor: JobExecutor) -> None:
    """psij test_list: the job is listed as soon as qsub returned (qselect -u <user>)."""
    job = Job(_spec(execparams, '/bin/sleep', ['2']))
    executor.submit(job)
    assert job.native_id in executor.list()
    job.wait(timeout=WAIT)
    assert job.status.state == JobState.COMPLETED, job.status


def test_attach_unknown_id_fails(execparams: object, executor: JobExecutor,
                                 pbs: PbsSite) -> None:
    """attach to an id PBS never had (qstat: Unknown Job Id, rc 153) -> FAILED, not
    COMPLETED."""
    job = Job()
    executor.attach(job, '99999.' + pbs.server_name)
    status = job.wait(timeout=WAIT)
    assert status is not None and status.state == JobState.FAILED, job.status
    assert status.message is not None and 'no longer knows' in status.message


def test_attach_to_submitted_job(execparams: object, executor: JobExecutor) -> None:
    """psij test_attach2: a second executor instance attached to a running job sees it end
    COMPLETED (from the .ec file or, if the first executor consumed it, Exit_status 0)."""
    job = Job(_spec(execparams, '/bin/sleep', ['1']))
    executor.submit(job)
    other = JobExecutor.get_instance('pbspro', config=executor.config)
    attached = Job()
    assert job.native_id is not None
    other.attach(attached, job.native_id)
    job.wait(timeout=WAIT)
    attached.wait(timeout=WAIT)
    assert job.status.state == JobState.COMPLETED, job.status
    assert attached.status.state == JobState.COMPLETED, attached.status


def test_without_job_history(execparams: object, executor: JobExecutor,
                             pbs: PbsSite) -> None:
    """job_history_enable = False (the real default): finished jobs vanish and qstat -x says
    'Unknown Job Id' (rc 153, as payu#865 shows). Outcomes still come from the .ec files:
    COMPLETED and FAILED(3), not 'all jobs failed to poll' as with psij's built-in pbs."""
    fake = pbs.require_manager('turn job history off')
    done = fake.run(['qmgr', '-c', 'set server job_history_enable = False'])
    assert done.returncode == 0, done.stderr
    ok = Job(_spec(execparams, '/bin/true'))
    bad = Job(_spec(execparams, '/bin/bash', ['-c', 'exit 3']))
    executor.submit(ok)
    executor.submit(bad)
    ok.wait(timeout=WAIT)
    bad.wait(timeout=WAIT)
    assert ok.status.state == JobState.COMPLETED, ok.status
    assert bad.status.state == JobState.FAILED and bad.status.exit_code == 3, bad.status


def test_walltime_exceeded(execparams: object, executor: JobExecutor) -> None:
    """A job over its walltime is killed by PBS (Exit_status -29, transcript b08c): FAILED with
    a message saying the walltime was exceeded."""
    spec = _spec(execparams, '/bin/sleep', ['60'],
                 attributes=JobAttributes(duration=timedelta(seconds=2)))
    job = _run(executor, spec)
    assert job.status.state == JobState.FAILED, job.status
    assert job.status.message is not None and 'walltime' in job.status.message, job.status


def test_walltime_kill_children_first(execparams: object, executor: JobExecutor,
                                      pbs: PbsSite, tmp_path: Path) -> None:
    """Real PBS signals a walltime kill bottom-up (kill_task: the job's children first, its
    shell last), so the shell may see its child die of SIGTERM and write an .ec of 143 before
    it is signalled itself (issue 12: 1 of 9 walltime kills on OpenPBS 23.06.06). The fake's
    ``bottomup`` fault reproduces that order with a gap; the job is still FAILED with PBS's
    walltime message (Exit_status -29, transcript b08c), not exit code 143."""
    fake = pbs.require_fake("the fake's bottomup kill order")
    from fake_pbs import control
    for host in fake.hosts:
        control.fault(fake.home, str(host['name']), 'bottomup')
    try:
        # The race is there: the shell outlives its child's SIGTERM and records it.
        probe = tmp_path / 'probe.ec'
        jobid = fake.qsub('sleep 60; echo $? > %s' % probe, '-l', 'walltime=2')
        attrs = fake.wait(jobid, timeout=60)
        assert attrs.get('Exit_status') == '-29', attrs
        assert probe.read_text().strip() == '143'
        spec = _spec(execparams, '/bin/sleep', ['60'],
                     attributes=JobAttributes(duration=timedelta(seconds=2)))
        job = _run(executor, spec)
    finally:
        control.clear_faults(fake.home)
    assert job.status.state == JobState.FAILED, job.status
    assert job.status.message is not None and 'walltime' in job.status.message, job.status
    assert job.status.exit_code == -29, job.status


def test_inline_and_script_launchers_agree(execparams: object, executor: JobExecutor,
                                           tmp_path: Path) -> None:
    """psij's single launcher, run inline by the job script when it has nothing else to do,
    and run as single_launch.sh when a pre-launch script must be sourced first: the same
    redirections, the same exit code (psij test_failing_job), the pre-launch script's
    variables reach the executable (psij test_pre_launch)."""
    pre = tmp_path / 'pre.sh'
    pre.write_text('export PSIJPBS_PRE=from-pre\n')
    for pre_launch in (None, pre):
        out = tmp_path / 'out.txt'
        spec = _spec(execparams, '/bin/bash',
                     ['-c', 'echo "[${PSIJPBS_PRE:-}]"; echo e >&2; exit 5'],
                     stdout_path=out, stderr_path=tmp_path / 'err.txt', pre_launch=pre_launch)
        job = _run(executor, spec)
        assert job.status.state == JobState.FAILED, job.status
        assert job.status.exit_code == 5
        assert out.read_text() == ('[from-pre]\n' if pre_launch else '[]\n')
        assert (tmp_path / 'err.txt').read_text() == 'e\n'
    job = _run(executor, _spec(execparams, str(tmp_path / 'no-such-program')))
    assert job.status.state == JobState.FAILED, job.status
    assert job.status.exit_code == 127  # bash: command not found, as in single_launch.sh


@pytest.mark.skipif(not compat.STAGING, reason='this psij has no file staging (0.9.11)')
def test_staging_paths_with_spaces_and_failure(execparams: object, executor: JobExecutor,
                                               tmp_path: Path) -> None:
    """psij > 0.9.11 test_staging, with what psij's own partials get wrong: a source and a
    job directory with spaces are staged in, a result staged out, a file cleaned up; a missing
    source fails the job with psij's staging exit code 121 and the reason as its message."""
    staging = importlib.import_module('psij.staging')
    source = tmp_path / 'in put.txt'
    source.write_text('ABC')
    workdir = tmp_path / 'job dir'
    workdir.mkdir()
    result = tmp_path / 'res ult.txt'
    spec = _spec(execparams, '/bin/bash', ['-c', 'cat "in 1" > "out 1"; touch scratch'],
                 directory=workdir)
    setattr(spec, 'stage_in', {staging.StageIn(source, 'in 1')})
    setattr(spec, 'stage_out', {staging.StageOut('out 1', result)})
    setattr(spec, 'cleanup', {'scratch'})
    job = _run(executor, spec)
    assert job.status.state == JobState.COMPLETED, job.status
    assert result.read_text() == 'ABC'
    assert not (workdir / 'scratch').exists()
    spec = _spec(execparams, '/bin/true', directory=workdir)
    setattr(spec, 'stage_in', {staging.StageIn(tmp_path / 'no such file', 'x')})
    job = _run(executor, spec)
    assert job.status.state == JobState.FAILED, job.status
    assert job.status.exit_code == 121, job.status
    assert job.status.message is not None and 'Missing source file' in job.status.message
