"""A job's TM tasks on one host: the processes ``pbsdsh`` and ``pbs_tmrsh`` start (PBS's
tm_spawn), each under its own detached shepherd as the job shell is.

Each task lives in ``jobs/<jobid>/tasks/<n>/`` (``launch.json``, ``shepherd.json``,
``exit.json``: the shepherd's records, fake_pbs/mom/shepherd.py), runs as the job's owner in a
session of its own (PBS's mom makes every task a session leader too) and belongs to the job:
the mom signals every task's session when it signals or ends the job (:func:`signal_all`), and
their CPU time is added to the job's ``resources_used.cput`` (:func:`usage`).  A session
``pbs_attach`` joined to the job (PBS's tm_attach) is a task with ``attached.json`` {pid, sid}
instead of a shepherd: killed the same way, its CPU time sampled (:func:`note_attached_usage`).
"""
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from fake_pbs.mom import launcher
from fake_pbs.mom.durable import read_json, write_json
from fake_pbs.mom.procs import session_usage, signal_session

TASKS = "tasks"
START_TIMEOUT = 30.0
WAIT_POLL = 0.05
FINISH_WAIT = 2.0  # how long the job's end waits for killed tasks' exit records
# PBS numbers a job's tasks per host from TM_INIT_TASK (1): task 1 on the primary is the job
# shell, so the first spawned task there is 00000002 (transcripts D01, D08).
FIRST_TASK = 1

_LOCK = threading.Lock()


def tasks_dir(jobdir: Path) -> Path:
    return jobdir / TASKS


def _task_dirs(jobdir: Path) -> List[Path]:
    try:
        names = os.listdir(str(tasks_dir(jobdir)))
    except OSError:
        return []
    return [tasks_dir(jobdir) / name for name in sorted(names) if name.isdigit()]


def next_task_id(jobdir: Path, primary: bool) -> int:
    """The next task number on this host (the job shell is task 1 on the primary)."""
    used = [int(path.name) for path in _task_dirs(jobdir)]
    return max(used + [FIRST_TASK if primary else FIRST_TASK - 1]) + 1


def find_program(argv0: str, path: str) -> str:
    """``argv0`` looked up on the task's PATH as execvp would; unchanged when not found (the
    exec then fails and the task ends with 254, as PBS's does: transcript D04)."""
    if "/" in argv0:
        return argv0
    for directory in path.split(":"):
        candidate = os.path.join(directory or ".", argv0)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return argv0


def start(jobdir: Path, jobs_dir: str, launch: Dict[str, Any], primary: bool) -> Dict[str, Any]:
    """Start one task described by ``launch`` (a shepherd launch record without ``jobid``'s
    task fields); returns {task, pid}.  Raises OSError when it could not start."""
    with _LOCK:
        task = next_task_id(jobdir, primary)
        taskdir = tasks_dir(jobdir) / ("%08d" % task)
        taskdir.mkdir(parents=True, exist_ok=False)
    env = dict(launch["env"])
    env["PBS_TASKNUM"] = "%08X" % task
    launch = dict(launch, env=env, mom_socket="")
    program = str(launch.get("progname") or launch["argv"][0])
    launch["progname"] = find_program(program, env.get("PATH", ""))
    write_json(taskdir / "launch.json", launch)
    report = launcher.shared(jobs_dir).start_shepherd(str(taskdir), START_TIMEOUT)
    record = read_json(taskdir / "shepherd.json")
    if not report.startswith("ok ") and record is None:
        raise OSError("task did not start: %s" % report[4:])
    return {"task": task, "pid": int((record or {}).get("pid", 0))}


def attach(jobdir: Path, pid: int, sid: int, primary: bool) -> int:
    """Make session ``sid`` (of process ``pid``) a task of the job here; its task number."""
    with _LOCK:
        task = next_task_id(jobdir, primary)
        taskdir = tasks_dir(jobdir) / ("%08d" % task)
        taskdir.mkdir(parents=True, exist_ok=False)
        write_json(taskdir / "attached.json", {"pid": pid, "sid": sid})
    return task


def sessions(jobdir: Path) -> List[int]:
    """The session of each task of the job here (a spawned task leads its own)."""
    found = []
    for taskdir in _task_dirs(jobdir):
        sid = _session(taskdir)
        if sid > 0:
            found.append(sid)
    return found


def _session(taskdir: Path) -> int:
    attached = read_json(taskdir / "attached.json")
    if attached is not None:
        return int(attached.get("sid", 0))
    return int((read_json(taskdir / "shepherd.json") or {}).get("pid", 0))


