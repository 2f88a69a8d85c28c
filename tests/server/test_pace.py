"""The ``pbs`` pace (fake-pbs start --pace pbs; fake_pbs/pace.py): PBS's end-of-job timing.

Pinned transcripts (OpenPBS 23.06.06): a17/a17b (a blocking qsub returns at the obit, while
the job still holds its cpu, so the next job got vm/1; b22e's exec_host list), h01 (a job that
ended within a second: ``Obit received ... state:R substate:41``), e01 and b05 (after qdel the
job stays R and keeps its cpu until the mom's next poll).  One small cluster for the module.
"""
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from fake_pbs import control, paths, protocol

pytestmark = pytest.mark.cluster  # a module cluster started with --pace pbs

BIN = str(paths.bin_dir())


@pytest.fixture(scope="module")
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="fppace-"))
    path.chmod(0o755)
    try:
        control.start(path, "vm", [control.parse_host("n1:ncpus=2")], pace="pbs")
        yield path
    finally:
        control.stop(path, now=True)
        control.sweep(path)
        shutil.rmtree(str(path), ignore_errors=True)


def _run(home: Path, argv: List[str]) -> "subprocess.CompletedProcess[str]":
    env = dict(os.environ, FAKE_PBS_HOME=str(home), FAKE_PBS_AUTOSTART="0")
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    return subprocess.run(argv, env=env, cwd=str(home), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=60)


def _job(home: Path, jobid: str) -> Dict[str, str]:
    channel = protocol.connect(paths.server_socket(home), timeout=10)
    try:
        reply = protocol.call(channel, "statjob", id=jobid, extend="x")
    finally:
        channel.close()
    return dict(reply[0]["attrs"])


def _script(home: Path, name: str, body: str) -> str:
    path = home / name
    path.write_text("#!/bin/bash\n" + body + "\n")
    return str(path)


def _wait_state(home: Path, jobid: str, states: str, seconds: float = 30) -> Dict[str, str]:
    deadline = time.monotonic() + seconds
    attrs = _job(home, jobid)
    while attrs.get("job_state", "?") not in states and time.monotonic() < deadline:
        time.sleep(0.1)
        attrs = _job(home, jobid)
    return attrs


def test_pace_is_stored_in_cluster_json(home: Path) -> None:
    """``fake-pbs start --pace pbs`` records the profile for both daemons to read."""
    assert '"pace": "pbs"' in paths.config_file(home).read_text()


def test_block_reply_at_obit_while_the_cpu_is_still_held(home: Path) -> None:
    """a17 -> a17b: ``qsub -W block=true`` exits with the job's status when the server takes
    the obit (E, substate 51: stage-out); the finished job keeps its cpu until the end of the
    E phase (1 s), so a job submitted at once gets cpu 1 (``exec_host = vm/1``; the fidelity
    replay pins that part)."""
    first = _run(home, [BIN + "/qsub", "-W", "block=true",
                        _script(home, "exit3.sh", "exit 3")])
    assert first.returncode == 3, first.stderr
    jobid = first.stdout.strip()
    at_reply = _job(home, jobid)
    assert (at_reply["job_state"], at_reply["substate"], at_reply["Exit_status"]) == (
        "E", "51", "3")
    assert at_reply["exec_host"] == "n1/0"
    ended = _wait_state(home, jobid, "F")
    assert (ended["job_state"], ended["Exit_status"]) == ("F", "3")


def test_short_job_obit_says_substate_41(home: Path) -> None:
    """h01: a job that ended before the mom's first status update reached the server is
    ``Obit received momhop:1 serverhop:1 state:R substate:41``."""
    done = _run(home, [BIN + "/qsub", _script(home, "quick.sh", "exit 0")])
    jobid = done.stdout.strip()
    _wait_state(home, jobid, "F")
    log = "".join(p.read_text() for p in sorted((home / "server_logs").iterdir()))
    obits = [ln for ln in log.splitlines() if ";%s;Obit received" % jobid in ln]
    assert obits and obits[0].endswith("state:R substate:41")


