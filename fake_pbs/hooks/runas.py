"""Who a hook run runs as: ``user = pbsuser`` hooks of the user mom events (execjob_prologue,
execjob_epilogue, execjob_preterm) run as the job's owner when the mom runs as root, as PBS's
``runas_jobuser`` does; every other hook runs as the daemon's user (reference §6.1).

The hook child then cannot read what only root may read, so the runner gives it a private work
directory it owns, a copy of the ``pbs`` module, an interpreter it can execute, and the daemon's
log already open (inherited descriptor) instead of the log's path.
"""
import os
import shutil
import stat
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional

from fake_pbs.model.hooks import USER_MOM_EVENTS, Hook

PYLIB = Path(__file__).resolve().parent / "pylib"
_SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3")


class RunAs(NamedTuple):
    uid: int
    gid: int
    user: str
    home: str


def for_hook(hook: Hook, event: str, context: Dict[str, Any]) -> Optional[RunAs]:
    """The job owner when this hook must run as them, else None (run as the daemon)."""
    owner = context.get("job_owner")
    if (hook.user != "pbsuser" or event not in USER_MOM_EVENTS or not owner
            or os.geteuid() != 0):
        return None
    uid = int(owner.get("uid", 0))
    if uid == 0:
        return None
    return RunAs(uid, int(owner.get("gid", uid)), str(owner.get("user", "")),
                 str(owner.get("home", "/")))


def _reachable_by_others(path: str) -> bool:
    """True when every directory above ``path`` lets other users through (o+x)."""
    current = Path(path).resolve()
    for parent in current.parents:
        try:
            if not os.stat(str(parent)).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
    return True


def interpreter(default: str) -> str:
    """``default`` when another user can execute it, else a system python3."""
    if _reachable_by_others(default):
        return default
    for candidate in _SYSTEM_PYTHONS:
        if os.path.exists(candidate) and _reachable_by_others(candidate):
            return candidate
    return default


def prepare(work: Path, who: RunAs) -> Path:
    """Give ``who`` the run's fresh work directory (mkdtemp, under the root-only hooks/tmp),
    which holds only this run's copies: its input, the hook's script and config (PBS gives a
    ``user = pbsuser`` hook the same copies: mom_hook_func.c copy_file_and_set_owner) and the
    hook child; the site's own hook files stay root's.  Returns the child's path."""
    shutil.copytree(str(PYLIB), str(work / "pylib"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for root, dirs, files in os.walk(str(work)):
        os.lchown(root, who.uid, who.gid)
        for name in files:
            os.lchown(os.path.join(root, name), who.uid, who.gid)
    return work / "pylib" / "pbs_python.py"


RESULT_LIMIT = 16 << 20  # a hook's result is small; a bigger file is not read


def read_result(path: Path, who: Optional[RunAs]) -> str:
    """The hook child's result file, read only as what it must be: a regular file with one
    name, written by the child's own user (the job owner for ``who``, else this daemon's),
    never through a link and never larger than :data:`RESULT_LIMIT`.  OSError otherwise."""
    fd = os.open(str(path), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        owner = who.uid if who is not None else os.geteuid()
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != owner or info.st_nlink != 1
                or info.st_size > RESULT_LIMIT):
            raise OSError("hook result %s is not the hook's own file" % path)
        with os.fdopen(os.dup(fd), "rb") as stream:
            data = stream.read(RESULT_LIMIT + 1)
    finally:
        os.close(fd)
    if len(data) > RESULT_LIMIT:
        raise OSError("hook result %s too large" % path)
    return data.decode("utf-8", "surrogateescape")


# What a hook run as the job's owner may not change, whatever its result says: PBS's mom
# ignores ``euser`` from such a hook (mom_hook_func.c get_hook_results: "ignoring setting
# attribute euser, executing hook has user=pbsuser").
_OWNER_MAY_NOT_SET = ("euser",)


def restrict(outcome: Dict[str, Any]) -> List[str]:
    """Drop from an owner-run hook's result what such a hook may not do (its result is the
    owner's to write); returns the attribute names dropped, for the daemon to log."""
    changes = outcome.get("job_changes")
    if not isinstance(changes, dict):
        outcome["job_changes"] = {}
        return []
    dropped = [name for name in _OWNER_MAY_NOT_SET if name in changes]
    for name in dropped:
        del changes[name]
    return dropped


def environment(who: RunAs) -> Dict[str, str]:
    env = dict(os.environ)
    env.update({"HOME": who.home, "USER": who.user, "LOGNAME": who.user})
    return env
