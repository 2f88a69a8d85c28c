"""kill -9 of the server at any moment loses nothing (issue 6; DESIGN.md "Process model").

Every accepted job is still there after ``fake-pbs kill server`` + ``fake-pbs start``; running
jobs keep running and end with their true Exit_status; finished jobs' records are intact; no job
is left stuck in any state.
"""
import time
from typing import Dict

from fake_pbs import control

from .rig import Rig, wait_for


def test_jobs_in_every_state_survive_a_server_kill(rig: Rig) -> None:
    """Queued (held), running, finished: all kept; the running one ends with its own status."""
    done = rig.qsub("exit 7")
    finished = rig.wait(done)
    held = rig.qsub("true", "-h")
    running = rig.qsub("sleep 2\nexit 3")
    rig.wait(running, "R")
    rig.kill("server")
    rig.restart_missing()
    assert rig.job(held)["job_state"] == "H"
    after = rig.job(done)
    assert {k: v for k, v in after.items()} == finished
    ended = rig.wait(running)
    assert ended["Exit_status"] == "3" and ended["comment"].endswith("and failed")


def test_shell_keeps_running_while_no_server_runs(rig: Rig) -> None:
    """The job's shell is not a child of the server: it runs on and its status is collected
    after the restart, even when it ended while the server was down."""
    flag = rig.work / "flag"
    jobid = rig.qsub("while [ ! -f %s ]; do sleep 0.05; done\nexit 9" % flag)
    rig.wait(jobid, "R")
    rig.kill("server")
    flag.touch()
    time.sleep(0.5)  # the shell ends, the mom stores finish while no server listens
    rig.restart_missing()
    assert rig.wait(jobid)["Exit_status"] == "9"


def test_server_killed_while_a_slow_mom_takes_the_job_in(rig: Rig) -> None:
    """The server dies after sending a run, before the (loaded, ``slow`` fault) mom has taken
    the job in: the restarted server's resume waits for the job to be in and follows the same
    run to its end: one run, the script's status (no lost run, no rerun)."""
    control.fault(rig.home, "n1", "slow")
    jobid = rig.qsub("sleep 0.5\nexit 4", "-l", "host=n1")
    wait_for(lambda: rig.job(jobid).get("job_state") == "R", 20, lambda: "never sent")
    rig.kill("server")
    rig.restart_missing()
    ended = rig.wait(jobid)
    assert ended["Exit_status"] == "4" and ended["run_count"] == "1", ended


def test_repeated_kills_during_a_stream_of_jobs(rig: Rig) -> None:
    """Kills land while jobs queue, start, run and exit: each job ends once, F, with the
    status its script chose; ids stay unique across restarts."""
    expected: Dict[str, str] = {}
    for round_ in range(3):
        for i in range(6):
            code = (round_ * 6 + i) % 5
            expected[rig.qsub("sleep 0.%d\nexit %d" % (i, code))] = str(code)
        time.sleep(0.3 * round_)
        rig.kill("server")
        rig.restart_missing()
    assert len(expected) == 18
    seen = rig.wait_all(list(expected), timeout=90)
    for jobid, status in expected.items():
        assert seen[jobid]["Exit_status"] == status, (jobid, seen[jobid])
        assert seen[jobid]["run_count"] == "1", (jobid, seen[jobid])


def test_no_vnode_stays_charged_after_crashes(rig: Rig) -> None:
    """After kills mid-run, once every job is over the nodes hold nothing (no leaked slots)."""
    ids = [rig.qsub("sleep 0.5", "-l", "select=1:ncpus=2") for _ in range(4)]
    wait_for(lambda: any(rig.job(j)["job_state"] == "R" for j in ids), 30, lambda: "none ran")
    rig.kill("server")
    rig.restart_missing()
    rig.wait_all(ids)
    for name in ("n1", "n2"):
        node = rig.node(name)
        assert node["state"] == "free" and "jobs" not in node, node
        assert node.get("resources_assigned.ncpus", "0") == "0", node


def test_an_arrays_table_survives_a_server_kill(rig: Rig) -> None:
    """An array's subjobs that have not run are rows of the parent's record (server/subjobs.py,
    as array_func.c keeps them): after a kill -9 the same subjobs are listed, a deleted one is
    still expired, an altered one keeps its change, and the array then runs to its end."""
    parent = rig.qsub("true", "-h", "-J", "0-99")
    assert rig.run(["qdel", parent.replace("[]", "[5]")]).returncode == 0
    assert rig.run(["qalter", "-N", "altered", parent.replace("[]", "[7]")]).returncode == 0
    before = [(r["id"], dict(r["attrs"])["job_state"])
              for r in rig.call("statjob", id=parent, extend="t")]
    rig.kill("server")
    rig.restart_missing()
    after = [(r["id"], dict(r["attrs"])["job_state"])
             for r in rig.call("statjob", id=parent, extend="t")]
    assert after == before and len(after) == 101
    assert dict(after)[parent.replace("[]", "[5]")] == "X"
    assert rig.job(parent.replace("[]", "[7]"))["Job_Name"] == "altered"
    assert rig.run(["qrls", parent]).returncode == 0
    ended = rig.wait(parent, timeout=120)
    assert ended["array_state_count"] == "Queued:0 Running:0 Exiting:0 Expired:1"
