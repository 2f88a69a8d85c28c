"""svr_chkque's checks when a job enters a queue (qsub, qmove), with PBS's messages and codes.

OpenPBS: src/server/svr_jobfunc.c svr_chkque (steps 2, 3, 7a-7e), chk_resc_limits;
src/server/svr_func.c check_entity_ct_limit_max / _queued, check_entity_resc_limit_max / _queued;
src/lib/Liblog/pbs_messages.c msg_et_*.  qsub prints ``qsub: <text>`` and exits pbs_errno % 256.
"""
import getpass
from typing import Tuple

import pytest

from fake_pbs.testing import FakeCluster

ME = getpass.getuser()


def qsub(pbs: FakeCluster, *options: str) -> Tuple[int, str]:
    done = pbs.run(["qsub"] + list(options) + ["--", "/bin/true"])
    return done.returncode, done.stderr


def hold(pbs: FakeCluster, *options: str) -> str:
    """A held job (it stays queued, counted by max_queued)."""
    done = pbs.run(["qsub", "-h"] + list(options) + ["--", "/bin/true"])
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_queue_max_queued_overall_at_below_above(pbs: FakeCluster, limit: int) -> None:
    """check_entity_ct_limit_max, [o:PBS_ALL=N]: N jobs enter, the next is refused with
    msg_et_qct and PBSE_ENTLIMCT (15142, exit 38)."""
    pbs.qmgr("set queue workq max_queued = [o:PBS_ALL=%d]" % limit)
    for _ in range(limit):
        hold(pbs)
    assert qsub(pbs, "-h") == (38, "qsub: Maximum number of jobs already in queue workq\n")


def test_history_jobs_do_not_count_for_max_queued(pbs: FakeCluster) -> None:
    """A finished job left the queue's count (svr_chkque counts queued jobs less history)."""
    pbs.qmgr("set queue workq max_queued = [o:PBS_ALL=1]")
    job = pbs.qsub("true")
    pbs.wait(job)
    hold(pbs)


def test_server_max_queued_user_generic_and_specific(pbs: FakeCluster) -> None:
    """check_entity_ct_limit_max (server): a specific [u:name] limit wins over the generic one;
    the texts are msg_et_sus and msg_et_gus."""
    pbs.qmgr("set server max_queued = '[u:PBS_GENERIC=1],[u:%s=2]'" % ME)
    hold(pbs)
    hold(pbs)
    assert qsub(pbs, "-h") == (
        38, "qsub: Maximum number of jobs for user %s already in complex\n" % ME)
    pbs.qmgr("set server max_queued = [u:PBS_GENERIC=1]")
    assert qsub(pbs, "-h") == (38, "qsub: would exceed complex's per-user limit\n")


def test_queue_generic_user_text_keeps_pbs_argument(pbs: FakeCluster) -> None:
    """check_entity_ct_limit_max passes "generic" where msg_et_guq has the queue's name."""
    pbs.qmgr("set queue workq max_queued = [u:PBS_GENERIC=0]")
    assert qsub(pbs) == (38, "qsub: would exceed queue generic's per-user limit\n")


def test_queued_jobs_threshold_counts_state_q_only(pbs: FakeCluster) -> None:
    """check_entity_ct_limit_queued: only jobs in state Q count; held jobs do not."""
    pbs.qmgr("set queue workq queued_jobs_threshold = [o:PBS_ALL=1]")
    pbs.qmgr("set server scheduling = False")
    hold(pbs)
    pbs.qsub("true")
    assert qsub(pbs) == (
        38, "qsub: Maximum number of jobs in 'Q' state already in queue workq\n")


def test_array_counts_its_subjobs(pbs: FakeCluster) -> None:
    """get_queued_subjobs_ct: an array adds its subjobs to the count."""
    pbs.qmgr("set queue workq max_queued = [o:PBS_ALL=3]")
    assert qsub(pbs, "-h", "-J", "1-4") == (
        38, "qsub: Maximum number of jobs already in queue workq\n")
    hold(pbs, "-J", "1-3")


@pytest.mark.parametrize("ncpus,ok", [(1, True), (2, True), (3, False)])
def test_max_queued_res_ncpus(pbs: FakeCluster, ncpus: int, ok: bool) -> None:
    """check_entity_resc_limit_max: usage plus the request above the limit is refused with
    msg_et_raq and PBSE_ENTLIMRESC (15143, exit 39)."""
    pbs.qmgr("set queue workq max_queued_res.ncpus = [o:PBS_ALL=3]")
    hold(pbs)
    rc, err = qsub(pbs, "-h", "-l", "ncpus=%d" % ncpus)
    if ok:
        assert rc == 0, err
    else:
        assert (rc, err) == (39, "qsub: would exceed limit on resource ncpus in queue workq\n")


