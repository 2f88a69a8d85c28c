"""A command run by root's runner for an ordinary user imports nothing (fake_pbs/runner/preload.py).

A worker runs as its caller; when the runner's interpreter lives where only root may read
(``/root/.pyenv``, mode 0700, as on this project's machines), a module first imported after
the fork failed the command: ``tracejob`` ended in ``ModuleNotFoundError: No module named
'_strptime'`` for every user but root.  ``tests/cli/test_runner_preload.py`` checks the
preload is complete wherever the interpreter lives; this runs the commands that import the
most, as pbsuser, through the real client and root's runner.
"""
from typing import List

import pytest

from ..reliability.rig import BIN, Rig


@pytest.mark.parametrize("argv", [["tracejob", "-n", "2", "{job}"], ["qstat", "-a"],
                                  ["qstat", "-Bf"], ["pbsnodes", "-aSj"],
                                  ["qstat", "-f", "-F", "json", "{job}"]])
def test_commands_that_import_late_work_for_an_ordinary_user(rig: Rig, argv: List[str]) -> None:
    job = rig.qsub("true", "-h", user="pbsuser")
    done = rig.run([BIN + "/" + argv[0]] + [a.replace("{job}", job) for a in argv[1:]],
                   user="pbsuser")
    assert done.returncode == 0, done.stderr
    assert "Error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
