"""Where the server runs its hook events: ``current()`` runs the site's enabled hooks of each.

The server calls the methods with its model lock held; a method rejects an event by raising
:class:`fake_pbs.model.errors.PbsError` (code ``PBSE_HOOKERROR`` and the text the command must
print), and may modify ``job`` in place (attribute strings, as ``qstat -f`` shows them).

Call points:

* ``queuejob(server, job)``   after validation and defaults, before the job is stored;
* ``modifyjob(server, job, changes)`` before a qalter is applied (``changes`` may be edited);
* ``movejob(server, job, dest)`` before a qmove;
* ``runjob(server, job)``     before the job is sent to its mom; a ``PbsError`` keeps it queued
  and its text becomes ``Not Running: PBS Error: <text>`` (qrun prints ``Failed to run: ...``);
* ``jobobit(server, job)``    when the job ended (Exit_status set), before it goes to history;
* ``periodic(server, now)``   once a second from the server's timer thread.

``server`` is the :class:`fake_pbs.server.app.ServerApp` (state, logs, config).
"""
from typing import Any, Dict, List, Optional, Set

from fake_pbs.model.errors import PBSE_HOOKERROR, PbsError
from fake_pbs.model.hooks import Hook
from fake_pbs.server import hookfiles

Job = Dict[str, Any]


def hooks_of(state: Any) -> List[Hook]:
    """The hooks in the server state, in creation order."""
    records = state.objects.get("hook", {})
    ordered = sorted(records.values(), key=lambda r: int(r.get("_order", 0)))
    return [Hook.from_dict(r) for r in ordered]


class SiteHooks:
    """Server hook events run through the hooks runtime (fake_pbs.hooks), when an enabled hook
    has the event.  Rejections raise ``PbsError(PBSE_HOOKERROR, text)``."""

    def __init__(self) -> None:
        self._last_periodic: Dict[str, float] = {}
        # Hooks whose script this server process has compiled: PBS compiles a server hook's
        # NAME.PY at its first run after each import and keeps the code object, so only that
        # run logs "Compiling script file" (m03f, m09i, m11k); periodic hooks run in a forked
        # child and compile every time (m08b).
        self._compiled: Set[str] = set()

    def forget_compiled(self, name: Optional[str]) -> None:
        """The hook's script was imported again or the hook deleted (every hook: ``None``, a
        reset): compile at its next run."""
        if name is None:
            self._compiled.clear()
        else:
            self._compiled.discard(name)

    def _first_compile(self, hook: Hook) -> bool:
        if hook.name in self._compiled:
            return False
        self._compiled.add(hook.name)
        return True

    def _run(self, server: Any, event: str, job: Optional[Job],
             resv: Optional[Job] = None) -> Any:
        from fake_pbs.hooks import events  # imported only when hooks exist

        hooks = hooks_of(server.state)
        if not any(h.enabled and h.has_event(event) for h in hooks):
            return None
        daemon = "Server@%s" % server.server_name

        def log(eventtype: int, cls: str, obj: str, msg: str) -> None:
            server.log.write(eventtype, cls, obj or daemon, msg)

        attrs = None
        if job is not None:
            attrs = {k: str(v) for k, v in job.items() if not str(k).startswith("_")}
            attrs.setdefault("id", str(job.get("id", job.get("_id", ""))))
        context = {"job": attrs, "resv": _public(resv), "requestor": "Server",
                   "requestor_host": server.host,
                   "daemon": daemon, "local_node": server.host,
                   "server": {"name": server.server_name, "attrs": dict(server.state.server)},
                   "log_file": events.daily_log_file(server.home / "server_logs"),
                   "compile_eventtype": 0x0086, "hooks_dir": str(hookfiles.hooks_dir(server.home))}
        outcome = events.run_event(hooks, event, context, log, "server",
                                   work_root=server.home / "server_priv" / "hooks" / "tmp",
                                   compile_log=self._first_compile)
        target = job if job is not None else resv
        if target is not None:
            for name, value in outcome.job_changes.items():
                target[name] = value
        return outcome

    def _filter(self, server: Any, event: str, job: Optional[Job],
                resv: Optional[Job] = None) -> None:
        outcome = self._run(server, event, job, resv)
        if outcome is not None and not outcome.accepted:
            raise PbsError(PBSE_HOOKERROR, outcome.message)

    def queuejob(self, server: Any, job: Job) -> None:
        self._filter(server, "queuejob", job)

    def modifyjob(self, server: Any, job: Job, changes: Dict[str, str]) -> None:
        self._filter(server, "modifyjob", job)

    def movejob(self, server: Any, job: Job, dest: str) -> None:
        self._filter(server, "movejob", job)

    def runjob(self, server: Any, job: Job) -> None:
        self._filter(server, "runjob", job)

    def jobobit(self, server: Any, job: Job) -> None:
        self._run(server, "jobobit", job)

    def resv_event(self, server: Any, event: str, resv: Job) -> None:
        """``resvsub`` (a filter: PbsError when rejected), ``resv_confirm``, ``resv_begin``,
        ``resv_end``: ``pbs.event().resv`` is the reservation (its changes are applied)."""
        if event == "resvsub":
            self._filter(server, event, None, resv)
        else:
            self._run(server, event, None, resv)

    def periodic(self, server: Any, now: float) -> None:
        from fake_pbs.hooks import events

        for hook in hooks_of(server.state):
            if not (hook.enabled and hook.has_event("periodic") and hook.script):
                continue
            last = self._last_periodic.setdefault(hook.name, now)
            if now - last < hook.freq:
                continue
            self._last_periodic[hook.name] = now
            daemon = "Server@%s" % server.server_name
            context = {"job": None, "requestor": "Server", "requestor_host": server.host,
                       "daemon": daemon, "local_node": server.host,
                       "log_file": events.daily_log_file(server.home / "server_logs"),
                       "compile_eventtype": 0x0086,
                       "hooks_dir": str(hookfiles.hooks_dir(server.home))}
            events.run_event([hook], "periodic", context,
                             lambda t, c, o, m: server.log.write(t, c, o or daemon, m),
                             "server", work_root=server.home / "server_priv" / "hooks" / "tmp")


