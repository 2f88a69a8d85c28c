"""The submit script rendered by pbspro.mustache, checked line for line.

The directive forms follow what qsub accepts (openpbs-behaviour.md §1, transcripts a02*: names of
alnum and ``-_+.`` only, at most 230 characters; walltime ``HH:MM:SS``)."""
import io
from datetime import timedelta
from pathlib import Path
from typing import List

import pytest
from psij import Job, JobAttributes, JobSpec, ResourceSpecV1, SubmitException

from psijpbs import compat
from psijpbs.executor import PBSProJobExecutor
from psijpbs.script import build_context, format_memory, format_walltime, inline_single_launch, \
    job_name

LAUNCH = ['/bin/bash', '/w/launch.sh', 'ID', '', '', '', '/dev/null', '/dev/null', '/dev/null',
          '/bin/echo', 'hello world', "it's"]
LAUNCH_Q = ("/bin/bash /w/launch.sh ID '' '' '' /dev/null /dev/null /dev/null /bin/echo "
            "'hello world' 'it'\"'\"'s'")


def render(executor: PBSProJobExecutor, job: Job, launch: List[str] = LAUNCH) -> str:
    context = {'job': job, 'pbspro': build_context(job, Path('/work dir'), launch)}
    out = io.StringIO()
    executor.generate_submit_script(job, context, out)
    return out.getvalue()


BODY_HEAD = '''
exec &>>'/work dir'/"$PBS_JOBID".out

_psij_write_ec() {
    echo "$1" >'/work dir'/"$PBS_JOBID".ec
}

PSIJ_NODEFILE="$PBS_NODEFILE"
export PSIJ_NODEFILE

'''
BODY_TAIL = '''_psij_ec=$?
_psij_write_ec "$_psij_ec"
exit "$_psij_ec"
'''


def test_minimal_job_script(executor: PBSProJobExecutor) -> None:
    """Defaults: name from the executable's base name, one chunk of one cpu, walltime from
    PSI/J's default 10 minutes, -V (inherit_environment defaults to True), no place."""
    job = Job(JobSpec('/bin/echo', ['hello world', "it's"]))
    expected = ('#!/bin/bash\n'
                '#PBS -N echo\n'
                '#PBS -l select=1:ncpus=1:mpiprocs=1\n'
                '#PBS -l walltime=00:10:00\n'
                '#PBS -V\n'
                '#PBS -o /dev/null\n'
                '#PBS -e /dev/null\n'
                + BODY_HEAD + '\n' + LAUNCH_Q + '\n' + BODY_TAIL)
    assert render(executor, job) == expected


def test_rich_job_script(executor: PBSProJobExecutor) -> None:
    """Every field: sanitized name, select with cpu cores, gpus and memory per chunk,
    scatter:excl, walltime over 24 h with fractions dropped, account, reservation queue (the
    queue named in a comment), custom attributes, a directory with a space, clean env."""
    spec = JobSpec('/bin/echo', ['hello world', "it's"], name='my job: "x"',
                   directory='/data/dir with space', environment={'FOO': 'a b', 'BAR': 'x"y'},
                   inherit_environment=False,
                   resources=ResourceSpecV1(node_count=2, processes_per_node=4,
                                            cpu_cores_per_process=2, gpu_cores_per_process=1,
                                            exclusive_node_use=True, memory=3 * 1024 ** 3),
                   attributes=JobAttributes(duration=timedelta(days=1, hours=2, minutes=3,
                                                               seconds=4.7),
                                            queue_name='workq', account='my acct',
                                            reservation_id='R123',
                                            custom_attributes={'pbs.W': 'depend=afterok:1.vm',
                                                               'PBS.c': 'n', 'pbs.h': True,
                                                               'slurm.qos': 'x'}))
    job = Job(spec)
    expected = ('#!/bin/bash\n'
                '#PBS -N my_job___x\n'
                '#PBS -l select=2:ncpus=8:mpiprocs=4:ngpus=4:mem=1536mb\n'
                '#PBS -l place=scatter:excl\n'
                '#PBS -l walltime=26:03:04\n'
                '#PBS -A "my acct"\n'
                '#PBS -q R123\n'
                '#PBS -W depend=afterok:1.vm\n'
                '#PBS -c n\n'
                '#PBS -h\n'
                '#PBS -o /dev/null\n'
                '#PBS -e /dev/null\n'
                '# queue_name workq not used: jobs of reservation R123 run in its queue\n'
                + BODY_HEAD
                + "if ! cd '/data/dir with space'; then\n"
                "    echo \"psij: cannot change to the job directory \"'/data/dir with space'\n"
                '    _psij_write_ec 1\n'
                '    exit 1\n'
                'fi\n'
                '\n'
                '_psij_keep=()\n'
                'while IFS= read -r _psij_name; do\n'
                '    case "$_psij_name" in\n'
                '        PBS_*|PSIJ_NODEFILE|HOME|USER|LOGNAME|PATH|SHELL|TMPDIR) '
                '_psij_keep+=("$_psij_name=${!_psij_name}") ;;\n'
                '    esac\n'
                'done < <(compgen -e)\n'
                'env -i "${_psij_keep[@]}" FOO=\'a b\' BAR=\'x"y\' ' + LAUNCH_Q + '\n'
                + BODY_TAIL)
    assert render(executor, job) == expected


