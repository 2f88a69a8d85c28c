"""Crashes: a mom killed with -9 mid-job comes back, re-adopts its shepherds and never leaves a job
without an outcome (DESIGN "Process model"; the Flux perilog restart problem)."""
import os
import signal
import time
from pathlib import Path

from fake_pbs.mom.durable import read_json
from fake_pbs.mom.procs import same_process_alive

from .momrig import MomRig, kinds

WAIT_FOR_FLAG = "while [ ! -f %s ]; do sleep 0.05; done\nexit 5\n"


def _wait_for(path: Path, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, "%s did not appear" % path
        time.sleep(0.05)


def test_shepherd_survives_mom_kill_and_resume_yields_finish(node1: MomRig) -> None:
    """kill -9 of the mom mid-job: the job keeps running; the restarted mom re-adopts it and
    ``resume`` after seq 1 yields finish (seq 2) and the final release (docs/internals.md §5)."""
    flag = node1.user_home / "flag"
    channel = node1.submit("node1", node1.spec("1.vm", WAIT_FOR_FLAG % flag))
    start = node1.read_until(channel, "start")[0]
    node1.kill9("node1")
    record = read_json(node1.job_dir("node1", "1.vm") / "shepherd.json") or {}
    assert same_process_alive(int(record["shepherd_pid"]), record["shepherd_ticks"])
    assert same_process_alive(start["pid"], record["ticks"])
    node1.start("node1")
    flag.touch()
    resumed = node1.channel("node1")
    resumed.send({"op": "resume", "job": "1.vm", "run_count": 1, "after_seq": 1})
    events = node1.read_until(resumed, "release")
    assert kinds(events) == ["finish", "release"]
    assert [e["seq"] for e in events] == [2, 3]
    assert events[0]["status"] == 5 and events[1]["final"] is True


def test_job_that_ended_while_mom_was_down_is_collected(node1: MomRig) -> None:
    """The shell ends while no mom runs: its exit record waits on disk and is collected."""
    flag = node1.user_home / "flag"
    channel = node1.submit("node1", node1.spec("2.vm", WAIT_FOR_FLAG % flag))
    node1.read_until(channel, "start")
    node1.kill9("node1")
    flag.touch()
    _wait_for(node1.job_dir("node1", "2.vm") / "exit.json")
    node1.start("node1")
    resumed = node1.channel("node1")
    resumed.send({"op": "resume", "job": "2.vm", "run_count": 1, "after_seq": 0})
    events = node1.read_until(resumed, "release")
    assert kinds(events) == ["start", "finish", "release"]
    assert events[1]["status"] == 5
    assert (node1.user_home / "job.o2").exists()


def test_lost_processes_get_a_definite_outcome(node1: MomRig) -> None:
    """Shepherd and job shell killed while the mom is down: exception + finish -11 (requeue if
    rerunnable), never a job stuck in R."""
    channel = node1.submit("node1", node1.spec("3.vm", "sleep 300\n"))
    start = node1.read_until(channel, "start")[0]
    node1.kill9("node1")
    record = read_json(node1.job_dir("node1", "3.vm") / "shepherd.json") or {}
    os.kill(int(record["shepherd_pid"]), signal.SIGKILL)
    os.killpg(start["session_id"], signal.SIGKILL)
    deadline = time.monotonic() + 10
    while same_process_alive(start["pid"], record["ticks"]):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    node1.start("node1")
    resumed = node1.channel("node1")
    resumed.send({"op": "resume", "job": "3.vm", "run_count": 1, "after_seq": 1})
    events = node1.read_until(resumed, "release")
    assert kinds(events) == ["exception", "finish", "release"]
    assert events[1]["status"] == -11 and events[2]["final"] is True


def test_replay_is_idempotent_and_unknown_jobs_are_refused(node1: MomRig) -> None:
    """Events are stored and replayed with the same seq; the same start again replays from the
    top; resume of an unknown job or another run_count -> 15001 Unknown Job Id."""
    first = node1.run("node1", node1.spec("4.vm", "exit 0\n"))
    again = node1.run("node1", node1.spec("4.vm", "exit 0\n"))
    assert first == again
    channel = node1.channel("node1")
    channel.send({"op": "resume", "job": "4.vm", "run_count": 1, "after_seq": 2})
    assert node1.read_until(channel, "release") == first[2:]
    for job, run_count in (("5.vm", 1), ("4.vm", 2)):
        channel.send({"op": "resume", "job": job, "run_count": run_count, "after_seq": 0})
        reply = channel.receive() or {}
        assert reply.get("ok") is False and reply.get("code") == 15001


def test_new_run_replaces_a_finished_one(node1: MomRig) -> None:
    """A requeued job starts again with run_count 2 on the same mom: the old run is cleaned."""
    node1.run("node1", node1.spec("6.vm", "exit 1\n"))
    events = node1.run("node1", node1.spec("6.vm", "exit 2\n", run_count=2))
    assert events[1]["status"] == 2 and events[1]["run_count"] == 2
    assert [e["seq"] for e in events] == [1, 2, 3]
