"""Every module a command may import, imported by the runner before it forks a worker.

A worker of root's runner drops to its caller's uid (fake_pbs/runner/worker.py); a module first
imported after that is read with the caller's rights, and an interpreter installed in a
directory only root may read (``/root/.pyenv``, mode 0700) then fails the command with
``ModuleNotFoundError`` (``tracejob``: ``_strptime``).  So nothing may be imported after the
fork: :data:`MODULES` lists what the commands import inside functions and what the standard
library imports on first use, and a worker that finds a module loaded during its command
retires after it (worker.py).  ``tests/cli/test_runner_preload.py`` fails when a command's
function-level import, or a module a command loads while it runs, is missing here.
"""
from typing import List

from fake_pbs.runner.worker import COMMANDS

MODULES = (
    # imported inside the commands' functions (their modules import them on first use)
    "fake_pbs.cli.qsub_script", "fake_pbs.cli.render.alttable", "fake_pbs.cli.render.full",
    "fake_pbs.cli.render.jobtable", "fake_pbs.cli.render.nodesummary",
    "fake_pbs.cli.render.pbsjson", "fake_pbs.cli.render.queues", "fake_pbs.cli.render.resv",
    "fake_pbs.cli.render.values", "fake_pbs.cli.qsub_verify", "fake_pbs.cli.resv_verify",
    "fake_pbs.control", "fake_pbs.jsonwire", "fake_pbs.paths",
    "_json", "_signal", "gc", "hashlib", "json", "os", "pathlib", "pwd", "re", "socket", "time",
    # imported by the standard library on a function's first call
    "_strptime",  # time.strptime, datetime.strptime: tracejob, qsub -a
)


def preload() -> List[str]:
    """Import every command and :data:`MODULES`; the names that could not be imported."""
    missing: List[str] = []
    for name in ["fake_pbs.cli." + command for command in COMMANDS] + list(MODULES):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    return missing
