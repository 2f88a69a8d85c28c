"""execjob_abort end to end on a started fake cluster (golden f01-f05, reference §6.4/§9.1):
a rejecting prologue makes the primary mom run execjob_abort before execjob_end, and the job is
requeued (Exit_status -16) instead of finishing."""
import os
import subprocess
import time
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from fake_pbs import paths

HOOKS = Path("/work/shared/fidelity/scenario/hooks")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Dict[str, str]]:
    home = Path("/tmp") / ("fphk-%d" % os.getpid())
    env = dict(os.environ, FAKE_PBS_HOME=str(home),
               PATH="%s:%s" % (paths.bin_dir(), os.environ.get("PATH", "")))
    subprocess.run(["fake-pbs", "start"], env=env, check=True, timeout=60,
                   stdout=subprocess.DEVNULL)
    try:
        yield env
    finally:
        subprocess.run(["fake-pbs", "stop"], env=env, timeout=60, stdout=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", str(home)], timeout=30)


def sh(env: Dict[str, str], *argv: str) -> str:
    done = subprocess.run(list(argv), env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return done.stdout


def mom_lines(env: Dict[str, str], jobid: str) -> List[str]:
    lines: List[str] = []
    for log in sorted(Path(env["FAKE_PBS_HOME"], "mom_logs").glob("*/*")):
        lines += [line for line in log.read_text().splitlines() if jobid in line]
    return lines


def test_prologue_reject_runs_abort_before_end_and_requeues(cluster: Dict[str, str],
                                                            tmp_path: Path) -> None:
    """f01/f04/f05: pro_reject + abort_log + end_log; mom logs prologue, abort, end in order;
    the server requeues the job (Exit_status -16, run_count grows)."""
    for name, event in (("pro_reject", "execjob_prologue"), ("abort_log", "execjob_abort"),
                        ("end_log", "execjob_end")):
        sh(cluster, "qmgr", "-c", "create hook %s event=%s" % (name, event))
        sh(cluster, "qmgr", "-c", "import hook %s application/x-python default %s"
           % (name, HOOKS / (name + ".py")))
    script = tmp_path / "abortme.sh"
    script.write_text("sleep 1\n")
    jobid = sh(cluster, "qsub", str(script)).strip()
    ran: List[str] = []
    for _ in range(100):  # bounded: at most ~20 s
        ran = [line.split(";")[-1] for line in mom_lines(cluster, jobid) if ";ran " in line]
        if len(ran) >= 3:
            break
        time.sleep(0.2)
    assert ran[:3] == ["ran execjob_prologue for %s (rejecting)" % jobid,
                       "ran execjob_abort for %s" % jobid, "ran execjob_end for %s" % jobid]
    assert any(line.endswith(";pbs_mom;Hook;pro_reject;execjob_prologue request rejected by "
                             "'pro_reject'") for line in _all_mom(cluster))
    status = sh(cluster, "qstat", "-f", "-x", jobid)
    assert "Exit_status = -16" in status
    assert "job_state = F" not in status


def _all_mom(env: Dict[str, str]) -> List[str]:
    lines: List[str] = []
    for log in sorted(Path(env["FAKE_PBS_HOME"], "mom_logs").glob("*/*")):
        lines += log.read_text().splitlines()
    return lines
