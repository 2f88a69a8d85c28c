"""Everything the ``pbspro.mustache`` template renders, computed and quoted here (pure).

Values reach the template already quoted for their destination: ``#PBS`` directive words as qsub
splits them (whitespace separates words; double quotes group; backslash escapes), and shell words
with :func:`shlex.quote`. The template uses triple mustaches for them, so nothing is quoted
twice (PSI/J's own template writes ``cd "'/a b'"``).
"""
import math
import re
import shlex
from datetime import timedelta
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

from psij import Job, SubmitException
from psij.resource_spec import ResourceSpecV1

#: qsub refuses longer names (PBS_MAXJOBNAME; "qsub: Job name is too long").
MAX_JOB_NAME = 230
_NAME_BAD_CHARS = re.compile(r'[^A-Za-z0-9_+.-]')  # qsub -N accepts alnum and - _ + .
_ENV_NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
_OPTION_KEY = re.compile(r'^[A-Za-z][A-Za-z0-9_-]*$')
_PLAIN_WORD = re.compile(r'^[A-Za-z0-9_.,:;=+/@%^~*\[\]-]+$')
#: Custom attribute prefixes rendered as ``#PBS -<key> <value>`` (lower-cased by PSI/J).
CUSTOM_PREFIXES = ('pbs', 'pbspro')
#: Variables kept when ``inherit_environment`` is False: those PBS defines for every job.
CLEAN_ENV_KEEP = 'PBS_*|PSIJ_NODEFILE|HOME|USER|LOGNAME|PATH|SHELL|TMPDIR'


def job_name(job: Job) -> str:
    """The ``-N`` value: the spec's name reduced to what qsub accepts, else derived from the id.

    Without an explicit name PSI/J uses the executable; its base name is used then, as PBS
    itself names a job after its script file.
    """
    assert job.spec is not None
    raw = job.spec.name
    if raw is not None and raw == job.spec.executable:
        raw = Path(raw).name
    name = _NAME_BAD_CHARS.sub('_', raw or '')[:MAX_JOB_NAME].strip('_')
    if not name:
        name = ('psij-' + _NAME_BAD_CHARS.sub('_', job.id))[:MAX_JOB_NAME]
    return name