def test_deleted_job_stays_running_until_the_mom_notices(home: Path) -> None:
    """e01/b05: after qdel the shell dies of SIGTERM, but the job stays R with its cpu until
    the mom's next resource poll (here the SIGKILL at the queue's kill_delay, 2 s, comes
    first); then Exit_status 271 (b05b)."""
    assert _run(home, [BIN + "/qmgr", "-c", "set queue workq kill_delay = 2"]).returncode == 0
    try:
        done = _run(home, [BIN + "/qsub", _script(home, "sleep.sh", "sleep 300")])
        jobid = done.stdout.strip()
        _wait_state(home, jobid, "R")
        assert _run(home, [BIN + "/qdel", jobid]).returncode == 0
        assert _job(home, jobid)["job_state"] == "R"
        nodes = _run(home, [BIN + "/pbsnodes", "-a"]).stdout
        assert "jobs = %s/" % jobid in nodes
        attrs = _wait_state(home, jobid, "F")
        assert (attrs["job_state"], attrs["Exit_status"]) == ("F", "271")
    finally:
        _run(home, [BIN + "/qmgr", "-c", "unset queue workq kill_delay"])


def test_usage_comes_with_the_first_status_update(home: Path) -> None:
    """j05f/k04c/k06d: until the mom's first status update a running job (substate 41) has no
    resources_used (qstat's Time Use is ``0``); the update brings them with substate 42, for
    a job suspended meanwhile too (k03q: S with ``resources_used.walltime``)."""
    done = _run(home, [BIN + "/qsub", _script(home, "long.sh", "sleep 300")])
    jobid = done.stdout.strip()
    try:
        attrs = _wait_state(home, jobid, "R")
        if attrs["substate"] == "41":  # a loaded machine may be past the update already
            assert not any(name.startswith("resources_used.") for name in attrs)
            assert _run(home, [BIN + "/qstat", jobid]).stdout.splitlines()[-1].split()[3] == "0"
        assert _run(home, [BIN + "/qsig", "-s", "suspend", jobid]).returncode == 0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            attrs = _job(home, jobid)
            if "resources_used.walltime" in attrs:
                break
            time.sleep(0.2)
        assert attrs["job_state"] == "S" and "resources_used.walltime" in attrs
    finally:
        _run(home, [BIN + "/qdel", "-W", "force", jobid])


