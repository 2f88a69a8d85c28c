"""Reservations on a running fake cluster: windows of seconds with real jobs on real moms.

Each test names the transcript of group R it pins (tests/data/fidelity/openpbs-23.06.06-resv)
and the OpenPBS source: the server's Time4resv/Time4resvFinish (resv_func), req_deleteReservation
(req_delete.c), svr_chkque's resources_max check (svr_jobfunc.c) and the scheduler's view of a
reservation's vnodes.  Start times are given in pbs_rsub's full ``YYYYMMDDhhmm.SS`` form: an
``hhmm.SS`` time in the current minute rolls over to tomorrow (R53).
"""
import os
import pwd
import time
from typing import List, Tuple

import pytest

from fake_pbs.testing import FakeCluster, wait_for


def _when(epoch: float) -> str:
    return time.strftime("%Y%m%d%H%M.%S", time.localtime(epoch))


def rsub(cluster: FakeCluster, lead: int, length: int, *options: str) -> Tuple[str, int]:
    """A reservation from ``lead`` seconds from now for ``length`` seconds: (id, start)."""
    start = int(time.time()) + lead
    out = cluster.sh("pbs_rsub", "-R", _when(start), "-E", _when(start + length), *options)
    return out.split()[0], start


def rstat(cluster: FakeCluster, resv: str) -> str:
    return cluster.run(["pbs_rstat", "-f", resv]).stdout


def gone(cluster: FakeCluster, resv: str) -> bool:
    return "Unknown Reservation Id" in cluster.run(["pbs_rstat", "-f", resv]).stderr


def accounting(cluster: FakeCluster, needle: str) -> List[str]:
    lines: List[str] = []
    for path in sorted((cluster.home / "server_priv" / "accounting").iterdir()):
        lines += [line.split(";", 1)[1] for line in path.read_text().splitlines()
                  if needle in line]
    return lines


def test_jobs_wait_for_the_window_and_die_at_its_end(fake_pbs: FakeCluster) -> None:
    """R10/R11 (queued before the window: ``Not Running: Queue not started.``, reserve_ID),
    R22/R22c/R22d (RN, the job runs on the reservation's vnode, the node lists the
    reservation), R26 (a short job ends normally), R27/R28 (a job still running at the end:
    Exit_status 271, ``terminated by root@vm``), R30 (B, S with resvID, K by root, E)."""
    resv, start = rsub(fake_pbs, 8, 6, "-l", "select=1:ncpus=2")  # time to see it queued
    queue = resv.split(".")[0]
    short = fake_pbs.sh("qsub", "-q", queue, "--", "/bin/true").strip()
    long = fake_pbs.sh("qsub", "-q", queue, "--", "/bin/sleep", "60").strip()
    outside = fake_pbs.qsub("true", "-l", "select=1:ncpus=1")
    wait_for(lambda: fake_pbs.job(long).get("comment") == "Not Running: Queue not started.",
             10, "the reservation's job says its queue is not started")
    early = fake_pbs.job(long)
    assert (early["job_state"], early["reserve_ID"]) == ("Q", resv)
    assert fake_pbs.wait(outside)["Exit_status"] == "0"  # other jobs run meanwhile
    running = fake_pbs.wait(long, "R", timeout=20, started=True)
    assert int(running["stime"]) >= start
    assert "reserve_state = RESV_RUNNING" in rstat(fake_pbs, resv)
    node = running["exec_vnode"].strip("()").split(":")[0]
    assert fake_pbs.sh("pbsnodes", node).count(resv) == 1
    assert fake_pbs.wait(short)["Exit_status"] == "0"
    ended = fake_pbs.wait(long, timeout=30)
    assert ended["Exit_status"] == "271"
    assert ended["comment"].endswith("and terminated by root@vm")
    wait_for(lambda: gone(fake_pbs, resv), 20, "the reservation goes once its job ended")
    kinds = [line.split(";")[0] for line in accounting(fake_pbs, resv)]
    assert kinds[:2] == ["U", "Y"] and "B" in kinds and "K" in kinds
    assert accounting(fake_pbs, "K;" + resv) == ["K;%s;requestor=root@vm" % resv]
    assert "resvname=NULL resvID=%s" % resv in accounting(fake_pbs, "S;" + long)[0]


