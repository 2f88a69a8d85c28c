"""The primary mom's watch over a running job's sisters (OpenPBS mom_main.c's poll of the
sisters with ``IM_POLL_JOB``, mom_comm.c ``im_eof``, mom_main.c ``job_over_limit``).

A sister that cannot be reached is "lost": the primary logs ``im_eof, lost communication with
<host>, not killing job yet`` at once and, at each resource poll after, ``main, lost
communication with <host>, not killing job yet``.  A sister that answers again is forgiven (its
down time starts anew).  One lost for longer than ``$max_poll_downtime`` (momconfig.py; 300 s)
ends the job: ``send POLL failed``, ``node EOF <n> (<host>)``, and the job is killed at once
with SIGKILL and exit status JOB_EXEC_RERUN_SIS_FAIL (-14): the server requeues it when it is
rerunnable, or ends it (req_jobobit.c).
"""
from typing import Dict, Optional, Tuple

from fake_pbs.model.errors import PBSE_SISCOMM, PbsError
from fake_pbs.mom.context import MomContext
from fake_pbs.mom.sisters import sister_request

JOB_EXEC_RERUN_SIS_FAIL = -14
POLL_TIMEOUT = 2.0  # a hung sister must not stall the job's own watch for long
EV_ERROR = 0x0001  # log_joberr: PBSEVENT_ERROR
EV_JOB = 0x0008


class SisterWatch:
    def __init__(self, ctx: MomContext, jobid: str, sisters: Tuple[str, ...]) -> None:
        self.ctx = ctx
        self.jobid = jobid
        self.sisters = sisters
        self.lost: Dict[str, float] = {}  # host -> when it was first found unreachable
        self._polled = 0.0  # the last resource poll that logged the lost sisters

    def check(self, now: float) -> Optional[str]:
        """Poll every sister once; the host lost for too long (the job must die), or None."""
        if not self.sisters:
            return None
        with self.ctx.polls_lock:
            polled = self.ctx.polls.last_poll(now)
        at_poll = polled > self._polled
        if at_poll:
            self._polled = polled
        downtime = self.ctx.config.max_poll_downtime
        for host in self.sisters:
            try:
                sister_request(self.ctx, host, "poll", timeout=POLL_TIMEOUT, job=self.jobid)
            except PbsError as err:
                if err.code != PBSE_SISCOMM:  # it answered: the link is up
                    self.lost.pop(host, None)
                    continue
                if host not in self.lost:
                    self.lost[host] = now
                    self._log_lost("im_eof", host)
                elif now - self.lost[host] <= downtime:
                    if at_poll:
                        self._log_lost("main", host)
                else:
                    return host
            else:
                self.lost.pop(host, None)
        return None

    def node_index(self, host: str) -> int:
        """The host's place in the job's host list (the primary is node 0)."""
        return self.sisters.index(host) + 1

    def log_bailout(self, host: str) -> None:
        log = self.ctx.log
        log.job(self.jobid, "send POLL failed", EV_JOB)
        log.job(self.jobid, "node EOF %d (%s)" % (self.node_index(host), host), EV_JOB)

    def _log_lost(self, routine: str, host: str) -> None:
        self.ctx.log.job(self.jobid, "%s, lost communication with %s, not killing job yet"
                         % (routine, host), EV_ERROR)
