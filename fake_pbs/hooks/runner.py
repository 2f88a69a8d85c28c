"""Run one hook script in its own python3 process, with its ``alarm`` enforced.

:func:`run_hook` writes the script, its config and the event description to a private work
directory, starts ``pylib/pbs_python.py`` (which imports the ``pbs`` module) and returns a
:class:`HookRun`: ``accept``, ``reject`` (with its message), ``exception`` or ``alarm``, plus the
job actions (``rerun``/``delete``) and attribute changes the hook requested.  Messages the hook
logs go straight to the daemon's log file as they happen, so they survive an alarm kill.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

from fake_pbs.hooks import runas
from fake_pbs.model.hooks import EVENT_BITS, Hook

CHILD = Path(__file__).resolve().parent / "pylib" / "pbs_python.py"
EXIT_EXCEPTION = 254
EXIT_ALARM = -3  # what PBS's mom logs for a hook killed by its alarm


class HookRun:
    """The outcome of one hook run."""

    def __init__(self, result: str, message: str = "", exit_status: int = 0,
                 outcome: Optional[Dict[str, Any]] = None) -> None:
        data = outcome or {}
        self.result = result  # accept | reject | exception | alarm
        self.message = message
        self.exit_status = exit_status
        self.rerun = bool(data.get("rerun"))
        self.delete = bool(data.get("delete"))
        self.job_changes: Dict[str, str] = dict(data.get("job_changes") or {})
        self.vnode_changes: Dict[str, Dict[str, str]] = dict(data.get("vnode_changes") or {})
        launch = data.get("launch")
        self.launch: Optional[Dict[str, Any]] = dict(launch) if launch else None
        self.ignored: List[str] = []  # attributes an owner-run hook may not set (runas.py)

    def __repr__(self) -> str:
        return "HookRun(%r, %r)" % (self.result, self.message)


def run_hook(hook: Hook, event: str, context: Dict[str, Any],
             work_root: Optional[Path] = None) -> HookRun:
    """Run ``hook`` for ``event``.

    ``context`` carries what the ``pbs`` module shows: ``job`` (attribute dict with ``id``),
    ``vnode_list``, ``requestor``, ``requestor_host``, ``in_ms_mom``, ``local_node``,
    ``server`` ({name, attrs}), ``launch`` ({progname, argv, env}), ``side`` ("mom"/"server"),
    ``daemon`` (name on log lines), ``log_file``, ``compile_eventtype``, ``script_path``.
    """
    if work_root is not None:
        work_root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="hook_%s_%s_" % (event, hook.name),
                                 dir=str(work_root) if work_root else None))
    try:
        return _run_in(work, hook, event, context)
    finally:
        shutil.rmtree(str(work), ignore_errors=True)


def _run_in(work: Path, hook: Hook, event: str, context: Dict[str, Any]) -> HookRun:
    script = work / (hook.name + ".PY")
    script.write_text(hook.script or "", encoding="utf-8", errors="surrogateescape")
    spec: Dict[str, Any] = dict(context)
    spec.update({"hook_name": hook.name, "event_name": event,
                 "event_type": EVENT_BITS.get(event, 0), "script_file": str(script),
                 "freq": hook.freq})
    who = runas.for_hook(hook, event, context)
    shared = Path(str(context["hooks_dir"])) if context.get("hooks_dir") else None
    # The daemon's own copies (PBS's NAME.PY / NAME.CF) when it keeps them: the compile line
    # and pbs.hook_config_filename name those (m08b, m11k); else the run's work copies.
    spec.setdefault("script_path", str(shared / (hook.name + ".PY") if shared else script))
    if hook.config is not None:
        config = work / (hook.name + ".CF")
        # A hook run as the job's owner gets its own copy, as PBS's copy_file_and_set_owner.
        if who is None and shared is not None and (shared / (hook.name + ".CF")).is_file():
            config = shared / (hook.name + ".CF")
        else:
            config.write_text(hook.config, encoding="utf-8", errors="surrogateescape")
        spec["config_file"] = str(config)
    in_path, out_path = work / "hook.in", work / "hook.out"
    log_fd = -1
    if who is not None and spec.get("log_file"):
        # The owner may not open the daemon's log: it inherits it open, for appending.
        log_fd = os.open(str(spec["log_file"]), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        spec["log_fd"] = log_fd
    in_path.write_text(json.dumps(spec), encoding="utf-8", errors="surrogateescape")
    try:
        child = _spawn(work, who, in_path, out_path, log_fd)
        try:
            status = child.wait(timeout=max(1, hook.alarm))
        except subprocess.TimeoutExpired:
            _kill_group(child)
            return HookRun("alarm", exit_status=EXIT_ALARM)
    finally:
        if log_fd >= 0:
            os.close(log_fd)
    try:
        outcome = json.loads(runas.read_result(out_path, who))
        if not isinstance(outcome, dict):
            raise ValueError("not an object")
    except (OSError, ValueError):
        return HookRun("exception", "hook process ended without a result", status)
    ignored = runas.restrict(outcome) if who is not None else []
    result = str(outcome.get("result") or "exception")
    run = HookRun(result, str(outcome.get("message") or ""), status, outcome)
    run.ignored = ignored
    return run


def _spawn(work: Path, who: Optional[runas.RunAs], in_path: Path, out_path: Path,
           log_fd: int) -> "subprocess.Popen[bytes]":
    if who is None:
        return subprocess.Popen([sys.executable, "-E", "-s", str(CHILD), str(in_path),
                                 str(out_path)], cwd=str(work), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
    child = runas.prepare(work, who)
    return subprocess.Popen([runas.interpreter(sys.executable), "-E", "-s", str(child),
                             str(in_path), str(out_path)], cwd=str(work),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env=runas.environment(who), user=who.uid, group=who.gid,
                            extra_groups=[], pass_fds=(log_fd,) if log_fd >= 0 else ())


def _kill_group(child: "subprocess.Popen[bytes]") -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except OSError:
        child.kill()
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
