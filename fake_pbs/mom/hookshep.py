"""Mom hook events run under a detached hook shepherd that outlives a mom crash.

DESIGN.md "Process model": every prologue/epilogue-like hook run runs under a small detached
shepherd that records its start and its result durably.  For an event of :data:`SHEPHERDED` the
mom writes ``hook_<event>.req.json`` in the job's directory and starts
``python3 -m fake_pbs.mom.hookshep <request>`` in its own session (a sister mom does the same
for its epilogue and end hooks).  The shepherd records
``hook_<event>.start.json`` {pid, ticks}, runs the event's hooks (the hooks runtime enforces each
hook's ``alarm`` in the shepherd, so an alarm expires even while no mom runs), writes the hook
log lines straight to the mom's log, and records the :class:`HookResult` in
``hook_<event>.json`` atomically.  The mom waits for that record, not for a child pid.

A restarted mom asking for the same event of the same run gets the recorded result (the hooks
do not run again), or waits for the live shepherd; a shepherd gone without a result (a host
crash) is a hook error.  Records live in the job directory, which a new run starts afresh.
"""
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from fake_pbs.mom import hookpoints
from fake_pbs.mom.durable import UntrustedRecord, read_json, write_json
from fake_pbs.mom.procs import same_process_alive, start_ticks

SHEPHERDED = frozenset({"execjob_prologue", "execjob_launch", "execjob_epilogue",
                        "execjob_end"})
POLL_SECONDS = 0.05
SLACK_SECONDS = 60.0   # beyond the sum of the hooks' alarms: the shepherd itself is stuck
LOST_MESSAGE = "hook shepherd ended without a result"


def record_paths(jobdir: Path, event: str) -> Tuple[Path, Path, Path]:
    """(request, start, result) records of ``event`` in ``jobdir``."""
    return (jobdir / ("hook_%s.req.json" % event), jobdir / ("hook_%s.start.json" % event),
            jobdir / ("hook_%s.json" % event))


def in_progress(jobdir: Path, event: str) -> bool:
    """True when a run of ``event`` started here (finished or not): the flow had reached it."""
    _, start, result = record_paths(jobdir, event)
    return start.exists() or result.exists()


def _to_record(result: hookpoints.HookResult) -> Dict[str, Any]:
    return dict(result._asdict())


def _from_record(record: Dict[str, Any]) -> hookpoints.HookResult:
    fields = {k: v for k, v in record.items() if k in hookpoints.HookResult._fields}
    return hookpoints.HookResult(**fields)


def _lost() -> hookpoints.HookResult:
    return hookpoints.HookResult(accept=False, message=LOST_MESSAGE, error=True)


def _budget(home: Path, event: str) -> float:
    from fake_pbs.hooks import events  # only when a hook event happens
    alarms = [max(1, h.alarm) for h in events.load_hooks(home) if h.has_event(event)]
    return float(sum(alarms)) + SLACK_SECONDS


def _has_hooks(home: Path, event: str) -> bool:
    from fake_pbs.hooks import events
    return any(h.enabled and h.has_event(event) for h in events.load_hooks(home))


def run(site: hookpoints.HookSite, event: str, job: hookpoints.Job, jobdir: Path,
        args: List[Any]) -> hookpoints.HookResult:
    """The result of ``event`` for this run: recorded, awaited, or from a new shepherd."""
    request, start, result = record_paths(jobdir, event)
    record = _own_record(site, result)
    if record is not None:
        return _from_record(record)
    started = _own_record(site, start)
    if started is None:
        if not jobdir.is_dir() or not _has_hooks(site.home, event):
            # Nothing to shepherd (or nowhere to record): the in-process call point, which
            # accepts when no hook is enabled (or is a test's recorder).
            direct: hookpoints.HookResult = getattr(hookpoints, event)(site, job, *args)
            return direct
        write_json(request, {"home": str(site.home), "host": site.host,
                             "primary": site.primary, "event": event, "job": dict(job),
                             "args": list(args)})
        child = _spawn(request)
        started = {"pid": child.pid, "ticks": start_ticks(child.pid)}
        write_json(start, started)
        try:
            child.wait(timeout=_budget(site.home, event))
        except subprocess.TimeoutExpired:
            _kill(child.pid)
            child.wait()
    else:
        _await(started, result, _budget(site.home, event))
    record = _own_record(site, result)
    if record is None:
        final = _lost()
        write_json(result, _to_record(final))
        return final
    return _from_record(record)


def _own_record(site: hookpoints.HookSite, path: Path) -> Optional[Dict[str, Any]]:
    """A record of this mom's hook shepherd, or None; one the shepherd did not write (not
    the mom's own file: durable.untrusted) is logged and taken as absent, so the hooks run
    and their record replaces it."""
    try:
        return read_json(path)
    except UntrustedRecord as exc:
        site.log(0x0020 | 0x0001, "Hook", path.name, "hook record not trusted, ignored: %s"
                 % exc)
        return None


def _spawn(request: Path) -> "subprocess.Popen[bytes]":
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parent.parent.parent)
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen([sys.executable, "-m", "fake_pbs.mom.hookshep", str(request)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd="/", env=env,
                            start_new_session=True)


def _await(started: Dict[str, Any], result: Path, budget: float) -> None:
    """Wait for a shepherd that is not our child (started by a mom that died)."""
    pid, ticks = int(started.get("pid", 0)), started.get("ticks")
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline and not result.exists():
        if not same_process_alive(pid, ticks):
            return
        time.sleep(POLL_SECONDS)
    if not result.exists() and same_process_alive(pid, ticks):
        _kill(pid)


def _kill(pid: int) -> None:
    import signal
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def shepherd(request_path: Path) -> int:
    """The shepherd proper: record the start, run the hooks, record the result."""
    import signal
    from fake_pbs.mom.momlog import MomLog

    for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_IGN)
    request = read_json(request_path)
    if request is None:
        return 1
    event = str(request["event"])
    _, start, result = record_paths(request_path.parent, event)
    write_json(start, {"pid": os.getpid(), "ticks": start_ticks(os.getpid())})
    home, host = Path(str(request["home"])), str(request["host"])
    site = hookpoints.HookSite(home, host, bool(request["primary"]), MomLog(home, host).write)
    outcome: Optional[hookpoints.HookResult] = None
    try:
        outcome = getattr(hookpoints, event)(site, request["job"], *list(request["args"]))
    except Exception as exc:  # a broken hooks runtime is a hook error, never a stuck job
        outcome = hookpoints.HookResult(accept=False, message="hook shepherd: %s" % exc,
                                        error=True)
    write_json(result, _to_record(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(shepherd(Path(sys.argv[1])))