def test_a_job_suspended_before_its_start_is_reported_still_gets_the_update(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """k03q: qsig -s suspend may reach the server before the mom's start event; the first
    status update is still due for that run (it brings resources_used to the S job)."""
    from types import SimpleNamespace
    from typing import Any, List, Tuple

    from fake_pbs import pace
    from fake_pbs.server import lifecycle
    timers: List[Tuple[Any, ...]] = []
    monkeypatch.setattr(lifecycle, "_after", lambda *args: timers.append(args))
    app: Any = SimpleNamespace(pace=pace.PROFILES[pace.PBS], now=lambda: 100,
                               state=SimpleNamespace(save_job=lambda jobid: None), execs=None)
    job = {"_id": "389.vm", "run_count": "1", "job_state": "S", "substate": "43"}
    lifecycle._on_start(app, job, {"session_id": 7})
    assert [t[1] for t in timers] == [lifecycle._first_update]
    assert (job["job_state"], job["substate"]) == ("S", "43")


def test_walltime_is_enforced_at_the_moms_resource_poll(home: Path) -> None:
    """Extra i06/i06b_cat_wt_files/i06d_wt_mom: walltime=3 is found exceeded only at the mom's
    first resource poll (10 s after the start: `walltime 10 exceeded limit 3` in the log and
    the stderr file), the shell is reaped (`task 00000001 terminated`), and the task ends at
    kill_delay's SIGKILL (`kill_job`, `task 00000001 force exited`), then Exit_status -29."""
    done = _run(home, [BIN + "/qsub", "-l", "walltime=3",
                       _script(home, "wt3.sh", "echo err-before-sleep >&2; sleep 120")])
    jobid = done.stdout.strip()
    attrs = _wait_state(home, jobid, "F", 60)
    assert (attrs["job_state"], attrs["Exit_status"]) == ("F", "-29")
    mark = ";pbs_mom;Job;%s;" % jobid
    log = "".join(p.read_text() for p in sorted((home / "mom_logs").rglob("2*")))
    lines = [ln.split(mark, 1)[1] for ln in log.splitlines() if mark in ln]
    exceeded = [ln for ln in lines if ln.startswith("walltime ")]
    # Found at a poll, not when the limit passes: the start samples the job and sets the next
    # poll $min_check_poll (10 s) later (start_exec.c), so i06d's `walltime 10`; that poll's
    # status update logs `SID is` a second time (i06d).
    assert exceeded == ["walltime 10 exceeded limit 3"], lines
    sids = [ln for ln in lines if ln.startswith("SID is: ")]
    assert len(sids) == 2 and lines[lines.index(exceeded[0]) - 1] == sids[1], lines
    at = lines.index(exceeded[0])
    assert lines[at + 1:at + 6] == ["kill_job", "task 00000001 terminated", "kill_job",
                                    "task 00000001 force exited", "Terminated"], lines
    err = (home / ("wt3.sh.e" + jobid.split(".")[0])).read_text()
    assert err == "err-before-sleep\n=>> PBS: job killed: %s\n" % exceeded[0]


def test_running_job_shows_usage_from_the_first_update(home: Path) -> None:
    """Extra j05f: 0.7 s after the start qstat's Time Use is `0` (no resources_used yet); the
    mom's first status update (substate 42) brings resources_used."""
    done = _run(home, [BIN + "/qsub", _script(home, "slow.sh", "sleep 8")])
    jobid = done.stdout.strip()
    attrs = _wait_state(home, jobid, "R")
    if attrs.get("substate") == "41":
        assert not [k for k in attrs if k.startswith("resources_used.")]
    deadline = time.monotonic() + 10
    while attrs.get("substate") != "42" and time.monotonic() < deadline:
        time.sleep(0.1)
        attrs = _job(home, jobid)
    assert attrs["substate"] == "42" and attrs["resources_used.cput"] == "00:00:00"
    _run(home, [BIN + "/qdel", jobid])


def test_each_resource_poll_reports_usage_while_the_job_runs(home: Path) -> None:
    """Extra k08n_qstat_p: the mom's status update at each resource poll (update_jobs_status)
    brings the running job's resources_used, so ``qstat -p`` shows its percent done while it
    runs (PBS: 5 for 33 s of a 10 min walltime); the first poll is 10 s after the start."""
    done = _run(home, [BIN + "/qsub", "-l", "walltime=00:01:40",
                       _script(home, "usage.sh", "sleep 300")])
    jobid = done.stdout.strip()
    try:
        attrs = _wait_state(home, jobid, "R")
        deadline = time.monotonic() + 40
        while (attrs.get("resources_used.walltime", "00:00:00") == "00:00:00"
               and time.monotonic() < deadline):
            time.sleep(0.2)
            attrs = _job(home, jobid)
        assert attrs["job_state"] == "R" and attrs["resources_used.walltime"] == "00:00:10"
        row = _run(home, [BIN + "/qstat", "-p", jobid]).stdout.splitlines()[-1].split()
        assert row[3:5] == ["10", "R"], row
    finally:
        _run(home, [BIN + "/qdel", "-W", "force", jobid])


def test_a_poll_update_changes_only_a_running_job() -> None:
    """k08n: the server takes a poll's usage for an R job; one that crossed the job's
    suspension or end (S, E) leaves the figures the state change brought."""
    from types import SimpleNamespace
    from typing import Any

    from fake_pbs.server import lifecycle
    app: Any = SimpleNamespace(state=SimpleNamespace(save_job=lambda jobid: None))
    event = {"resources_used": {"walltime": "00:00:33", "cput": "00:00:01"}}
    running = {"_id": "389.vm", "job_state": "R", "resources_used.walltime": "00:00:00"}
    lifecycle._on_usage(app, running, event)
    assert (running["resources_used.walltime"], running["resources_used.cput"]) == (
        "00:00:33", "00:00:01")
    for state in ("S", "E"):
        other = {"_id": "389.vm", "job_state": state, "resources_used.walltime": "00:00:20"}
        lifecycle._on_usage(app, other, event)
        assert other["resources_used.walltime"] == "00:00:20"


def test_forced_delete_by_a_manager_ends_the_job_on_the_server(home: Path) -> None:
    """req_delete.c: a manager's `qdel -W force` of a running job ends it on the server at once
    (`Delete forced`, Exit_status 265) without waiting for the mom; with -x it leaves no
    history (extra n02x: the purged jobs no longer hold their resources)."""
    done = _run(home, [BIN + "/qsub", _script(home, "long.sh", "sleep 300")])
    jobid = done.stdout.strip()
    _wait_state(home, jobid, "R")
    assert _run(home, [BIN + "/qdel", "-W", "force", jobid]).returncode == 0
    attrs = _wait_state(home, jobid, "F", 5)
    assert (attrs["job_state"], attrs["Exit_status"]) == ("F", "265")
    log = "".join(p.read_text() for p in sorted((home / "server_logs").iterdir()))
    assert ";%s;Delete forced" % jobid in log
    other = _run(home, [BIN + "/qsub", _script(home, "long.sh", "sleep 300")]).stdout.strip()
    _wait_state(home, other, "R")
    assert _run(home, [BIN + "/qdel", "-x", "-W", "force", other]).returncode == 0
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _run(home, [BIN + "/qstat", "-x", other]).returncode == 0:
        time.sleep(0.2)
    assert _run(home, [BIN + "/qstat", "-x", other]).returncode == 153


def test_dependents_are_released_before_the_nodes_are_freed(home: Path) -> None:
    """j05p (req_jobobit.c on_job_exit: depend_on_term, then the mom's delete, then
    rel_resc): the afternotok job released by a failed job is looked at by a cycle while the
    failed job still holds the cpus, so the scheduler comments on it (``Job Modified at
    request of Scheduler``) before it runs once they are free."""
    parent = _run(home, [BIN + "/qsub", "-l", "select=1:ncpus=2",
                         _script(home, "fail2.sh", "sleep 1; exit 1")]).stdout.strip()
    child = _run(home, [BIN + "/qsub", "-W", "depend=afternotok:" + parent,
                        _script(home, "after.sh", "exit 0")]).stdout.strip()
    assert _wait_state(home, child, "F")["job_state"] == "F"
    log = "".join(p.read_text() for p in sorted((home / "server_logs").iterdir()))
    lines = [ln.split(";", 5)[-1] for ln in log.splitlines() if ";Job;%s;" % child in ln]
    released = lines.index("Dependency on job %s released." % parent)
    modified = lines.index("Job Modified at request of Scheduler@vm", released)
    ran = [i for i, ln in enumerate(lines) if ln.startswith("Job Run at request of Scheduler")]
    assert ran and released < modified < ran[0]


def _node(home: Path, name: str = "n1") -> Dict[str, str]:
    channel = protocol.connect(paths.server_socket(home), timeout=10)
    try:
        reply = protocol.call(channel, "statnode", name=name)
    finally:
        channel.close()
    return dict(reply[0]["attrs"])


def test_a_forced_run_frees_its_cpu_once_whatever_the_mom_reports_later(home: Path) -> None:
    """Release set b08c, b22, b22e (replayed by an ordinary user, who manages the cluster):
    after a manager's `qdel -W force` of one of two running jobs, the mom's own end of that run
    (it arrives later) must not end it again.  Ending it twice freed its cpu twice, so the node
    showed fewer cpus assigned than its jobs held, two jobs ran where one fits and the second
    got ``exec_host = n1/2`` on a 2-cpu node (the transcripts: 17.vm waits for 16.vm's cpu and
    runs on vm/0).  req_delete.c ends the run at once and PBS's job_obit drops an obit for a
    job that is neither running nor exiting; set_resc_assigned releases a job's resources
    once (JOB_SVFLG_RescAssn)."""
    deadline = time.monotonic() + 60  # the earlier tests' deleted jobs end at the mom's poll
    while time.monotonic() < deadline and (
            "jobs" in _node(home) or _node(home).get("resources_assigned.ncpus") != "0"):
        time.sleep(0.2)
    assert _node(home).get("resources_assigned.ncpus") == "0", _node(home)
    long = _script(home, "long.sh", "sleep 300")
    kept, forced = (_run(home, [BIN + "/qsub", long]).stdout.strip() for _ in range(2))
    _wait_state(home, kept, "R")
    _wait_state(home, forced, "R")
    _wait_state(home, forced, "", 2.5)  # the mom's first update: the run is under way there
    assert _run(home, [BIN + "/qdel", "-W", "force", forced]).returncode == 0
    assert _job(home, forced)["job_state"] == "F"  # ended on the server by the request itself
    # The mom kills the run and reports its end (kept back ~1 s, the obit latency): bounded
    # wait until its job directory is gone, then a moment for a late event to be applied.
    jobs_dir = paths.mom_priv(home, "n1") / "jobs"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and jobs_dir.exists() and any(
            forced in p.name for p in jobs_dir.iterdir()):
        time.sleep(0.2)
    time.sleep(2.0)
    node = _node(home)
    assert (node.get("resources_assigned.ncpus"), node.get("jobs")) == ("1", kept + "/0"), node
    third, fourth = (_run(home, [BIN + "/qsub", long]).stdout.strip() for _ in range(2))
    try:
        assert _wait_state(home, third, "R")["exec_host"] == "n1/1"
        time.sleep(1.5)  # a cycle or two: the fourth job finds no free cpu
        assert _job(home, fourth)["job_state"] == "Q"
        log = "".join(p.read_text() for p in sorted((home / "server_logs").iterdir()))
        ends = [ln for ln in log.splitlines() if ";%s;Exit_status=" % forced in ln]
        obits = [ln for ln in log.splitlines() if ";%s;Obit received" % forced in ln]
        assert (len(ends), obits) == (1, []), (ends, obits)
    finally:
        _run(home, [BIN + "/qdel", "-W", "force", kept, third, fourth])