def test_rdel_of_a_running_reservation_kills_its_job(fake_pbs: FakeCluster) -> None:
    """R52-R52f: pbs_rdel during the window: k, D by the requestor, the job killed (271,
    ``terminated by <requestor>``)."""
    resv, _ = rsub(fake_pbs, 2, 300)
    job = fake_pbs.sh("qsub", "-q", resv.split(".")[0], "--", "/bin/sleep", "60").strip()
    fake_pbs.wait(job, "R", timeout=20, started=True)
    fake_pbs.sh("pbs_rdel", resv)
    ended = fake_pbs.wait(job, timeout=30)
    assert ended["Exit_status"] == "271"
    me = pwd.getpwuid(os.getuid()).pw_name  # the requestor: whoever runs the tests
    assert ended["comment"].endswith("and terminated by %s@vm" % me)
    assert accounting(fake_pbs, "k;" + resv) == ["k;%s;requestor=%s@vm" % (resv, me)]
    assert accounting(fake_pbs, "D;" + job) == ["D;%s;requestor=%s@vm" % (job, me)]
    wait_for(lambda: gone(fake_pbs, resv), 20, "the reservation goes once its job ended")


def test_rdel_with_a_queued_job_ends_it(fake_pbs: FakeCluster) -> None:
    """R53c/R53d/R53f: the queued job ends F, ``Not Running: Queue not started. and
    terminated``, no Exit_status; the reservation is gone at once."""
    resv, _ = rsub(fake_pbs, 600, 600)
    job = fake_pbs.sh("qsub", "-q", resv.split(".")[0], "--", "/bin/sleep", "60").strip()
    wait_for(lambda: "comment" in fake_pbs.job(job), 10, "the scheduler comments the job")
    fake_pbs.sh("pbs_rdel", resv)
    ended = fake_pbs.job(job)
    assert ended["job_state"] == "F" and "Exit_status" not in ended
    assert ended["comment"] == "Not Running: Queue not started. and terminated"
    assert gone(fake_pbs, resv)


def test_qsub_over_the_reservation_is_refused(fake_pbs: FakeCluster) -> None:
    """R51: more cpus than the reservation: ``Job violates queue and/or server resource
    limits``, rc 188; more walltime is accepted (R51b)."""
    resv, _ = rsub(fake_pbs, 600, 600)
    queue = resv.split(".")[0]
    done = fake_pbs.run(["qsub", "-q", queue, "-l", "select=1:ncpus=2", "--", "/bin/true"])
    assert (done.returncode, done.stderr) == (
        188, "qsub: Job violates queue and/or server resource limits\n")
    assert fake_pbs.run(["qsub", "-q", queue, "-l", "walltime=02:00:00", "--",
                         "/bin/true"]).returncode == 0


def test_reserved_cpus_are_not_for_other_jobs(fake_pbs: FakeCluster) -> None:
    """R24/R24b: beside a running reservation the other jobs get only what it leaves (here
    nothing: ``Not Running: ...``); the reservation's own job uses its cpus."""
    resv, _ = rsub(fake_pbs, 1, 300, "-l", "select=1:ncpus=8+1:ncpus=8")
    wait_for(lambda: "RESV_RUNNING" in rstat(fake_pbs, resv), 15, "the window begins")
    blocked = fake_pbs.qsub("true", "-l", "select=1:ncpus=1")
    wait_for(lambda: fake_pbs.job(blocked).get("comment", "").startswith("Not Running: "),
             10, "the job waits for cpus")
    inside = fake_pbs.sh("qsub", "-q", resv.split(".")[0], "-l", "select=1:ncpus=8", "--",
                         "/bin/true").strip()
    assert fake_pbs.wait(inside)["Exit_status"] == "0"
    fake_pbs.sh("pbs_rdel", resv)
    assert fake_pbs.wait(blocked)["Exit_status"] == "0"