def _public(resv: Optional[Job]) -> Optional[Dict[str, str]]:
    """A reservation as pbs.event().resv sees it: its attributes and ``resvid``."""
    if resv is None:
        return None
    attrs = {k: str(v) for k, v in resv.items() if not str(k).startswith("_")}
    attrs["resvid"] = str(resv.get("_id", ""))
    return attrs


# -- what mom hooks ask of the server (the ``update`` exec event, docs/internals.md §5) -----------
JOB_EXEC_FAILHOOK_RERUN = -16
JOB_EXEC_FAILHOOK_DELETE = -17
JOB_EXEC_HOOK_RERUN = -18
JOB_EXEC_HOOK_DELETE = -19
_LOG_SYSTEM = 0x0002
# Attributes only the server sets: a mom hook's change to them is not applied.
_SERVER_OWNED = frozenset(("id", "job_state", "substate", "exec_host", "exec_vnode",
                           "run_count", "queue", "Job_Owner", "ctime", "qtime", "mtime",
                           "etime", "stime", "obittime", "session_id", "Exit_status"))


def mom_update(server: Any, job: Job, event: Dict[str, Any]) -> None:
    """Apply a mom hook's requests: attribute changes, then ``job.rerun()``/``job.delete()``.

    PBS's server records the action as the job's Exit_status (-18 rerun, -19 delete; delete wins)
    and logs ``hook request rerun|delete <jobid>`` (node_manager.c); the job's obit then uses it
    (see :func:`obit_status`).  Reference §6.2-6.4.
    """
    jobid = str(job["_id"])
    for name, value in dict(event.get("attrs") or {}).items():
        if not str(name).startswith("_") and name not in _SERVER_OWNED:
            job[str(name)] = str(value)
    host = str(job.get("exec_host", "")).split("/")[0].split("+")[0] or server.host
    if event.get("delete"):
        job["_hook_action"] = JOB_EXEC_HOOK_DELETE
        server.log.write(_LOG_SYSTEM, "Node", host, "hook request delete %s" % jobid)
    elif event.get("rerun") and job.get("_hook_action") != JOB_EXEC_HOOK_DELETE:
        job["_hook_action"] = JOB_EXEC_HOOK_RERUN
        server.log.write(_LOG_SYSTEM, "Node", host, "hook request rerun %s" % jobid)
    server.state.save_job(jobid)


def obit_status(job: Job, mom_status: int) -> int:
    """The job's exit status at obit: a hook action (-18/-19) wins over the mom's code unless
    the mom reported a hook rejection itself (-16/-17) (req_jobobit.c)."""
    action = job.pop("_hook_action", None)
    mom_rejected = mom_status in (JOB_EXEC_FAILHOOK_RERUN, JOB_EXEC_FAILHOOK_DELETE)
    if action is not None and not mom_rejected:
        return int(action)
    return mom_status


_current = SiteHooks()


def current() -> SiteHooks:
    """The server's hook call points (one per server process: periodic hooks keep their times)."""
    return _current
