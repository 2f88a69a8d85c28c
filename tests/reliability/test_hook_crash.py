"""kill -9 of a mom while one of its prologue / epilogue / end hook runs, then restart.

DESIGN.md "Process model": every prologue/epilogue-like hook run runs under a detached shepherd
(fake_pbs/mom/hookshep.py) that outlives the mom and records its start and result.  The
restarted mom waits for a live hook shepherd and continues the job's flow from there, or uses
the recorded result of one that finished meanwhile: the hook runs once, the job runs once and
ends with its true status, and an alarm that expires while no mom runs is still enforced.
"""
from pathlib import Path
from typing import List

from fake_pbs import paths
from fake_pbs.mom.durable import read_json

from .rig import Rig, wait_for


def _hook(rig: Rig, name: str, event: str, body: str, alarm: int = 30) -> None:
    """``qmgr``'s create/import hook requests, sent directly (tests/cli covers qmgr)."""
    settings = [["event", "=", event], ["alarm", "=", str(alarm)]]
    rig.call("manager", command="create", objtype="hook", name=name, attrs=settings)
    rig.call("hookio", command="import", name=name, content_type="application/x-python",
             encoding="default", content="import pbs\ne = pbs.event()\n" + body)


def _slow_body(trace: Path, seconds: float) -> str:
    """Record the hook's start and end in ``trace``, sleeping in between."""
    return ("import time\n"
            "def note(word):\n"
            "    with open(%r, 'a') as f:\n"
            "        f.write(word + '\\n')\n"
            "note('start')\n"
            "time.sleep(%s)\n"
            "note('end')\n"
            "e.accept()\n" % (str(trace), seconds))


def _lines(path: Path) -> List[str]:
    try:
        return path.read_text().split()
    except FileNotFoundError:
        return []


def _job_dir(rig: Rig, host: str, jobid: str) -> Path:
    return paths.mom_priv(rig.home, host) / "jobs" / jobid


def _kill_mom_during_hook(rig: Rig, trace: Path) -> None:
    wait_for(lambda: _lines(trace) == ["start"], 30, lambda: "hook never started: %r"
             % _lines(trace))
    rig.kill("mom", "n1")
    rig.restart_missing()


def test_mom_killed_during_prologue_runs_the_job_once(rig: Rig) -> None:
    """A prologue hook (sleep 3) survives the mom's kill -9; the restarted mom waits for its
    accept, starts the job (run_count 1, its own Exit_status) and never runs it twice."""
    trace, ran = rig.work / "prologue", rig.work / "ran"
    _hook(rig, "slowpro", "execjob_prologue", _slow_body(trace, 3))
    jobid = rig.qsub("echo x >> %s\nexit 5" % ran, "-l", "host=n1")
    _kill_mom_during_hook(rig, trace)
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "5" and attrs["run_count"] == "1"
    assert _lines(trace) == ["start", "end"]
    assert _lines(ran) == ["x"]


def test_mom_killed_during_epilogue_finishes_the_job_once(rig: Rig) -> None:
    """An epilogue (sleep 3) interrupted by the mom's kill -9 is not run again: the restarted
    mom waits for the live run, then sends the job's true Exit_status."""
    trace = rig.work / "epilogue"
    _hook(rig, "slowepi", "execjob_epilogue", _slow_body(trace, 3))
    jobid = rig.qsub("exit 4", "-l", "host=n1")
    _kill_mom_during_hook(rig, trace)
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "4" and attrs["run_count"] == "1"
    assert _lines(trace) == ["start", "end"]


def test_epilogue_that_finished_while_the_mom_was_down_is_collected(rig: Rig) -> None:
    """The epilogue ends while no mom runs: its recorded result is used, it does not run
    again, and the job ends with its status."""
    trace, flag = rig.work / "epilogue", rig.work / "flag"
    # The hook ends only once the test has killed the mom (bounded wait for the flag).
    wait = ("for _ in range(400):\n"
            "    if os.path.exists(%r):\n"
            "        break\n"
            "    time.sleep(0.05)\n" % str(flag))
    _hook(rig, "epi", "execjob_epilogue", "import os\n" + _slow_body(trace, 0).replace(
        "time.sleep(0)\n", wait))
    jobid = rig.qsub("exit 7", "-l", "host=n1")
    wait_for(lambda: _lines(trace) == ["start"], 30, lambda: "epilogue never started")
    rig.kill("mom", "n1")
    flag.touch()
    wait_for(lambda: (_job_dir(rig, "n1", jobid) / "hook_execjob_epilogue.json").exists(), 20,
             lambda: "the hook shepherd did not record the result")
    rig.restart_missing()
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "7" and attrs["run_count"] == "1"
    assert _lines(trace) == ["start", "end"]


def test_mom_killed_during_end_hook_does_not_run_it_again(rig: Rig) -> None:
    """execjob_end (sleep 3) interrupted by the mom's kill -9: the restarted mom finishes the
    discard with the live run's result; the hook ran once and the job's files are removed."""
    trace = rig.work / "end"
    _hook(rig, "slowend", "execjob_end", _slow_body(trace, 3))
    jobid = rig.qsub("exit 3", "-l", "host=n1")
    _kill_mom_during_hook(rig, trace)
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "3" and attrs["run_count"] == "1"
    wait_for(lambda: not _job_dir(rig, "n1", jobid).exists(), 30,
             lambda: "the restarted mom never finished the discard")
    assert _lines(trace) == ["start", "end"]


