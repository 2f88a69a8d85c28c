"""The scheduler's run limits and the comments it leaves on the jobs they hold back.

OpenPBS src/scheduler/limits.cpp check_limits (limfuncs[]: check_queue_max_run,
check_queue_max_user_run, check_server_max_run, check_server_max_user_run, check_queue_max_res
...), lim_setlimits (old-style limits as generic ones); comments from job_info.cpp res_to_str
(QUEUE_JOB_LIMIT_REACHED, QUEUE_USER_LIMIT_REACHED, QUEUE_BYUSER_JOB_LIMIT_REACHED,
SERVER_JOB_LIMIT_REACHED, QUEUE_RESOURCE_LIMIT_REACHED ...), "Not Running: " from
update_job_can_not_run.  A queue not started: queue_info.cpp query_queues, QUEUE_NOT_STARTED.
"""
import getpass
from typing import List, Sequence

import pytest

from fake_pbs.testing import FakeCluster, wait_for

ME = getpass.getuser()


def sleepers(pbs: FakeCluster, count: int, *options: str) -> List[str]:
    return [pbs.qsub("sleep 60", *options) for _ in range(count)]


def settle(pbs: FakeCluster, jobs: List[str], running: int) -> List[str]:
    """Wait until ``running`` of ``jobs`` run and every other one has a comment; the comments
    of those that wait."""
    def done() -> bool:
        states = [pbs.job(j) for j in jobs]
        return (sum(s["job_state"] == "R" for s in states) == running
                and all("comment" in s for s in states if s["job_state"] == "Q"))
    wait_for(done, 30, "%d of %s running" % (running, jobs))
    return [pbs.job(j)["comment"] for j in jobs if pbs.job(j)["job_state"] == "Q"]


def held_back(pbs: FakeCluster, setting: str, jobs: int, running: int,
              options: Sequence[str] = ()) -> List[str]:
    """After qmgr ``setting``, ``jobs`` sleepers (qsub ``options``) of which ``running`` run:
    the comments of the others."""
    pbs.qmgr(setting)
    return settle(pbs, sleepers(pbs, jobs, *options), running)


@pytest.mark.parametrize("limit", [1, 2])
def test_queue_max_run_overall(pbs: FakeCluster, limit: int) -> None:
    """check_queue_max_run: [o:PBS_ALL=N] runs N jobs; QUEUE_JOB_LIMIT_REACHED for the rest."""
    assert held_back(pbs, "set queue workq max_run = [o:PBS_ALL=%d]" % limit,
                     jobs=limit + 1, running=limit) == [
        "Not Running: Queue workq job limit has been reached."]


def test_queue_max_user_run_is_a_generic_user_limit(pbs: FakeCluster) -> None:
    """lim_setlimits: max_user_run is [u:PBS_GENERIC]; check_queue_max_user_run gives
    QUEUE_USER_LIMIT_REACHED."""
    assert held_back(pbs, "set queue workq max_user_run = 1", jobs=2, running=1) == [
        "Not Running: User has reached queue workq running job limit."]


def test_specific_user_limit_replaces_generic(pbs: FakeCluster) -> None:
    """check_queue_max_user_run: a [u:name] limit wins over [u:PBS_GENERIC]
    (QUEUE_BYUSER_JOB_LIMIT_REACHED)."""
    assert held_back(pbs, "set queue workq max_run = '[u:PBS_GENERIC=1],[u:%s=2]'" % ME,
                     jobs=3, running=2) == [
        "Not Running: Queue workq job limit reached for user %s" % ME]


def test_server_max_running_and_user_limit(pbs: FakeCluster) -> None:
    """check_server_max_run: SERVER_JOB_LIMIT_REACHED (old max_running as [o:PBS_ALL])."""
    assert held_back(pbs, "set server max_running = 1", jobs=2, running=1) == [
        "Not Running: Server job limit has been reached."]


def test_server_generic_user_limit(pbs: FakeCluster) -> None:
    """check_server_max_user_run: SERVER_USER_LIMIT_REACHED."""
    assert held_back(pbs, "set server max_run = [u:PBS_GENERIC=1]", jobs=2, running=1) == [
        "Not Running: User has reached server running job limit."]


