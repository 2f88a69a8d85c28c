"""Run every hook of one event in order and log what PBS's daemons log (reference §6.3; golden
f04, f13, f23 for moms, m01e/m09i for the server).

Hooks run in ascending ``order`` (ties in creation order); the first reject, exception or alarm
stops the event.  Actions (``rerun``/``delete``) and attribute changes are kept even from a
hook that rejects, as PBS sends them to the server in every case.
"""
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from fake_pbs.hooks.runner import HookRun, run_hook
from fake_pbs.mom.durable import read_bytes
from fake_pbs.model.errors import PBSE_INTERNAL, message_for
from fake_pbs.model.hooks import Hook, ordered_hooks

Log = Callable[[int, str, str, str], None]  # (event type, class, object, message)

DEBUG3 = 0x0400
DEBUG2 = 0x0100
DEBUG = 0x0080
JOB = 0x0008
ERROR = 0x0001


class EventResult:
    """What the hooks of one event decided."""

    def __init__(self) -> None:
        self.ran = 0
        self.result = "accept"          # accept | reject | exception | alarm
        self.hook_name = ""
        self.message = ""               # the text a client is given (qsub, qrun, comment)
        self.reject_text = ""           # the hook's own reject message ("" when none)
        self.rerun = False
        self.delete = False
        self.job_changes: Dict[str, str] = {}
        self.vnode_changes: Dict[str, Dict[str, str]] = {}
        self.launch: Optional[Dict[str, Any]] = None  # execjob_launch: progname, argv, env

    @property
    def accepted(self) -> bool:
        return self.result == "accept"


_HOOKS_FILE = ("server_priv", "hooks", "hooks.json")


def hooks_file(home: Path) -> Path:
    """Where the server publishes hook definitions for moms (PBS copies .HK/.PY/.CF files)."""
    return home.joinpath(*_HOOKS_FILE)


def publish_hooks(home: Path, hooks: List[Hook]) -> None:
    """Write every hook definition atomically for the moms to read."""
    target = hooks_file(home)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as stream:
        json.dump([h.to_dict() for h in hooks], stream)
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(tmp, target)


def load_hooks(home: Path) -> List[Hook]:
    # Plain os calls (read_bytes): a mom looks for hooks ~9 times a job, mostly finding no
    # file, which cost ~6 us each through Path joins and open()'s error path, ~1.5 us this way.
    try:
        raw = read_bytes(os.path.join(os.fspath(home), *_HOOKS_FILE))
        if raw is None:
            return []
        data = json.loads(raw.decode("utf-8", "surrogateescape"))
    except (OSError, ValueError):
        return []
    return [Hook.from_dict(item) for item in data]


def daily_log_file(directory: Path, now: Optional[float] = None) -> str:
    stamp = time.strftime("%Y%m%d", time.localtime(time.time() if now is None else now))
    directory.mkdir(parents=True, exist_ok=True)
    return str(directory / stamp)


def run_event(hooks: List[Hook], event: str, context: Dict[str, Any], log: Log, side: str,
              jobid: str = "", work_root: Optional[Path] = None,
              compile_log: Optional[Callable[[Hook], bool]] = None) -> EventResult:
    """Run the enabled hooks of ``event``; ``side`` is ``mom`` or ``server`` (log shapes).

    ``compile_log(hook)`` says whether this run compiles the script (and logs so); by default
    every run does, as a mom's pbs_python does."""
    outcome = EventResult()
    for hook in ordered_hooks(hooks, event):
        if not hook.script:
            log(DEBUG3, "Hook", hook.name, "Hook has no script content. Skipping hook.")
            continue
        outcome.ran += 1
        if side == "mom":
            log(DEBUG3, "Hook", hook.name, "started")
        compiles = compile_log(hook) if compile_log is not None else True
        run = run_hook(hook, event, dict(context, side=side, compile_log=compiles), work_root)
        _merge(outcome, run)
        if side == "mom":
            _log_mom(log, hook, event, run, jobid)
        else:
            _log_server(log, hook, event, run)
        if run.result != "accept":
            outcome.result = run.result
            outcome.hook_name = hook.name
            outcome.reject_text = run.message if run.result == "reject" else ""
            outcome.message = _client_message(hook, event, run)
            break
    return outcome


def _merge(outcome: EventResult, run: HookRun) -> None:
    outcome.rerun = outcome.rerun or run.rerun
    outcome.delete = outcome.delete or run.delete
    outcome.job_changes.update(run.job_changes)
    if run.launch is not None:
        outcome.launch = run.launch
    for name, changes in run.vnode_changes.items():
        if changes:
            outcome.vnode_changes.setdefault(name, {}).update(changes)


def _client_message(hook: Hook, event: str, run: HookRun) -> str:
    if run.result == "reject":
        return run.message or "%s request rejected by '%s'" % (event, hook.name)
    if run.result == "alarm":
        return "request rejected as filter hook '%s' got an alarm call. Please inform Admin" \
            % hook.name
    return "request rejected as filter hook '%s' encountered an exception. Please inform " \
        "Admin" % hook.name


def _log_mom(log: Log, hook: Hook, event: str, run: HookRun, jobid: str) -> None:
    python = sys.executable
    for name in run.ignored:
        log(ERROR, "Svr", "pbs_mom", "get_hook_results, object '%s': ignoring setting "
            "attribute %s, executing hook has user=pbsuser" % (jobid, name))
    if run.result == "alarm":
        log(DEBUG2, "Hook", "catch_hook_alarm", "alarm call received, interrupting hook "
            "execution.")
        log(DEBUG, "Hook", hook.name, "prematurely completed %s.PY, exit=-3" % hook.name)
    if run.result in ("alarm", "exception"):
        log(ERROR, "Svr", "pbs_mom", "run_hook, execv of %s resulted in nonzero exit status=%d"
            % (python, run.exit_status))
    log(DEBUG3, "Hook", hook.name, "finished")
    target_cls, target = ("Job", jobid) if jobid else ("Hook", hook.name)
    target_type = JOB if jobid else DEBUG2
    if run.result == "reject":
        log(DEBUG2, "Hook", hook.name, "%s request rejected by '%s'" % (event, hook.name))
        if run.message:
            log(target_type, target_cls, target, run.message)
    elif run.result == "exception":
        log(target_type, target_cls, target,
            "%s hook '%s' encountered an exception, request rejected" % (event, hook.name))
    elif run.result == "alarm":
        log(target_type, target_cls, target,
            "alarm call while running %s hook '%s', request rejected" % (event, hook.name))


def _log_server(log: Log, hook: Hook, event: str, run: HookRun) -> None:
    if run.result == "alarm":
        log(DEBUG2, "Hook", "catch_hook_alarm", "alarm call received, interrupting hook "
            "execution.")
        for detail in ("<class 'KeyboardInterrupt'>", "<could not figure out the exception "
                       "value>"):
            log(ERROR, "Svr", "", "%s (%d) in Python script received a KeyboardInterrupt, %s"
                % (message_for(PBSE_INTERNAL), PBSE_INTERNAL, detail))
        log(DEBUG2, "Hook", hook.name, "alarm call while running %s hook '%s', request "
            "rejected" % (event, hook.name))
