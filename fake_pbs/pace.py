"""Cluster pace profiles: how fast the daemons move a job through its end (``cluster.json``).

``fast`` (the default) ends a job as soon as its processes are gone: tests and benchmarks want
that.  ``pbs`` reproduces the end-of-job timing of the capture server (OpenPBS 23.06.06, the
golden transcripts), for fidelity work (``fake-pbs start --pace pbs``; docs/differences.md):

* the mom's first status update (substate 41 -> 42) reaches the server ~2 s after the start, so
  a job that ends sooner is ``Obit received ... substate:41`` (h01) and a longer one 42 (g11);
* the obit reaches the server about a second after the mom sent it (h01: ``Obit sent``
  19:52:30, ``Obit received`` 19:52:31; g11 1 s after the victim's SIGTERM);
* the E phase (obit -> stage-out -> delete job -> nodes freed) lasts a moment, and a blocking
  ``qsub`` gets its reply at the obit, so the next job finds the slot still taken (a17 -> a17b
  got vm/1, b22e's exec_host list);
* after ``TermJob`` the mom sees the job gone only at a later resource poll (mom_main.c's
  ``next_sample_time``: ``$min_check_poll`` 10 s after the previous poll, growing by
  ``(max - min + 19) / 20`` per poll up to ``$max_check_poll`` 120 s, reset to the minimum at
  TermJob; a job start samples at once and sets the next poll ``$min_check_poll`` later), and
  not before the job is 10 s old: e01's ``jobs = 15.vm/1`` 1.4 s after qdel, b05b's 8 s,
  master g12's ``no active process for task`` at start + 10 s.
  In PBS that is one branch of a race: the mom reaps the job shell and, when the SIGTERM'd
  children are already gone from /proc, sends the obit at once (release g11); when one is
  still listed, the task is orphaned and only the poll's cput_sum declares it exited, with a
  10 s grace from the start (mom_start.c scan_for_terminated, mom_mach.c cput_sum).  The fake
  always takes the orphan branch, the one most transcripts show;
* an output file that cannot be delivered is copied four times, with 11 s and 21 s pauses
  (stage_func.c sys_copy; the job stays in E ~32 s, i05g); under ``fast`` without pauses.
"""
import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict

FAST = "fast"
PBS = "pbs"
PACES = (FAST, PBS)
ORPHAN_GRACE = 10.0  # cput_sum: no task is declared exited before its job is this many s old


@dataclass(frozen=True)
class Pace:
    name: str
    first_update: float  # seconds from the mom's start event to substate 42 on the server
    obit_latency: float  # seconds between the mom's finish and the server applying it
    e_phase: float       # seconds between the obit and the nodes being freed (then F)
    mom_poll: bool       # a TermJob'd job is seen ended at the mom's next resource poll
    copy_pauses: bool = False  # sys_copy's 11 s and 21 s pauses between failed copies (i05g)


PROFILES: Dict[str, Pace] = {
    FAST: Pace(FAST, 0.0, 0.0, 0.0, False),
    PBS: Pace(PBS, 2.0, 1.0, 1.0, True, True),
}


def of(config: Dict[str, Any]) -> Pace:
    """The pace named in a cluster configuration (unknown or missing: ``fast``)."""
    return PROFILES.get(str(config.get("pace", FAST)), PROFILES[FAST])


def load(config_file: Path) -> Pace:
    """The pace of the cluster whose ``cluster.json`` is ``config_file`` (mom side)."""
    try:
        with open(str(config_file), "r", encoding="utf-8") as handle:
            return of(json.load(handle))
    except (OSError, ValueError):
        return PROFILES[FAST]


class PollClock:
    """The mom's resource-poll schedule (mom_main.c): deterministic, clock values passed in.

    A poll is due when ``now >= last + interval``; each due poll grows the interval by ``step``
    up to ``maximum``, but only a poll that finds jobs at the mom samples them and moves
    ``last`` (``time_resc_updated``): an idle mom's polls only grow the interval.  A job start
    or a TermJob sets the interval back to ``minimum``.  The mom reports its job count with
    :meth:`set_jobs`.
    """

    def __init__(self, start: float, minimum: float = 10.0, maximum: float = 120.0) -> None:
        self.minimum = minimum
        self.maximum = maximum
        self.step = float(int((maximum - minimum + 19) // 20))
        self.last = start
        self.polled = start  # the last poll proper (a start's sample is one job's only)
        self.interval = maximum  # PBS starts with next_sample_time = MAX_CHECK_POLL_TIME
        self.jobs = 0

    def _advance(self, now: float) -> None:
        while self.last + self.interval <= now:
            if self.jobs:
                self.last += self.interval
                self.polled = self.last
            elif self.interval >= self.maximum:
                break  # idle: nothing changes until a job comes
            self.interval = min(self.interval + self.step, self.maximum)

    def set_jobs(self, now: float, count: int) -> None:
        """The mom holds ``count`` jobs from ``now`` on."""
        self._advance(now)
        self.jobs = count

    def started(self, now: float) -> None:
        """A job started: the start samples that job (``time_resc_updated`` = now, for every
        job's schedule) and the next poll is ``minimum`` later (start_exec.c; i06d's walltime
        kill 10 s after the start on a mom idle before)."""
        self._advance(now)
        self.last = now
        self.interval = self.minimum

    def reset(self, now: float) -> None:
        """A job was sent TermJob: poll again ``minimum`` after the last poll."""
        self._advance(now)
        self.interval = self.minimum
        if self.last + self.interval <= now:  # overdue: the main loop polls at once
            self.last = self.polled = now
            self.interval = min(self.interval + self.step, self.maximum)

    def last_poll(self, now: float) -> float:
        """The instant of the last poll at or before ``now`` that sampled every job (a job
        start samples only the started job: k03n's 387.vm logs no update when 388.vm starts)."""
        self._advance(now)
        return self.polled

    def next_poll(self, now: float) -> float:
        """The instant of the first poll after ``now``."""
        self._advance(now)
        return self.last + self.interval

    def orphan_seen(self, signalled: float, started: float) -> float:
        """When a job whose shell died of TermJob at ``signalled`` is seen ended: the first
        poll after the signal at which the job (started at ``started``) is ORPHAN_GRACE old.
        Polls ahead are worked out on a copy: the clock itself only moves with real time."""
        probe = copy.copy(self)
        probe.jobs = max(probe.jobs, 1)  # the job itself is still at the mom
        due = probe.next_poll(signalled)
        while due < started + ORPHAN_GRACE:
            due = probe.next_poll(due)
        return due
