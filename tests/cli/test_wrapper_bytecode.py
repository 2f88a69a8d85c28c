"""The command wrappers cache their compiled modules even under PYTHONDONTWRITEBYTECODE, as an
installed package has them (without, each run compiled ~17 modules again: docs/performance.md,
"The command start-up path")."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def test_first_run_leaves_bytecode_for_the_next(tmp_path: Path) -> None:
    """A fresh copy of fake_pbs (no __pycache__), PYTHONDONTWRITEBYTECODE=1: after one
    ``qstat --version`` the modules it imported have their .pyc."""
    shutil.copytree(str(REPO / "fake_pbs"), str(tmp_path / "fake_pbs"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", FAKE_PBS_PYTHON=sys.executable)
    done = subprocess.run([str(tmp_path / "fake_pbs" / "bin" / "qstat"), "--version"], env=env,
                          stdout=subprocess.PIPE, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "pbs_version = 23.06.06\n")
    cached = {p.name.split(".")[0] for p in (tmp_path / "fake_pbs").rglob("*.pyc")}
    assert {"qstat", "common", "protocol", "leanos"} <= cached
