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
from typing import Any, Dict, NamedTuple, Optional

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
    """Give ``who`` the work directory and a copy of the hook child; returns the child's path."""
    shutil.copytree(str(PYLIB), str(work / "pylib"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for root, dirs, files in os.walk(str(work)):
        os.chown(root, who.uid, who.gid)
        for name in files:
            os.chown(os.path.join(root, name), who.uid, who.gid)
    return work / "pylib" / "pbs_python.py"


def environment(who: RunAs) -> Dict[str, str]:
    env = dict(os.environ)
    env.update({"HOME": who.home, "USER": who.user, "LOGNAME": who.user})
    return env
