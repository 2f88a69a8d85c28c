"""qorder (src/cmds/qorder.c; src/server/req_movejob.c req_orderjob): two queued jobs swap
their places in the scheduler's order (qrank), and their queues when they differ."""
from fake_pbs.testing import FakeCluster, wait_for


def test_swapped_jobs_run_in_the_new_order(pbs: FakeCluster) -> None:
    pbs.qmgr("set server scheduling = False")
    pbs.qmgr("set queue workq max_run = [o:PBS_ALL=1]")
    first = pbs.qsub("sleep 60")
    second = pbs.qsub("sleep 60")
    done = pbs.run(["qorder", first, second])
    assert (done.returncode, done.stderr) == (0, "")
    pbs.qmgr("set server scheduling = True")
    pbs.wait(second, "R")
    wait_for(lambda: pbs.job(first).get("comment") ==
             "Not Running: Queue workq job limit has been reached.", 30, "first waits")


def test_swaps_queues(pbs: FakeCluster) -> None:
    pbs.qmgr("create queue q2 queue_type = execution, enabled = true, started = true")
    one = pbs.qsub("true", "-h")
    two = pbs.qsub("true", "-h", "-q", "q2")
    pbs.sh("qorder", one, two)
    assert (pbs.job(one)["queue"], pbs.job(two)["queue"]) == ("q2", "workq")


def test_running_job_and_usage(pbs: FakeCluster) -> None:
    """PBSE_BADSTATE (15016) names both jobs; a wrong count of arguments is the usage."""
    running = pbs.qsub("sleep 60")
    pbs.wait(running, "R")
    queued = pbs.qsub("true", "-h")
    done = pbs.run(["qorder", running, queued])
    assert (done.returncode, done.stderr) == (
        15016 % 256, "qorder: Request invalid for state of job %s or %s\n" % (running, queued))
    done = pbs.run(["qorder", queued])
    assert (done.returncode, done.stderr) == (
        2, "usage: qorder job_identifier job_identifier\n       qorder --version\n")