def test_inherited_environment_is_exported(executor: PBSProJobExecutor) -> None:
    """inherit_environment=True: ``#PBS -V`` and the spec's variables exported, quoted."""
    job = Job(JobSpec('/bin/true', environment={'TEST_INT': 1, 'TEST_VAR': "a'b c"}))
    script = render(executor, job)
    assert '#PBS -V\n' in script
    assert "export TEST_INT=1\nexport TEST_VAR='a'\"'\"'b c'\n" in script
    assert 'env -i' not in script


def test_custom_place_and_select_override_generated(executor: PBSProJobExecutor) -> None:
    """A custom ``pbs.l`` naming place/select replaces the generated line; other -l stay."""
    job = Job(JobSpec('/bin/true', resources=ResourceSpecV1(node_count=2),
                      attributes=JobAttributes(custom_attributes={'pbs.l': 'place=pack'})))
    script = render(executor, job)
    assert '#PBS -l select=2:ncpus=1:mpiprocs=1\n' in script
    assert 'scatter' not in script
    assert '#PBS -l place=pack\n' in script


def test_single_node_exclusive_and_queue(executor: PBSProJobExecutor) -> None:
    """One node, exclusive: ``place=excl`` (no scatter); a queue without reservation is -q."""
    job = Job(JobSpec('/bin/true', resources=ResourceSpecV1(exclusive_node_use=True,
                                                            process_count=3),
                      attributes=JobAttributes(queue_name='workq')))
    script = render(executor, job)
    assert '#PBS -l select=1:ncpus=3:mpiprocs=3\n#PBS -l place=excl\n' in script
    assert '#PBS -q workq\n' in script


def test_bad_values_are_refused(executor: PBSProJobExecutor) -> None:
    """Values that cannot be written safely raise SubmitException instead of a broken script."""
    with pytest.raises(SubmitException):
        render(executor, Job(JobSpec('/bin/true', environment={'BAD NAME': 'x'})))
    with pytest.raises(SubmitException):
        render(executor, Job(JobSpec('/bin/true', attributes=JobAttributes(
            account='a\nb'))))
    with pytest.raises(SubmitException):
        render(executor, Job(JobSpec('/bin/true', attributes=JobAttributes(
            custom_attributes={'pbs.x y': '1'}))))


def test_job_names() -> None:
    """qsub -N accepts alnum and ``-_+.`` up to 230 chars (a02, a02b, a02c); fallback from id."""
    assert job_name(Job(JobSpec('/bin/date'))) == 'date'
    assert job_name(Job(JobSpec('/bin/date', name='1bad name'))) == '1bad_name'
    assert job_name(Job(JobSpec('/bin/date', name='x' * 300))) == 'x' * 230
    job = Job(JobSpec('/bin/date', name='***'))
    assert job_name(job) == 'psij-' + job.id
    assert job_name(Job(JobSpec())).startswith('psij-')


def test_walltime_and_memory_formats() -> None:
    """psij test_issue_435: 3700.5 s -> 01:01:40; sizes in mb when whole, else kb rounded up."""
    assert format_walltime(timedelta(seconds=3700.5)) == '01:01:40'
    assert format_walltime(timedelta(hours=100)) == '100:00:00'
    assert format_memory(100 * 1024 * 1024) == '100mb'
    assert format_memory(1000) == '1kb'
    assert format_memory(1024 * 1024 + 1) == '1025kb'


