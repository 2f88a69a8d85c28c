"""A mom that stays down: its node goes ``down``, its jobs are handled as PBS handles them
(requeue when rerunnable, else end, once the node has been down ``node_fail_requeue``
seconds), and no new job is placed there (issue 6; PBS node_fail_requeue, node_manager.c
"Job requeued, execution node %s down")."""
import time
from typing import Iterator

import pytest

from fake_pbs.mom.procs import start_ticks

from .rig import Rig, wait_for


@pytest.fixture
def quick() -> Iterator[Rig]:
    cluster = Rig(config={"node_down_after": 1})
    try:
        cluster.start()
        done = cluster.run(["qmgr", "-c", "set server node_fail_requeue = 2"])
        assert done.returncode == 0, done.stderr
        yield cluster
    finally:
        cluster.close()


def _alive(pid: int) -> bool:
    return start_ticks(pid) is not None


def test_down_node_requeues_or_ends_its_jobs_and_gets_no_new_ones(quick: Rig) -> None:
    """Mom of n1 killed and kept down: n1 goes down with PBS's comment; a new job runs on n2;
    after node_fail_requeue the rerunnable job is requeued (Q), the ``-r n`` one ends with the
    reason; the mom back: n1 free, the stale first run discarded, the requeued job runs."""
    rig = quick
    marker, pidfile = rig.work / "ran", rig.work / "pid"
    rerun = rig.qsub("if [ -f %s ]; then exit 0; fi\ntouch %s\necho $$ > %s\nsleep 300"
                     % (marker, marker, pidfile), "-l", "host=n1")
    final = rig.qsub("sleep 300", "-r", "n", "-l", "host=n1")
    rig.wait(rerun, "R")
    rig.wait(final, "R")
    wait_for(pidfile.exists, 20, lambda: "first run did not start")
    first_shell = int(pidfile.read_text())
    rig.kill("mom", "n1")
    wait_for(lambda: "down" in rig.node("n1")["state"], 20, lambda: repr(rig.node("n1")))
    assert rig.node("n1")["comment"] == "node down: communication closed"
    elsewhere = rig.qsub("exit 0")
    assert rig.wait(elsewhere)["exec_host"].startswith("n2/")
    assert rig.wait(rerun, "Q")["run_count"] == "1"
    ended = rig.wait(final)
    assert ended["Exit_status"] == "-11"
    assert ended["comment"].endswith("and failed: execution node n1 down"), ended["comment"]
    assert _alive(first_shell)  # nobody could reach it while the mom was away
    rig.restart_missing()
    wait_for(lambda: rig.node("n1")["state"] == "free", 20, lambda: repr(rig.node("n1")))
    assert "comment" not in rig.node("n1")
    again = rig.wait(rerun)
    assert again["Exit_status"] == "0" and again["run_count"] == "2"
    wait_for(lambda: not _alive(first_shell), 20, lambda: "stale first run still alive")


def test_jobs_wait_for_their_mom_when_node_fail_requeue_is_off(quick: Rig) -> None:
    """node_fail_requeue 0: a running job stays R while its node is down and resumes after."""
    rig = quick
    assert rig.run(["qmgr", "-c", "set server node_fail_requeue = 0"]).returncode == 0
    flag = rig.work / "flag"
    jobid = rig.qsub("while [ ! -f %s ]; do sleep 0.05; done\nexit 4" % flag, "-l", "host=n1")
    rig.wait(jobid, "R")
    rig.kill("mom", "n1")
    wait_for(lambda: "down" in rig.node("n1")["state"], 20, lambda: repr(rig.node("n1")))
    time.sleep(3)  # longer than the 2 s node_fail_requeue the fixture set before
    assert rig.job(jobid)["job_state"] == "R"
    flag.touch()
    rig.restart_missing()
    assert rig.wait(jobid)["Exit_status"] == "4"