def note_attached_usage(jobdir: Path) -> None:
    """Record the CPU time each attached session has used so far (``usage.json``, the most
    seen): its processes are not the mom's children, so their usage is lost once they end.
    Done at the primary's polls of its job, before each signal to the job's tasks and at the
    job's end."""
    for taskdir in _task_dirs(jobdir):
        attached = read_json(taskdir / "attached.json")
        if attached is None or (taskdir / "exit.json").exists():
            continue
        sid = int(attached.get("sid", 0))
        sample = session_usage(sid) if sid > 0 else {}
        seen = read_json(taskdir / "usage.json") or {}
        cput = max(float(sample.get("cput", 0)), float(seen.get("cput", 0.0)))
        rss = max(int(sample.get("rss_kb", 0)), int(seen.get("maxrss_kb", 0)))
        if seen != {"cput": cput, "maxrss_kb": rss}:
            write_json(taskdir / "usage.json", {"cput": cput, "maxrss_kb": rss})


def _close_attached(jobdir: Path) -> None:
    """Give each attached task without an exit record one, with the CPU time it was seen to
    use (the job's end: its session is killed next)."""
    note_attached_usage(jobdir)
    for taskdir in _task_dirs(jobdir):
        if (taskdir / "attached.json").exists() and not (taskdir / "exit.json").exists():
            used = read_json(taskdir / "usage.json") or {}
            write_json(taskdir / "exit.json", {"status": 0, "cput": used.get("cput", 0.0),
                                               "maxrss_kb": used.get("maxrss_kb", 0)})


def wait(jobdir: Path, task: int, timeout: float) -> Optional[int]:
    """The task's exit status once it has ended (PBS's obit), or None after ``timeout``."""
    taskdir = tasks_dir(jobdir) / ("%08d" % int(task))
    if not taskdir.is_dir():
        raise KeyError("no task %d" % task)
    deadline = time.monotonic() + max(0.0, timeout)
    while True:
        record = read_json(taskdir / "exit.json")
        if record is not None:
            return int(record["status"])
        if not taskdir.is_dir():
            raise KeyError("no task %d" % task)
        if time.monotonic() >= deadline:
            return None
        time.sleep(WAIT_POLL)


def signal_all(jobdir: Path, signum: int) -> int:
    """``signum`` to the session of every task of the job on this host.  A task whose leader
    has ended may have left members of its session (Open MPI's orted outlives the shell that
    started it on a SIGTERM): the session is signalled all the same."""
    note_attached_usage(jobdir)
    return sum(signal_session(sid, signum) for sid in sessions(jobdir))


def signal_task(jobdir: Path, task: int, signum: int) -> int:
    """``signum`` to the session of one task (PBS's tm_kill); KeyError if there is no such."""
    taskdir = tasks_dir(jobdir) / ("%08d" % int(task))
    if not taskdir.is_dir():
        raise KeyError("no task %d" % task)
    sid = _session(taskdir)
    return signal_session(sid, signum) if sid > 0 else 0


def kill_all(jobdir: Path) -> int:
    """End every task of the job on this host (PBS's kill_job: nothing outlives the job)."""
    return signal_all(jobdir, int(signal.SIGKILL))


def finish_all(jobdir: Path, wait_seconds: float = FINISH_WAIT) -> float:
    """End every task of the job on this host and return their CPU seconds, once each has
    its exit record (or after ``wait_seconds``: a task that does not die is not counted)."""
    _close_attached(jobdir)
    if kill_all(jobdir) == 0 and all((d / "exit.json").exists() for d in _task_dirs(jobdir)):
        return usage(jobdir)
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        if all((d / "exit.json").exists() for d in _task_dirs(jobdir)):
            break
        time.sleep(WAIT_POLL)
    return usage(jobdir)


def note_sister(jobdir: Path, host: str) -> None:
    """Remember on the primary that a task of the job ran on sister ``host``."""
    (tasks_dir(jobdir)).mkdir(parents=True, exist_ok=True)
    (tasks_dir(jobdir) / ("on-" + host)).touch()


def sisters_used(jobdir: Path) -> List[str]:
    try:
        names = os.listdir(str(tasks_dir(jobdir)))
    except OSError:
        return []
    return sorted(name[3:] for name in names if name.startswith("on-"))


def usage(jobdir: Path) -> float:
    """CPU seconds of the job's ended tasks on this host."""
    total = 0.0
    for taskdir in _task_dirs(jobdir):
        total += float((read_json(taskdir / "exit.json") or {}).get("cput", 0.0))
    return total


def memory_kb(jobdir: Path) -> int:
    """The largest resident size of the job's ended tasks on this host (kB)."""
    return max([int((read_json(taskdir / "exit.json") or {}).get("maxrss_kb", 0))
                for taskdir in _task_dirs(jobdir)] + [0])
