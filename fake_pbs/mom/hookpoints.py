"""Mom hook events: the call points of the mom, filled in by the hooks engineer.

Every function receives a :class:`HookSite` (where and for whom it runs) and the job object of
the start message (``{"id", "run_count", "attrs", "hosts", "exec_vnode", "uid", "user", ...}``),
plus the event's own arguments, and returns a :class:`HookResult`. These bodies accept.

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


def exechost_startup(site: HookSite) -> HookResult:
    return ACCEPT


def execjob_begin(site: HookSite, job: Job) -> HookResult:
    return ACCEPT


def execjob_prologue(site: HookSite, job: Job) -> HookResult:
    return ACCEPT


def execjob_launch(site: HookSite, job: Job, progname: str, argv: List[str],
                   env: Dict[str, str]) -> HookResult:
    return ACCEPT


def execjob_preterm(site: HookSite, job: Job) -> HookResult:
    return ACCEPT


def execjob_epilogue(site: HookSite, job: Job, exit_status: int) -> HookResult:
    return ACCEPT


def execjob_end(site: HookSite, job: Job, exit_status: Optional[int]) -> HookResult:
    return ACCEPT


def execjob_abort(site: HookSite, job: Job, exit_status: int) -> HookResult:
    return ACCEPT