@pytest.mark.parametrize("ncpus,running", [(1, 3), (2, 1), (3, 1)])
def test_queue_max_run_res_ncpus(pbs: FakeCluster, ncpus: int, running: int) -> None:
    """check_queue_max_res: used + requested above [o:PBS_ALL=3] holds the job
    (QUEUE_RESOURCE_LIMIT_REACHED)."""
    assert held_back(pbs, "set queue workq max_run_res.ncpus = [o:PBS_ALL=3]",
                     jobs=running + 1, running=running, options=("-l", "ncpus=%d" % ncpus)) == [
        "Not Running: would exceed overall limit on resource ncpus in queue workq"]


def test_max_user_res_is_a_generic_user_resource_limit(pbs: FakeCluster) -> None:
    """lim_setlimits: max_user_res.ncpus is [u:PBS_GENERIC]: QUEUE_USER_RES_LIMIT_REACHED."""
    assert held_back(pbs, "set queue workq max_user_res.ncpus = 2", jobs=3, running=2) == [
        "Not Running: Queue workq per-user limit reached on resource ncpus"]


def test_qrun_bypasses_run_limits(pbs: FakeCluster) -> None:
    """is_ok_to_run: check_limits is skipped for the job a manager qruns."""
    pbs.qmgr("set queue workq max_run = [o:PBS_ALL=1]")
    jobs = sleepers(pbs, 2)
    settle(pbs, jobs, 1)
    waiting = [j for j in jobs if pbs.job(j)["job_state"] == "Q"][0]
    pbs.sh("qrun", waiting)
    pbs.wait(waiting, "R")


def test_stopped_queue_keeps_jobs_queued_with_comment(pbs: FakeCluster) -> None:
    """query_queues: jobs of a queue that is not started stay Q with QUEUE_NOT_STARTED's
    comment (transcript resv R11: a reservation queue before its window); started = True lets
    them run."""
    pbs.qmgr("set queue workq started = false")
    job = pbs.qsub("sleep 60")
    pbs.qmgr("set server scheduling = true")
    wait_for(lambda: pbs.job(job).get("comment") == "Not Running: Queue not started.", 30,
             "the queue-not-started comment")
    assert pbs.job(job)["job_state"] == "Q"
    pbs.qmgr("set queue workq started = true")
    pbs.wait(job, "R")


@pytest.mark.parametrize("first,second", [
    ("set queue workq max_run = [o:PBS_ALL=2]", "set queue workq max_user_run = 1"),
    ("set server max_user_run = 1", "set queue workq max_run_res.ncpus = [o:PBS_ALL=2]"),
    ("set queue workq max_queued = [o:PBS_ALL=2]", "set server max_running = 3"),
])
def test_old_and_new_style_limits_do_not_mix(pbs: FakeCluster, first: str,
                                             second: str) -> None:
    """svr_func.c check_no_entlim / action_entlim_chk: PBSE_MIXENTLIMS (15141)."""
    pbs.qmgr(first)
    done = pbs.run(["qmgr", "-c", second])
    obj = "workq" if " queue " in second else ""  # qmgr names no server object
    assert (done.returncode, done.stderr) == (
        15141 % 256, "qmgr obj=%s svr=default: Cannot mix old and new style queue/run limit "
                     "enforcement types\nqmgr: Error (15141) returned from server\n" % obj)


def test_max_group_run_is_a_generic_group_limit(pbs: FakeCluster) -> None:
    """lim_setlimits: max_group_run is [g:PBS_GENERIC]; check_queue_max_group_run gives
    QUEUE_GROUP_LIMIT_REACHED."""
    assert held_back(pbs, "set queue workq max_group_run = 1", jobs=2, running=1) == [
        "Not Running: Group has reached queue workq running limit."]


def test_max_group_res_is_a_generic_group_resource_limit(pbs: FakeCluster) -> None:
    """lim_setlimits: max_group_res.ncpus is [g:PBS_GENERIC]; check_queue_max_group_res gives
    QUEUE_GROUP_RES_LIMIT_REACHED."""
    assert held_back(pbs, "set queue workq max_group_res.ncpus = 2", jobs=3, running=2) == [
        "Not Running: Queue workq per-group limit reached on resource ncpus"]