def _why_no_record(rig: Rig, record_path: Path) -> str:
    """What was there when a shepherd's result did not come: the job directory, the
    cluster's processes and the end of the mom's log."""
    from fake_pbs import control
    folder = record_path.parent
    files = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else "no directory"
    procs = []
    for pid in control.processes_of(rig.home):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as handle:
                procs.append(handle.read().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            pass
    logs = rig.home / "mom_logs" / "n1"
    tail = "".join(p.read_text() for p in sorted(logs.iterdir())).splitlines()[-25:]
    return "the alarm was not enforced without a mom: %s holds %s; processes %s; mom log:\n%s" % (
        folder, files, procs, "\n".join(tail))


def test_prologue_alarm_expiring_while_the_mom_is_down_is_an_alarm(rig: Rig) -> None:
    """The hook shepherd enforces the alarm with no mom running: the result is recorded as an
    alarm (hook error), the restarted mom logs nothing new for it and the job never runs
    that attempt's shell (the prologue's -22 outcome)."""
    trace, ran = rig.work / "prologue", rig.work / "ran"
    _hook(rig, "stuck", "execjob_prologue", _slow_body(trace, 30), alarm=1)
    jobid = rig.qsub("echo x >> %s\nexit 0" % ran, "-l", "host=n1")
    wait_for(lambda: _lines(trace) == ["start"], 30, lambda: "hook never started")
    rig.kill("mom", "n1")
    record_path = _job_dir(rig, "n1", jobid) / "hook_execjob_prologue.json"
    wait_for(record_path.exists, 20, lambda: _why_no_record(rig, record_path))
    record = read_json(record_path) or {}
    assert record["error"] is True and record["accept"] is False
    logged = "".join(p.read_text() for p in (rig.home / "mom_logs" / "n1").iterdir())
    assert "alarm call while running execjob_prologue hook 'stuck', request rejected" in logged
    rig.restart_missing()
    wait_for(lambda: rig.job(jobid).get("job_state") != "R"
             or int(rig.job(jobid).get("run_count", "0")) > 1, 30,
             lambda: "the job stayed R after the prologue alarm: %r" % rig.job(jobid))
    # Under load the scheduler may already have sent the requeued job's next attempt, whose
    # prologue starts again: each attempt starts the hook once and no more (the trace is read
    # before the job, so every start it holds belongs to an attempt the run_count counts).
    starts = _lines(trace)
    attempts = int(rig.job(jobid).get("run_count", "0"))
    assert set(starts) == {"start"} and len(starts) <= attempts, (starts, attempts)
    assert _lines(ran) == []


def test_mom_killed_during_launch_hook_runs_the_job_once(rig: Rig) -> None:
    """execjob_launch (sleep 3) under its shepherd: the restarted mom takes its accept and
    starts the job shell once (no -3 requeue for a set-up the crash interrupted)."""
    trace, ran = rig.work / "launch", rig.work / "ran"
    _hook(rig, "slowlaunch", "execjob_launch", _slow_body(trace, 3))
    jobid = rig.qsub("echo x >> %s\nexit 2" % ran, "-l", "host=n1")
    _kill_mom_during_hook(rig, trace)
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "2" and attrs["run_count"] == "1"
    assert _lines(trace) == ["start", "end"] and _lines(ran) == ["x"]


def test_sister_killed_during_its_epilogue_finishes_the_release_once(rig: Rig) -> None:
    """A sister mom killed while its epilogue (sleep 2) runs: the job still ends with its
    status; the restarted sister finishes the release (epilogue result, then execjob_end)
    without running the epilogue again, and removes its copy of the job."""
    trace = rig.work / "epilogue"
    body = ("import time\n"
            "def note(word):\n"
            "    with open(%r, 'a') as f:\n"
            "        f.write(pbs.get_local_nodename() + '-' + word + '\\n')\n"
            "note('start')\n"
            "time.sleep(2)\n"
            "note('end')\n" % str(trace))
    _hook(rig, "epi", "execjob_epilogue", body)
    _hook(rig, "end", "execjob_end", body.replace("time.sleep(2)", "time.sleep(0)")
          .replace("'-' + word", "'-end' + word"))
    jobid = rig.qsub("exit 6", "-l", "select=2:ncpus=1", "-l", "place=scatter")
    attrs = rig.wait(jobid, "RF")
    primary = attrs["exec_host"].split("/")[0]
    sister = "n2" if primary == "n1" else "n1"
    wait_for(lambda: sister + "-start" in _lines(trace), 30,
             lambda: "the sister's epilogue never started: %r" % _lines(trace))
    rig.kill("mom", sister)
    rig.restart_missing()
    attrs = rig.wait(jobid)
    assert attrs["Exit_status"] == "6" and attrs["run_count"] == "1"
    wait_for(lambda: not _job_dir(rig, sister, jobid).exists(), 30,
             lambda: "the restarted sister never finished the release")
    wait_for(lambda: primary + "-endend" in _lines(trace), 30, lambda: "no primary end hook")
    assert sorted(_lines(trace)) == sorted(
        [h + w for h in (primary, sister) for w in ("-start", "-end", "-endstart", "-endend")])