def test_script_through_psij_context(executor: PBSProJobExecutor) -> None:
    """psij's upstream test_submit_script_generation: every token (including reservation_id
    while a queue is set, and any ``pbs.<key>``) appears in the generated script."""
    attrs = JobAttributes(queue_name='tokq', account='toka', reservation_id='tokr',
                          custom_attributes={'pbs.cust_attr1': 'tokc'})
    job = Job(JobSpec('/bin/tokexe', directory='tokdir', attributes=attrs, launcher='single'))
    out = io.StringIO()
    executor.generate_submit_script(job, executor._create_script_context(job), out)
    script = out.getvalue()
    for token in ('tokq', 'toka', 'tokr', 'tokc', 'tokexe', 'tokdir'):
        assert token in script
    assert "exec &>>%s/\"$PBS_JOBID\".out" % executor.work_directory in script


SINGLE = ['/bin/bash', '/w/0a1b/single_launch.sh', 'ID', '', '', '', '/dev/null', '/o dir/o',
          '/dev/null', '/bin/echo', 'hello world']


def test_single_launcher_runs_inline() -> None:
    """psij's single_launch.sh with no log, pre- or post-launch script only runs the
    executable with the spec's redirections (``"$@" 1>out 2>err <in``) and prints
    ``_PSI_J_LAUNCHER_DONE``: the job shell does the same itself (docs/performance.md)."""
    job = Job(JobSpec('/bin/echo', ['hello world']))
    context = build_context(job, Path('/work dir'), SINGLE, single_launcher=True)
    assert context['launch_command'] == \
        "/bin/echo 'hello world' 1>'/o dir/o' 2>/dev/null </dev/null"
    assert context['launcher_marker'] is True
    assert inline_single_launch(SINGLE) == context['launch_command']


def test_single_launcher_kept_when_it_has_more_to_do() -> None:
    """A launcher log, pre-launch or post-launch script, another launcher, a job without the
    submitter's environment, or a launcher psij did not provide: psij's launcher runs."""
    for index in (3, 4, 5):
        words = list(SINGLE)
        words[index] = '/w/x.sh'
        assert inline_single_launch(words) is None
    assert inline_single_launch(['/bin/bash', '/w/mpi_launch.sh'] + SINGLE[2:]) is None
    assert inline_single_launch(SINGLE[:9]) is None
    clean = Job(JobSpec('/bin/echo', ['hello world'], inherit_environment=False))
    context = build_context(clean, Path('/w'), SINGLE, single_launcher=True)
    assert str(context['launch_command']).startswith('/bin/bash /w/0a1b/single_launch.sh ')
    assert context['launcher_marker'] is False
    job = Job(JobSpec('/bin/echo', ['hello world']))
    context = build_context(job, Path('/w'), SINGLE, single_launcher=False)
    assert context['launcher_marker'] is False


def test_default_launcher_is_inline_in_the_psij_script(executor: PBSProJobExecutor) -> None:
    """Through psij's own context: the default launcher is psij's single launcher, so the
    script runs the executable itself and, with psij 0.9.11, prints the launcher's end marker
    after it (later psij's launchers print none; the script prints _PSIJ_SCRIPT_DONE last);
    with a pre-launch script psij's launcher is called."""
    job = Job(JobSpec('/bin/tokexe', ['a b'], stdout_path=Path('/tmp/o')))
    out = io.StringIO()
    executor.generate_submit_script(job, executor._create_script_context(job), out)
    marker = 'echo _PSI_J_LAUNCHER_DONE\n' if compat.LAUNCHER_MARKER else ''
    assert ("\n/bin/tokexe 'a b' 1>/tmp/o 2>/dev/null </dev/null\n_psij_ec=$?\n"
            + marker + "_psij_write_ec") in out.getvalue()
    assert out.getvalue().endswith(
        '_psij_write_ec "$_psij_ec"\n' + ('' if compat.LAUNCHER_MARKER else
                                          'echo _PSIJ_SCRIPT_DONE\n') + 'exit "$_psij_ec"\n')
    assert 'single_launch.sh' not in out.getvalue()
    job = Job(JobSpec('/bin/tokexe', pre_launch=Path('/tmp/pre.sh')))
    out = io.StringIO()
    executor.generate_submit_script(job, executor._create_script_context(job), out)
    assert 'single_launch.sh' in out.getvalue()
    assert '_PSI_J_LAUNCHER_DONE' not in out.getvalue()