def test_asap_reservation_runs_the_job(fake_pbs: FakeCluster) -> None:
    """R23-R25c, R29: ``pbs_rsub -W qmove=<job>``: CONFIRMED at once, the job moves into the
    reservation's queue and runs in its window."""
    job = fake_pbs.qsub("true", "-h", "-l", "select=1:ncpus=1", "-l", "walltime=00:00:30")
    out = fake_pbs.sh("pbs_rsub", "-W", "qmove=" + job)
    resv = out.split()[0]
    assert out == "%s CONFIRMED\n" % resv
    moved = fake_pbs.job(job)
    assert (moved["queue"], moved["reserve_ID"]) == (resv.split(".")[0], resv)
    assert "delete_idle_time = 00:10:00" in rstat(fake_pbs, resv)
    fake_pbs.sh("qrls", job)
    assert fake_pbs.wait(job, timeout=20)["Exit_status"] == "0"
    fake_pbs.sh("pbs_rdel", resv)


@pytest.mark.parametrize("event", ["resvsub"])
def test_resvsub_hook_rejects(fake_pbs: FakeCluster, event: str) -> None:
    """req_resvSub runs the resvsub hook first; a reject refuses the reservation with the
    hook's message (PBSE_HOOKERROR)."""
    fake_pbs.hook("norsv", event, "if e.resv.Reserve_Name == 'bad':\n"
                  "    e.reject('no bad reservations')\ne.accept()\n")
    start = int(time.time()) + 600
    done = fake_pbs.run(["pbs_rsub", "-N", "bad", "-R", _when(start), "-E", _when(start + 60)])
    assert done.returncode != 0 and "no bad reservations" in done.stderr
    rsub(fake_pbs, 600, 60, "-N", "good")


def test_resv_begin_and_end_hooks_see_the_reservation(fake_pbs: FakeCluster) -> None:
    """The resv_confirm, resv_begin and resv_end events run with pbs.event().resv."""
    fake_pbs.hook("seen", "resv_confirm,resv_begin,resv_end",
                  "pbs.logmsg(pbs.LOG_DEBUG, 'resv event %d %s %s' % (e.type, e.resv.resvid,"
                  " e.resv.queue))\ne.accept()\n")
    fake_pbs.mark_logs()
    resv, _ = rsub(fake_pbs, 2, 3)
    queue = resv.split(".")[0]
    for bit in (0x2000000, 0x1000000, 0x10000):
        fake_pbs.wait_log("server", "resv event %d %s %s" % (bit, resv, queue), timeout=20)


def test_a_reservation_survives_a_server_kill(fake_pbs: FakeCluster) -> None:
    """The store commits a reservation before pbs_rsub's reply: after ``kill -9`` of the
    server and a start, pbs_rstat shows it and its queue takes jobs."""
    resv, _ = rsub(fake_pbs, 600, 60, "-N", "kept")
    fake_pbs.sh("fake-pbs", "kill", "server")
    fake_pbs.start()
    assert "Reserve_Name = kept" in rstat(fake_pbs, resv)
    assert fake_pbs.run(["qsub", "-q", resv.split(".")[0], "--", "/bin/true"]).returncode == 0


def test_an_exclusive_reservation_keeps_its_vnodes_to_itself(fake_pbs: FakeCluster) -> None:
    """A running reservation with place=excl: its vnodes are ``resv-exclusive`` (PBS's
    INUSE_RESVEXCL) and no other job runs there, even on cpus it did not reserve."""
    resv, _ = rsub(fake_pbs, 1, 300, "-l", "select=1:ncpus=1+1:ncpus=1", "-l",
                   "place=scatter:excl")
    wait_for(lambda: "RESV_RUNNING" in rstat(fake_pbs, resv), 15, "the window begins")
    assert fake_pbs.sh("pbsnodes", "node1").count("state = resv-exclusive") == 1
    blocked = fake_pbs.qsub("true", "-l", "select=1:ncpus=1")
    wait_for(lambda: fake_pbs.job(blocked).get("comment", "").startswith("Not Running: "),
             10, "the job waits for a vnode")
    fake_pbs.sh("pbs_rdel", resv)
    assert fake_pbs.sh("pbsnodes", "node1").count("state = free") == 1
    assert fake_pbs.wait(blocked)["Exit_status"] == "0"
