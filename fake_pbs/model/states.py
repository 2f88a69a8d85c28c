"""PBS job states (letters) and substates (numbers), as ``qstat -f`` shows them.

Values follow OpenPBS ``job.h``; the fake stores them as the strings PBS prints.
"""
from typing import Dict

TRANSIT = "T"
QUEUED = "Q"
HELD = "H"
WAITING = "W"
RUNNING = "R"
EXITING = "E"
SUSPENDED = "S"
BEGUN = "B"       # array parent with at least one subjob started
FINISHED = "F"    # history: completed, failed or deleted
EXPIRED = "X"     # history: finished array subjob
MOVED = "M"

SUB_QUEUED = 10
SUB_PRESTAGEIN = 11   # queued, with files to stage in
SUB_STAGEGO = 15      # running: staging in, then the job starts
SUB_HELD = 20
SUB_SYNCHOLD = 21
SUB_DEPNHOLD = 22
SUB_WAITING = 30
SUB_STAGEFAIL = 37    # waiting: a stage-in failed, retried at Execution_Time
SUB_PRERUN = 41
SUB_RUNNING = 42
SUB_SUSPEND = 43
SUB_SCHSUSP = 45
SUB_EXITING = 50
SUB_RERUN = 60
SUB_BEGUN = 70
SUB_TERMINATED = 91   # deleted
SUB_FINISHED = 92     # Exit_status 0 (or never ran, e.g. dependency delete)
SUB_FAILED = 93       # Exit_status != 0
SUB_MOVED = 94

#: States whose jobs are history: ``qstat`` without ``-x`` answers "Job has finished".
HISTORY_STATES = frozenset((FINISHED, EXPIRED, MOVED))

#: States in which a job holds vnodes.
ACTIVE_STATES = frozenset((RUNNING, EXITING, SUSPENDED))

#: ``state_count`` label for each state letter, in PBS's display order.
STATE_COUNT_LABELS: Dict[str, str] = {
    TRANSIT: "Transit",
    QUEUED: "Queued",
    HELD: "Held",
    WAITING: "Waiting",
    RUNNING: "Running",
    EXITING: "Exiting",
    BEGUN: "Begun",
}


def state_count(counts: Dict[str, int]) -> str:
    """The ``state_count`` attribute text (trailing space included, as PBS prints it).

    Suspended jobs count as Running, as PBS's queue and server counters do (extra case k08).
    """
    merged = dict(counts)
    merged[RUNNING] = merged.get(RUNNING, 0) + merged.get(SUSPENDED, 0)
    return "".join("%s:%d " % (label, merged.get(letter, 0))
                   for letter, label in STATE_COUNT_LABELS.items())


def final_substate(exit_status: int, deleted: bool) -> int:
    """History substate of a job that ended: 91 deleted, 92 exit 0, 93 otherwise."""
    if deleted:
        return SUB_TERMINATED
    return SUB_FINISHED if exit_status == 0 else SUB_FAILED