def test_server_max_queued_res_mem_per_user(pbs: FakeCluster) -> None:
    """check_entity_resc_limit_max (server), a size: msg_et_rsus."""
    pbs.qmgr("set server max_queued_res.mem = [u:%s=1gb]" % ME)
    hold(pbs, "-l", "mem=512mb")
    hold(pbs, "-l", "mem=512mb")
    assert qsub(pbs, "-l", "mem=1mb") == (
        39, "qsub: would exceed user %s's limit on resource mem in complex\n" % ME)


@pytest.mark.parametrize("walltime,rc", [("00:30:00", 0), ("01:00:00", 0), ("01:00:01", 188)])
def test_queue_resources_max(pbs: FakeCluster, walltime: str, rc: int) -> None:
    """chk_resc_limits: above the queue's resources_max is PBSE_EXCQRESC (15036, exit 188)."""
    pbs.qmgr("set queue workq resources_max.walltime = 01:00:00")
    got = qsub(pbs, "-h", "-l", "walltime=" + walltime)
    if rc:
        assert got == (rc, "qsub: Job violates queue and/or server resource limits\n")
    else:
        assert got[0] == 0, got


def test_queue_max_wins_over_server_max(pbs: FakeCluster) -> None:
    """chk_svr_resc_limit: the queue's resources_max for a resource replaces the server's."""
    pbs.qmgr("set server resources_max.ncpus = 2")
    assert qsub(pbs, "-h", "-l", "ncpus=3")[0] == 188
    pbs.qmgr("set queue workq resources_max.ncpus = 4")
    assert qsub(pbs, "-h", "-l", "ncpus=3")[0] == 0
    assert qsub(pbs, "-h", "-l", "ncpus=5")[0] == 188


@pytest.mark.parametrize("ncpus,rc", [(1, 188), (2, 0), (3, 0)])
def test_queue_resources_min(pbs: FakeCluster, ncpus: int, rc: int) -> None:
    """chk_resc_limits: below the queue's resources_min is PBSE_EXCQRESC."""
    pbs.qmgr("set queue workq resources_min.ncpus = 2")
    assert qsub(pbs, "-h", "-l", "ncpus=%d" % ncpus)[0] == rc


def test_disabled_queue_refuses_submission_and_move(pbs: FakeCluster) -> None:
    """svr_chkque step 2: PBSE_QUNOENB (15021, exit 173) for qsub and a user's qmove; a
    manager's qmove (MOVE_TYPE_MgrMv) skips it."""
    pbs.qmgr("create queue q2 queue_type = execution, enabled = false, started = true")
    assert qsub(pbs, "-q", "q2") == (173, "qsub: Queue is not enabled\n")
    job = hold(pbs)
    pbs.sh("qmove", "q2", job)  # root is a manager
    assert pbs.job(job)["queue"] == "q2"


def test_from_route_only_refuses_direct_submission(pbs: FakeCluster) -> None:
    """svr_chkque step 3: PBSE_QACESS (15022, exit 174)."""
    pbs.qmgr("create queue q2 queue_type = execution, enabled = true, started = true")
    pbs.qmgr("set queue q2 from_route_only = true")
    assert qsub(pbs, "-q", "q2") == (174, "qsub: Access to queue is denied\n")


def test_delete_queue_with_live_jobs_is_refused(pbs: FakeCluster) -> None:
    """mgr_queue_delete / que_purge: PBSE_OBJBUSY (15027) while a job that is not history is
    in the queue; history jobs do not keep it when job history is enabled."""
    pbs.qmgr("create queue q2 queue_type = execution, enabled = true, started = true")
    job = hold(pbs, "-q", "q2")
    done = pbs.run(["qmgr", "-c", "delete queue q2"])
    assert (done.returncode, done.stderr) == (
        15027 % 256, "qmgr obj=q2 svr=default: Cannot delete busy object\n"
                     "qmgr: Error (15027) returned from server\n")
    pbs.sh("qdel", job)
    pbs.wait(job)
    pbs.qmgr("delete queue q2")


def test_queued_jobs_threshold_res_counts_queued_jobs(pbs: FakeCluster) -> None:
    """check_entity_resc_limit_queued: jobs in state Q only, msg_et_raq_q's text."""
    pbs.qmgr("set server scheduling = False")
    pbs.qmgr("set queue workq queued_jobs_threshold_res.ncpus = [o:PBS_ALL=2]")
    hold(pbs, "-l", "ncpus=2")  # held: not counted
    assert qsub(pbs, "-l", "ncpus=2")[0] == 0
    assert qsub(pbs, "-l", "ncpus=1") == (
        39, "qsub: would exceed limit on resource ncpus in queue workq for jobs in 'Q' state\n")
