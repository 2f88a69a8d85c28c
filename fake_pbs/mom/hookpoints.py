"""Mom hook events: the call points of the mom, each running the site's enabled hooks.

Every function receives a :class:`HookSite` (where and for whom it runs) and the job object of
the start message (``{"id", "run_count", "attrs", "hosts", "exec_vnode", "uid", "user", ...}``),
plus the event's own arguments, and returns a :class:`HookResult` (``ACCEPT`` when no enabled
hook has the event).

Call points (primary = the job's first host, sister = the others):

==================  =========================================================================
exechost_startup    when a mom starts, after recovering its jobs
execjob_begin       primary: when the start request arrives; sister: on join (reject -> no abort)
execjob_prologue    primary: after every sister joined, before the job shell starts
execjob_launch      primary: just before the shell starts; may change progname, argv, env
execjob_preterm     primary: on ``TermJob`` (qdel) before SIGTERM; reject refuses the delete
execjob_epilogue    every host: after the job shell exited, before the finish event
execjob_end         primary: on ``discard``; sister: on release
execjob_abort       primary: when a job fails to start (before execjob_end); sister: on abort
execjob_attach      the host ``pbs_attach`` asks: before a process's session becomes a task
                    (pbs.event().pid); reject -> TM_EHOOK
==================  =========================================================================

Outcome mapping done by the mom (reference §6.4): prologue reject -> -16 (requeue), with
``delete`` -> -17, exception/alarm -> -22; launch reject -> -17, with ``rerun`` -> -16; begin
reject -> -16 (``delete`` -> -17) with no abort hooks.
"""
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional

Job = Mapping[str, Any]


class HookSite(NamedTuple):
    """Where a hook event runs."""

    home: Path                        # FAKE_PBS_HOME
    host: str                         # this mom's host name
    primary: bool                     # True on the job's primary mom (job.in_ms_mom())
    log: Callable[[int, str, str, str], None]  # (eventtype, class, object, message) to mom log


class HookResult(NamedTuple):
    """What the hooks of one event decided."""

    accept: bool = True
    message: str = ""                 # reject message (logged, and the exception note)
    rerun: bool = False               # a hook called job.rerun()
    delete: bool = False              # a hook called job.delete()
    error: bool = False               # a hook raised or overran its alarm (PBSE_HOOKERROR)
    job_attrs: Optional[Dict[str, str]] = None    # attribute changes to send to the server
    progname: Optional[str] = None    # execjob_launch: replacement program
    argv: Optional[List[str]] = None  # execjob_launch: replacement argv
    env: Optional[Dict[str, str]] = None  # execjob_launch: replacement environment


ACCEPT = HookResult()

_COMPILE_EVENTTYPE = 0x0400  # "Compiling script file" is DEBUG3 in mom logs (f13)


def _job_attrs(job: Job, exit_status: Optional[int]) -> Dict[str, str]:
    attrs = {str(k): str(v) for k, v in dict(job.get("attrs") or {}).items()}
    attrs["id"] = str(job.get("id", ""))
    if job.get("exec_vnode"):
        attrs.setdefault("exec_vnode", str(job["exec_vnode"]))
    if exit_status is not None:
        attrs["Exit_status"] = str(exit_status)
    return attrs


def _vnode_list(job: Job) -> Dict[str, Dict[str, str]]:
    vnodes: Dict[str, Dict[str, str]] = {}
    for host in job.get("hosts") or []:
        name = str(host.get("host", ""))
        entry = vnodes.setdefault(name, {})
        for key in ("ncpus", "mem", "ngpus", "mpiprocs"):
            if key in host and host[key] not in (None, ""):
                entry["resources_assigned.%s" % key] = str(host[key])
    return vnodes


def _run(site: HookSite, event: str, job: Optional[Job], exit_status: Optional[int] = None,
         launch: Optional[Dict[str, Any]] = None, pid: Optional[int] = None) -> HookResult:
    """Run the enabled hooks of ``event`` for ``job`` on this mom (hooks read as published)."""
    from fake_pbs.hooks import events  # imported only when a hook event happens

    hooks = events.load_hooks(site.home)
    if not any(h.enabled and h.has_event(event) for h in hooks):
        return ACCEPT
    priv = site.home / "mom_priv" / site.host / "hooks"
    context: Dict[str, Any] = {
        "job": _job_attrs(job, exit_status) if job is not None else None,
        "vnode_list": _vnode_list(job) if job is not None else {},
        "in_ms_mom": site.primary, "local_node": site.host, "requestor": "pbs_mom",
        "requestor_host": site.host, "daemon": "pbs_python",
        "log_file": events.daily_log_file(site.home / "mom_logs" / site.host),
        "compile_eventtype": _COMPILE_EVENTTYPE, "launch": launch, "pid": pid,
        "hooks_dir": str(priv),  # the compile line names the mom's NAME.PY (m04f, m06d)
        # user = pbsuser hooks of the user events run as the job's owner (hooks/runas.py)
        "job_owner": None if job is None else {
            "uid": int(job.get("uid", 0) or 0), "gid": int(job.get("gid", 0) or 0),
            "user": str(job.get("user", "")), "home": str(job.get("home", "/"))},
    }
    jobid = str(job.get("id", "")) if job is not None else ""
    outcome = events.run_event(hooks, event, context, site.log, "mom", jobid=jobid,
                               work_root=priv / "tmp")
    if outcome.ran == 0:
        return ACCEPT
    launched = outcome.launch or {}
    return HookResult(accept=outcome.accepted,
                      message=outcome.reject_text or (outcome.message
                                                      if not outcome.accepted else ""),
                      rerun=outcome.rerun, delete=outcome.delete,
                      error=outcome.result in ("exception", "alarm"),
                      job_attrs=outcome.job_changes or None,
                      progname=launched.get("progname"), argv=launched.get("argv"),
                      env=launched.get("env"))


def exechost_startup(site: HookSite) -> HookResult:
    return _run(site, "exechost_startup", None)


def execjob_begin(site: HookSite, job: Job) -> HookResult:
    return _run(site, "execjob_begin", job)


def execjob_prologue(site: HookSite, job: Job) -> HookResult:
    return _run(site, "execjob_prologue", job)


def execjob_launch(site: HookSite, job: Job, progname: str, argv: List[str],
                   env: Dict[str, str]) -> HookResult:
    return _run(site, "execjob_launch", job,
                launch={"progname": progname, "argv": list(argv), "env": dict(env)})


def execjob_preterm(site: HookSite, job: Job) -> HookResult:
    return _run(site, "execjob_preterm", job)


def execjob_epilogue(site: HookSite, job: Job, exit_status: int) -> HookResult:
    return _run(site, "execjob_epilogue", job, exit_status)


def execjob_end(site: HookSite, job: Job, exit_status: Optional[int]) -> HookResult:
    return _run(site, "execjob_end", job, exit_status)


def execjob_abort(site: HookSite, job: Job, exit_status: int) -> HookResult:
    """Primary: a job failed to start (before execjob_end); sister: join failed or told to
    abort.  Whatever the hooks decide changes nothing in the flow (reference §6.4)."""
    return _run(site, "execjob_abort", job, exit_status)


def execjob_attach(site: HookSite, job: Job, pid: int) -> HookResult:
    """mom_comm.c tm_request TM_ATTACH: before the session of ``pid`` joins the job."""
    return _run(site, "execjob_attach", job, pid=pid)
