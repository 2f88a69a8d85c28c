"""``fake-pbs stop`` is phased; ``stop --now`` and a kill -9 of everything are survivable
(issue 6; the phased shutdown asked for in Flux's perilog issue, seed 003).

Phased: no new job or hook run starts, in-flight ones finish within a bound, state is saved,
and the job shells live on to be re-adopted by the next ``fake-pbs start``.
"""
import sys
import time
from pathlib import Path

from fake_pbs import control

from .rig import BIN, Rig, wait_for

SLOW_PROLOGUE = """import pbs, time
open(%r, "w").close()
time.sleep(2)
open(%r, "w").close()
pbs.event().accept()
"""


def _slow_prologue(rig: Rig) -> Path:
    began, ended = rig.work / "prologue-began", rig.work / "prologue-ended"
    hook = rig.work / "slow.py"
    hook.write_text(SLOW_PROLOGUE % (str(began), str(ended)))
    for command in ("create hook slow event=execjob_prologue",
                    "import hook slow application/x-python default %s" % hook):
        done = rig.run(["qmgr", "-c", command])
        assert done.returncode == 0, done.stderr
    return began


def _stop(rig: Rig, *options: str) -> None:
    done = rig.run([sys.executable, BIN + "/fake-pbs", "stop"] + list(options))
    assert done.returncode == 0, done.stderr


def test_phased_stop_lets_an_inflight_prologue_finish(rig: Rig) -> None:
    """Stop while a prologue hook runs: the stop waits for it, the shell starts, and after the
    restart the same run (run_count 1) ends with the script's status."""
    began = _slow_prologue(rig)
    flag = rig.work / "flag"
    jobid = rig.qsub("while [ ! -f %s ]; do sleep 0.05; done\nexit 3" % flag)
    wait_for(began.exists, 20, lambda: "the prologue did not run")
    _stop(rig)
    assert (rig.work / "prologue-ended").exists()
    report = control.status(rig.home)
    assert not report["server"]["answers"]
    assert not any(m["answers"] for m in report["moms"].values())
    rig.restart_missing()
    flag.touch()
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "3" and attrs["run_count"] == "1"


def test_stop_now_mid_prologue_is_survivable(rig: Rig) -> None:
    """``stop --now`` kills the moms mid-prologue: the next start gives the run a definite
    outcome (requeued, never started) and the job then runs to its true status."""
    began = _slow_prologue(rig)
    jobid = rig.qsub("exit 5")
    wait_for(began.exists, 20, lambda: "the prologue did not run")
    _stop(rig, "--now")
    time.sleep(2.5)  # the orphaned hook run ends on its own
    rig.restart_missing()
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "5"


def test_kill_everything_like_a_reboot(rig: Rig) -> None:
    """kill -9 of the server and every mom at once (a host crash), with jobs queued, running
    and finished: the next start loses none and the running one ends with its status."""
    done = rig.qsub("exit 0")
    rig.wait(done)
    flag = rig.work / "flag"
    running = rig.qsub("while [ ! -f %s ]; do sleep 0.05; done\nexit 8" % flag)
    held = rig.qsub("true", "-h")
    rig.wait(running, "R")
    for what, host in (("server", ""), ("mom", "n1"), ("mom", "n2")):
        rig.kill(what, host)
    flag.touch()
    rig.restart_missing()
    assert rig.job(done)["job_state"] == "F"
    assert rig.job(held)["job_state"] == "H"
    assert rig.wait(running)["Exit_status"] == "8"
