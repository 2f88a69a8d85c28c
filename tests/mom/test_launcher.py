"""The mom's shepherd launcher (fake_pbs/mom/launcher.py): job shells start as forks of one
pre-imported process, yet stay detached from it and from the mom (DESIGN "Process model":
a shepherd outlives a mom crash), and the launcher itself never outlives its mom."""
import os
import signal
import time
from typing import List, Tuple

from fake_pbs.mom.durable import read_json
from fake_pbs.mom.procs import same_process_alive

from .momrig import MomRig, event, kinds


def _state_and_parent(pid: str) -> Tuple[str, int]:
    with open("/proc/%s/stat" % pid, "rb") as handle:
        fields = handle.read().rsplit(b")", 1)[1].split()
    return fields[0].decode(), int(fields[1])


def _launchers(rig: MomRig) -> List[int]:
    """Pids of the live launchers serving this rig's home: its command line, and a mom as its
    parent (the shepherds it forked carry the same command line, but init is their parent)."""
    moms = {proc.pid for proc in rig.moms.values()}
    marker = (str(rig.home) + "/").encode()
    found: List[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as handle:
                words = handle.read().split(b"\0")
            state, parent = _state_and_parent(name)
        except OSError:
            continue
        if (b"--serve" in words and any(w.startswith(marker) for w in words)
                and parent in moms and state != "Z"):
            found.append(int(name))
    return found


def _running(pid: int) -> bool:
    try:
        return _state_and_parent(str(pid))[0] != "Z"
    except OSError:
        return False


def _wait_gone(pids: List[int], seconds: float = 10.0) -> bool:
    """True once none of ``pids`` runs (a zombie waiting for its parent counts as gone)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_running(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def test_jobs_start_through_one_launcher_and_exit_normally(node1: MomRig) -> None:
    """Two jobs: start/finish/release each (docs/internals.md §5) with the exit status of the
    shell, both started by the same launcher, which is not the shepherd of either job."""
    first = node1.run("node1", node1.spec("1.vm", "exit 3\n"))
    launchers = _launchers(node1)
    second = node1.run("node1", node1.spec("2.vm", "exit 4\n"))
    assert kinds(first) == ["start", "finish", "release"]
    assert event(first, "finish")["status"] == 3
    assert event(second, "finish")["status"] == 4
    assert len(launchers) == 1 and _launchers(node1) == launchers


def test_launcher_ends_with_its_mom_and_the_shepherd_lives_on(node1: MomRig) -> None:
    """kill -9 of the mom: the launcher sees EOF and exits, the running job's shepherd and
    shell do not (they were double-forked into their own session)."""
    flag = node1.user_home / "flag"
    channel = node1.submit("node1", node1.spec(
        "3.vm", "while [ ! -f %s ]; do sleep 0.05; done\nexit 0\n" % flag))
    node1.read_until(channel, "start")
    launchers = _launchers(node1)
    assert len(launchers) == 1
    record = read_json(node1.job_dir("node1", "3.vm") / "shepherd.json") or {}
    assert int(record["shepherd_pid"]) not in launchers
    node1.kill9("node1")
    assert _wait_gone(launchers), "the launcher outlived its mom"
    assert same_process_alive(int(record["shepherd_pid"]), record["shepherd_ticks"])
    flag.touch()


def test_a_killed_launcher_is_replaced(node1: MomRig) -> None:
    """The launcher dies between two jobs: the next job still starts (a new launcher)."""
    node1.run("node1", node1.spec("4.vm", "exit 0\n"))
    (old,) = _launchers(node1)
    os.kill(old, signal.SIGKILL)
    assert _wait_gone([old])
    events = node1.run("node1", node1.spec("5.vm", "exit 7\n"))
    assert event(events, "finish")["status"] == 7
    assert len(_launchers(node1)) == 1 and _launchers(node1) != [old]


def test_empty_session_is_recorded_and_leftovers_are_still_killed(node1: MomRig) -> None:
    """PBS's kill_job at the end of a job: nothing of its session outlives it.  A job that
    leaves nothing behind is recorded as such by its (subreaper) shepherd; one that leaves a
    background process in its session has it killed by the mom."""
    node1.run("node1", node1.spec("6.vm", "exit 0\n"))
    plain = read_json(node1.job_dir("node1", "6.vm") / "exit.json") or {}
    assert plain.get("session_empty") is True
    pidfile = node1.user_home / "bg.pid"
    node1.run("node1", node1.spec("7.vm", "sleep 300 &\necho $! > %s\nexit 0\n" % pidfile))
    left = read_json(node1.job_dir("node1", "7.vm") / "exit.json") or {}
    assert "session_empty" not in left
    assert _wait_gone([int(pidfile.read_text())]), "a background process outlived its job"


def test_phased_stop_ends_the_launcher_before_the_mom_exits(node1: MomRig) -> None:
    """SIGTERM (fake-pbs stop's phased stop): once the mom has exited, its launcher is gone
    too, so a stop leaves no process of the mom behind (a running job's shepherd stays)."""
    node1.run("node1", node1.spec("8.vm", "exit 0\n"))
    launchers = _launchers(node1)
    assert len(launchers) == 1
    proc = node1.moms.pop("node1")
    proc.terminate()
    proc.wait(timeout=30)
    assert not any(_running(pid) for pid in launchers)
