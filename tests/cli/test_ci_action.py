"""The composite action .github/actions/fake-pbs (issue 24): its step run as GitHub Actions runs
it (GITHUB_PATH, GITHUB_ENV, GITHUB_OUTPUT files; RUNNER_TEMP), then a job through what a later
step would see: the PATH entry and FAKE_PBS_HOME it exported.  docs/ci.md's recipe."""
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Dict

import pytest

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / ".github" / "actions" / "fake-pbs"


def _env_file(path: Path) -> Dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key: value for key, value in pairs}


def test_action_runs_its_setup_script() -> None:
    text = (ACTION / "action.yml").read_text()
    assert "using: composite" in text
    assert '"$GITHUB_ACTION_PATH/setup.sh"' in text
    assert os.access(str(ACTION / "setup.sh"), os.X_OK)


@pytest.mark.cluster
def test_action_sets_up_a_cluster_later_steps_use(tmp_path: Path) -> None:
    files = {name: tmp_path / name for name in ("path", "env", "output")}
    for f in files.values():
        f.write_text("")
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    env = dict(os.environ, GITHUB_PATH=str(files["path"]), GITHUB_ENV=str(files["env"]),
               GITHUB_OUTPUT=str(files["output"]), RUNNER_TEMP=str(runner_temp),
               FAKE_PBS_ACTION_HOSTS="ci1:ncpus=2 ci2:ncpus=2", FAKE_PBS_ACTION_START="true")
    env.pop("FAKE_PBS_HOME", None)
    home = runner_temp / "fake-pbs"
    try:
        done = subprocess.run([str(ACTION / "setup.sh")], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        bin_dir = files["path"].read_text().split()
        assert bin_dir == [str(ROOT / "fake_pbs" / "bin")]
        assert _env_file(files["env"]) == {"FAKE_PBS_HOME": str(home)}
        assert _env_file(files["output"]) == {"bin": bin_dir[0], "home": str(home)}
        # A later step: PATH with the entry first, FAKE_PBS_HOME from GITHUB_ENV.
        step = dict(os.environ, PATH=bin_dir[0] + os.pathsep + os.environ["PATH"],
                    FAKE_PBS_HOME=str(home))
        nodes = subprocess.run(["pbsnodes", "-a", "-F", "json"], env=step, capture_output=True,
                               text=True, timeout=60)
        assert sorted(json.loads(nodes.stdout)["nodes"]) == ["ci1", "ci2"]
        job = subprocess.run(["qsub", "--", "/bin/true"], env=step, capture_output=True,
                             text=True, timeout=60, cwd=str(tmp_path)).stdout.strip()
        deadline = time.monotonic() + 60
        state = ""
        while time.monotonic() < deadline:
            shown = subprocess.run(["qstat", "-x", "-f", "-F", "json", job], env=step,
                                   capture_output=True, text=True, timeout=60).stdout
            state = json.loads(shown)["Jobs"][job]["job_state"]
            if state == "F":
                break
            time.sleep(0.1)
        assert state == "F"
    finally:
        subprocess.run([str(ROOT / "fake_pbs" / "bin" / "fake-pbs"), "stop"],
                       env=dict(os.environ, FAKE_PBS_HOME=str(home)), capture_output=True,
                       timeout=120)