def format_walltime(duration: timedelta) -> str:
    """``HH:MM:SS``, zero padded; hours may exceed 24; fractions of a second are dropped."""
    total = int(duration.total_seconds())
    return '%02d:%02d:%02d' % (total // 3600, (total // 60) % 60, total % 60)


def format_memory(n_bytes: int) -> str:
    """A PBS size: whole megabytes as ``<n>mb``, otherwise kilobytes rounded up as ``<n>kb``."""
    mib = 1024 * 1024
    if n_bytes % mib == 0:
        return '%dmb' % (n_bytes // mib)
    return '%dkb' % math.ceil(n_bytes / 1024)


def directive_word(value: str, what: str) -> str:
    """Quote ``value`` as one word of a ``#PBS`` line, the way qsub splits directive lines."""
    if '\n' in value or '\r' in value or '\0' in value:
        raise SubmitException('%s cannot contain a line break: %r' % (what, value))
    if _PLAIN_WORD.match(value):
        return value
    return '"' + value.replace('\\', '\\\\').replace('"', '\\"') + '"'


def _custom_directives(job: Job) -> List[Tuple[str, Optional[str]]]:
    """(option, value-or-None) pairs from ``pbs.<key>`` custom attributes, in insertion order."""
    assert job.spec is not None
    attrs = job.spec.attributes.custom_attributes if job.spec.attributes else None
    result: List[Tuple[str, Optional[str]]] = []
    for full_key, value in (attrs or {}).items():
        prefix, dot, key = full_key.partition('.')
        if not dot or prefix.lower() not in CUSTOM_PREFIXES:
            continue
        if not _OPTION_KEY.match(key):
            raise SubmitException('Custom attribute %r: %r is not a qsub option name'
                                  % (full_key, key))
        if value is False:
            continue
        if value is True or value is None or value == '':
            result.append((key, None))
        else:
            result.append((key, str(value)))
    return result


def _resources_named(custom: List[Tuple[str, Optional[str]]]) -> Set[str]:
    """Resource names a user gave through ``pbs.l`` (``select=..,place=..`` -> select, place)."""
    names: Set[str] = set()
    for key, value in custom:
        if key == 'l' and value:
            for item in value.split(','):
                names.add(item.split('=', 1)[0].strip())
    return names


def resource_directives(resources: ResourceSpecV1, overridden: Set[str]) -> List[str]:
    """``-l select=...`` and ``-l place=...`` for a ResourceSpecV1.

    One chunk per node: ``ncpus = ppn * cpu_cores_per_process``, ``mpiprocs = ppn`` (so that
    ``$PBS_NODEFILE`` has one line per process), ``ngpus = ppn * gpu_cores_per_process`` and
    the job's memory split evenly between the chunks. Several nodes are placed ``scatter``
    (distinct hosts, as PSI/J means nodes) and ``exclusive_node_use`` adds ``excl``.
    """
    nodes = resources.computed_node_count
    ppn = resources.computed_processes_per_node
    lines = []
    if 'select' not in overridden:
        chunk = 'select=%d:ncpus=%d:mpiprocs=%d' % (
            nodes, ppn * max(1, resources.cpu_cores_per_process or 1), ppn)
        if resources.gpu_cores_per_process:
            chunk += ':ngpus=%d' % (ppn * resources.gpu_cores_per_process)
        if resources.memory:
            chunk += ':mem=%s' % format_memory(math.ceil(resources.memory / nodes))
        lines.append('-l ' + chunk)
    if 'place' not in overridden:
        place = []
        if nodes > 1:
            place.append('scatter')
        if resources.exclusive_node_use:
            place.append('excl')
        if place:
            lines.append('-l place=' + ':'.join(place))
    return lines


def _attribute_directives(job: Job, given: Set[str], notes: List[str]) -> List[str]:
    assert job.spec is not None
    attrs = job.spec.attributes
    lines = []
    duration = attrs.duration
    if duration is not None and duration.total_seconds() >= 1 and 'walltime' not in given:
        lines.append('-l walltime=' + format_walltime(duration))
    if attrs.account and 'A' not in given:
        lines.append('-A ' + directive_word(attrs.account, 'account'))
    queue = attrs.queue_name
    if attrs.reservation_id:
        # A reservation's jobs go to the reservation's own queue, named after its id.
        if 'q' not in given:
            lines.append('-q ' + directive_word(reservation_queue(attrs.reservation_id),
                                                'reservation_id'))
        if queue:
            notes.append('queue_name %s not used: jobs of reservation %s run in its queue'
                         % (directive_word(queue, 'queue_name'),
                            directive_word(attrs.reservation_id, 'reservation_id')))
    elif queue and 'q' not in given:
        lines.append('-q ' + directive_word(queue, 'queue_name'))
    return lines


_RESERVATION_ID = re.compile(r'^([RSM]\d+)\.[^.@]')


def reservation_queue(reservation_id: str) -> str:
    """The queue of a reservation: ``R875`` for ``R875.vm`` as pbs_rsub prints it (PBS names
    the queue after the id without the server, R07; ``qsub -q R875.vm`` is an unknown queue)."""
    match = _RESERVATION_ID.match(reservation_id)
    return match.group(1) if match else reservation_id


def shell_word(value: object) -> str:
    """One shell word (``shlex.quote``), from a str or Path (kept relative if relative)."""
    return shlex.quote(str(value))


def _environment(job: Job) -> List[str]:
    assert job.spec is not None
    assignments = []
    for name, value in (job.spec.environment or {}).items():
        if not _ENV_NAME.match(name):
            raise SubmitException('Invalid environment variable name: %r' % name)
        assignments.append('%s=%s' % (name, shell_word(value)))
    return assignments


#: Words of psij's single launcher call before the executable: bash, script, job id, launcher
#: log, pre-launch, post-launch, stdin, stdout, stderr (psij's ScriptBasedLauncher).
_SINGLE_LAUNCH_WORDS = 9


def inline_single_launch(launch_command: List[str]) -> Optional[str]:
    """What psij's ``single`` launcher would do, as one shell line, when that is all it would do.

    With no launcher log, pre-launch or post-launch script, ``single_launch.sh`` only runs the
    executable with the spec's redirections and prints ``_PSI_J_LAUNCHER_DONE`` (the template
    prints it). Run by the job shell itself, that costs a fork instead of a second ``bash``, a
    ``dirname``, a logging process substitution and four ``date`` processes logging to
    ``/dev/null`` (about 9 of the 12 ms of CPU a ``/bin/true`` job costs its node). None when
    the launcher has more to do, or the command is not shaped as expected.
    """
    words = launch_command
    if (len(words) <= _SINGLE_LAUNCH_WORDS or any(words[3:6]) or words[0] != '/bin/bash'
            or Path(words[1]).name != 'single_launch.sh'):
        return None
    stdin, stdout, stderr = words[6:9]
    return '%s 1>%s 2>%s <%s' % (' '.join(shell_word(w) for w in words[_SINGLE_LAUNCH_WORDS:]),
                                 shell_word(stdout), shell_word(stderr), shell_word(stdin))


def build_context(job: Job, script_dir: Path, launch_command: List[str],
                  single_launcher: bool = False,
                  launcher_marker: bool = True) -> Dict[str, object]:
    """The ``pbspro`` entry of the template context for ``job``.

    Parameters
    ----------
    job
        The job; its spec must be set (resources may be None: a single process).
    script_dir
        The executor's work directory, where the job writes ``$PBS_JOBID.out`` and ``.ec``.
    launch_command
        The launcher command line PSI/J built for the job.
    single_launcher
        True when that command is psij's own ``single`` launcher: then, for a job that
        inherits the environment, what it would do may be run inline
        (:func:`inline_single_launch`).
    launcher_marker
        Whether psij's launchers print ``_PSI_J_LAUNCHER_DONE`` (0.9.11): then the inline
        launch prints it too.

    Raises
    ------
    SubmitException
        For values that cannot be expressed safely (line breaks, bad names).
    """
    assert job.spec is not None
    spec = job.spec
    custom = _custom_directives(job)
    given = {key for key, _ in custom} | _resources_named(custom)
    notes: List[str] = []
    directives = []
    if 'N' not in given:
        directives.append('-N ' + job_name(job))
    resources = spec.resources if isinstance(spec.resources, ResourceSpecV1) \
        else ResourceSpecV1()
    directives.extend(resource_directives(resources, given))
    directives.extend(_attribute_directives(job, given, notes))
    if spec.inherit_environment and 'V' not in given:
        directives.append('-V')
    for key, value in custom:
        directives.append('-' + key if value is None
                          else '-%s %s' % (key, directive_word(value, 'pbs.' + key)))
    # Output goes to $PBS_JOBID.out through the script's own redirection; PBS's copies would
    # only leave empty files behind.
    for key in ('o', 'e'):
        if key not in given and 'j' not in given:
            directives.append('-%s /dev/null' % key)
    env = _environment(job)
    inline = (inline_single_launch(launch_command)
              if single_launcher and spec.inherit_environment else None)
    return {
        'directives': directives,
        'notes': notes,
        'script_dir': shell_word(script_dir.absolute()),
        'directory': shell_word(spec.directory) if spec.directory is not None else None,
        'exports': env if spec.inherit_environment else [],
        'clean_env': not spec.inherit_environment,
        'clean_env_keep': CLEAN_ENV_KEEP,
        'env_assignments': ''.join(a + ' ' for a in env) if not spec.inherit_environment else '',
        'launch_command': inline or ' '.join(shell_word(word) for word in launch_command),
        'launcher_marker': inline is not None and launcher_marker,
    }
