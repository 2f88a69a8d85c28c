"""The job script's file staging lines (psij > 0.9.11: ``stage_in``, ``stage_out``, ``cleanup``).

The lines call the functions of psij's own shell library (``common/batch_lib.mustache``, which
the template includes), so that staging behaves as in psij's own batch executors: COPY, LINK
and MOVE; stage-out according to ``StageOutFlags`` and the job's exit code; a failure ends the
job with exit code 121 and the reason as its message. The arguments are quoted here, once (psij's
own partials put ``shlex``-quoted values inside double quotes, which breaks paths with spaces),
and only local files are accepted, at submit time rather than as a failed job.
"""
from pathlib import Path
from typing import Dict, Iterable, List, Optional

from psij import Job, SubmitException

from psijpbs.script import shell_word

#: The variable the template keeps the launched command's exit code in.
EXIT_CODE_VARIABLE = '"$_psij_ec"'


def _enum_value(value: object) -> int:
    """An Enum or Flag member's integer value (psij's renderer prints them the same way)."""
    raw = getattr(value, 'value', value)
    assert isinstance(raw, int), value
    return raw


def _local_path(location: object, what: str) -> str:
    """The path of a local location (str, Path or psij URI); other schemes are refused."""
    scheme = getattr(location, 'scheme', '')
    if scheme not in ('', 'file'):
        raise SubmitException('%s: %s staging is not supported (local files only)'
                              % (what, scheme))
    host = getattr(location, 'hostname', None)
    if host not in (None, '', 'localhost'):
        raise SubmitException('%s: the host, if given, must be "localhost", not %r'
                              % (what, host))
    path = getattr(location, 'path', location)
    return str(path)


def _sorted(items: Optional[Iterable[object]]) -> List[object]:
    # Sets have no order; a stable one keeps scripts reproducible.
    return sorted(items or [], key=str)


def staging_context(job: Job) -> Dict[str, object]:
    """``stage_in``, ``stage_out`` and ``cleanup`` command lines for the template (empty lists
    when psij has no staging or the spec asks for none), each led by its status message.

    Raises
    ------
    SubmitException
        For a remote source or target.
    """
    spec = job.spec
    assert spec is not None
    stage_in: List[str] = []
    for item in _sorted(getattr(spec, 'stage_in', None)):
        source = _local_path(getattr(item, 'source'), 'stage_in %s' % item)
        stage_in.append('_psij_do_stage %s %s %d 0' % (
            shell_word(source), shell_word(getattr(item, 'target')),
            _enum_value(getattr(item, 'mode'))))
    stage_out: List[str] = []
    for item in _sorted(getattr(spec, 'stage_out', None)):
        target = _local_path(getattr(item, 'target'), 'stage_out %s' % item)
        stage_out.append('_psij_do_stageout %s %s %d %d %s' % (
            shell_word(getattr(item, 'source')), shell_word(target),
            _enum_value(getattr(item, 'mode')), _enum_value(getattr(item, 'flags')),
            EXIT_CODE_VARIABLE))
    cleanup: List[str] = []
    cleanup_flags = getattr(spec, 'cleanup_flags', None)
    for path in _sorted(getattr(spec, 'cleanup', None)):
        assert isinstance(path, Path)
        cleanup.append('_psijpbs_cleanup %s %d %s' % (
            shell_word(path), _enum_value(cleanup_flags), EXIT_CODE_VARIABLE))
    # Each phase announced on psij's status channel, as psij's own scripts do.
    if stage_in:
        stage_in.insert(0, '_psij_update_status STAGE_IN')
    if stage_out:
        stage_out.insert(0, '_psij_update_status STAGE_OUT')
    if cleanup:
        cleanup.insert(0, '_psij_update_status CLEANUP')
    directory = spec.directory
    return {
        'stage_in': stage_in,
        'stage_out': stage_out,
        'cleanup': cleanup,
        'cleanup_lib': bool(cleanup),
        # Cleanup removes nothing outside the job directory (psij's rule).
        'cleanup_root': shell_word(Path(directory).absolute() if directory is not None
                                   else '.'),
    }
