"""PBS's per-request server log lines: ``Type N request received from user@host, sock=N``.

pbs_server logs one such line (event 0x0100, class ``Req``, no object) for every batch request it
reads (process_request.c).  The fake's commands send one request per PBS call they stand for, but
a real client also opens its connection with ``Connect`` (0) and ``Authenticate`` (95), and qsub
sends ``QueueJob``, ``jobscript`` and ``Commit`` (1, 3, 5) for one submission.  This module maps
each fake request to the batch request types its PBS counterpart sends, in PBS's order
(transcript g11: qsub -> 1 3 5 on a connection its daemon keeps open; ``qstat -f`` -> 0 95 21 19;
the scheduler's cycle -> 21 71 58 20 51 51, then 23 per job run and 93 per preemption).

The lines of one request go to the log in a single write: the cost is one append per request.
"""
from typing import Dict, List, Tuple

from fake_pbs.server.logs import DEBUG2, REQ, SCHED, SVR, DaemonLog

# PBS_BATCH_* numbers (libpbs.h).
CONNECT = 0
QUEUE_JOB = 1
JOB_SCRIPT = 3
COMMIT = 5
RUN_JOB = 15
SIGNAL_JOB = 18
STATUS_JOB = 19
STATUS_QUE = 20
STATUS_SVR = 21
ASYRUN_JOB = 23
SEL_STAT = 51
STATUS_NODE = 58
STATUS_RESV = 71
PREEMPT_JOBS = 93
AUTHENTICATE = 95

# svr_sched_cmd (sched_cmds.h): why the server started a scheduling cycle.
SCH_SCHEDULE_NEW = 1    # a job was queued or became eligible
SCH_SCHEDULE_TERM = 2   # a running job ended
SCH_SCHEDULE_TIME = 3   # scheduler_iteration passed

#: The batch requests each fake op stands for; ops not listed (fake-only ones such as ``ping``,
#: ``reset``, ``schedule``) log nothing, as no PBS client would send them.
OP_TYPES: Dict[str, Tuple[int, ...]] = {
    "queuejob": (QUEUE_JOB, JOB_SCRIPT, COMMIT),
    "deljob": (6,),
    "holdjob": (7,),
    "manager": (9,),
    "msgjob": (10,),
    "hookio": (9,),
    "alterjob": (11,),
    "movejob": (12,),
    "rlsjob": (13,),
    "rerunjob": (14,),
    "runjob": (RUN_JOB,),
    "selectjob": (16,),
    "shutdown": (17,),
    "sigjob": (SIGNAL_JOB,),
    "statjob": (STATUS_JOB,),
    "statque": (STATUS_QUE,),
    "statsvr": (STATUS_SVR,),
    "statnode": (STATUS_NODE,),
    "statsched": (81,),
    "statrsc": (82,),
    "stathook": (83,),
    "preempt": (PREEMPT_JOBS,),
    "resv_submit": (70,),
    "resv_status": (71,),
    "resv_delete": (72,),
    "resv_alter": (91,),
}

#: Ops whose client does not connect afresh: PBS's qsub hands the job to its background daemon,
#: whose connection (and authentication) outlives the command (g11: no 0/95 before 1 3 5).
_NO_CONNECT = frozenset(("queuejob",))

#: What the scheduler asks at the start of each cycle (server, reservations, nodes, queues,
#: then jobs twice: the queued/running ones and the rest).
CYCLE_QUERIES = (STATUS_SVR, STATUS_RESV, STATUS_NODE, STATUS_QUE, SEL_STAT, SEL_STAT)

#: The scheduler's connection number as the server's log shows it (sock=16 in every capture).
SCHED_SOCK = 16


def _line(kind: int, who: str, sock: int) -> str:
    return "Type %d request received from %s, sock=%d" % (kind, who, sock)


class ConnectionLog:
    """The request lines of one client connection (``sock`` is its descriptor number)."""

    def __init__(self, log: DaemonLog, who: str, sock: int) -> None:
        self.log = log
        self.who = who
        self.sock = sock
        self.connected = False

    def request(self, op: str) -> None:
        """Log what PBS logs when it reads the batch requests behind ``op``."""
        kinds = OP_TYPES.get(op)
        if kinds is None:
            return
        lines: List[str] = []
        if not self.connected and op not in _NO_CONNECT:
            # The authentication runs on a second descriptor, one above the connection's.
            lines.append(_line(CONNECT, self.who, self.sock))
            lines.append(_line(AUTHENTICATE, self.who, self.sock + 1))
        self.connected = True
        lines.extend(_line(kind, self.who, self.sock) for kind in kinds)
        self.log.lines(DEBUG2, REQ, "", lines)


def scheduler_request(log: DaemonLog, host: str, kind: int) -> None:
    """One request of the scheduler (23 run, 93 preempt) on its own connection."""
    log.lines(DEBUG2, REQ, "", [_line(kind, "Scheduler@%s" % host, SCHED_SOCK)])


def cycle_started(log: DaemonLog, server_name: str, host: str, command: int) -> None:
    """``Scheduler sent command N`` and the scheduler's queries at the start of its cycle."""
    log.write(SCHED, SVR, server_name, "Scheduler sent command %d" % command)
    who = "Scheduler@%s" % host
    log.lines(DEBUG2, REQ, "", [_line(kind, who, SCHED_SOCK) for kind in CYCLE_QUERIES])
