"""Where other users run the fake's commands from when the checkout is closed to them.

Tests acting as ``pbsuser``/``pbsuser2`` run ``fake_pbs/bin/qsub`` (and ``-m fake_pbs.runner``,
``-m tests.runwire``) as those users.  A clone inside a directory other users cannot enter
(``/root/...``, a ``mkdtemp`` folder, mode 0700: a root CI container, a newcomer who is root)
would refuse them with ``Permission denied``.  Then, before anything imports ``fake_pbs``,
:func:`install` copies the package (and the two modules of ``tests`` they start) into a root-owned
0755 directory under /tmp and puts it first on ``sys.path``: the session's ``fake_pbs``, its
``bin`` directory (``paths.bin_dir()``) and its daemons are the copy's, which everyone can reach.
The copy is made once per run (xdist workers find it through :data:`ENV`) and removed at the end.
A checkout others can reach is used as it is.  The interpreter is the tests' concern as before:
they run other users' commands with ``/usr/bin/python3`` (``tests/reliability/rig.py``).
"""
import atexit
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Set by the run that made the copy, for its xdist workers (they inherit the environment).
ENV = "FAKE_PBS_TEST_PUBLIC_ROOT"
# What other users start from ``tests``: PYTHONPATH=root, ``-m tests.runwire``, and the group I
# transcripts' pty driver (tests/interactive/test_transcripts.py).
_TESTS_FILES = ("__init__.py", "runwire.py", "data/fidelity/openpbs-23.06.06-resv/I_driver.py")


def others_can_enter(path: Path) -> bool:
    """Whether every directory from / down to ``path`` lets other users through (o+x)."""
    for directory in [path] + list(path.parents):
        if not os.stat(str(directory)).st_mode & stat.S_IXOTH:
            return False
    return True


def _copy() -> Path:
    root = Path(tempfile.mkdtemp(prefix="fpbs-pub-", dir="/tmp"))
    root.chmod(0o755)
    shutil.copytree(str(REPO / "fake_pbs"), str(root / "fake_pbs"), symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "tests").mkdir(mode=0o755)
    for name in _TESTS_FILES:
        (root / "tests" / name).parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        shutil.copy2(str(REPO / "tests" / name), str(root / "tests" / name))
    for directory, dirs, files in os.walk(str(root)):  # whatever the checkout's umask was
        for name in dirs:
            os.chmod(os.path.join(directory, name), 0o755)
        for name in files:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755 if os.access(path, os.X_OK) else 0o644)
    return root


def install() -> Path:
    """The directory holding the ``fake_pbs`` this session uses: the checkout when others can
    enter it (or this is not root: no other user is involved), else the public copy."""
    inherited = os.environ.get(ENV)
    if inherited:
        root = Path(inherited)
    elif os.geteuid() != 0 or others_can_enter(REPO / "fake_pbs" / "bin"):
        return REPO
    else:
        if "fake_pbs" in sys.modules:
            raise RuntimeError("fake_pbs was imported from the closed checkout before "
                               "tests/conftest.py could redirect it to a public copy")
        root = _copy()
        os.environ[ENV] = str(root)
        atexit.register(shutil.rmtree, str(root), True)
    sys.path.insert(0, str(root))
    return root


def root() -> Path:
    """Where other users' processes find ``fake_pbs`` and ``tests.runwire`` (PYTHONPATH)."""
    return Path(os.environ.get(ENV) or str(REPO))


def reachable(path: Path) -> Path:
    """Where other users find ``path``, one of the checkout's ``_TESTS_FILES``."""
    relative = path.resolve().relative_to(REPO / "tests")
    if str(relative) not in _TESTS_FILES:
        raise ValueError("%s is not copied for other users (tests/public_tree.py)" % path)
    return root() / "tests" / relative
