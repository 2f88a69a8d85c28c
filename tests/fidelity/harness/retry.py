"""The replay's retry discipline: when a read-only case is read again, and when it is done.

A read-only case (qstat, pbsnodes, cat of an output file, a daemon log excerpt) is read again
until it matches, since the fake's timing is not PBS's.  Reading on helps only while the fake
can still move towards what PBS printed, so a case is done when it matches, or when:

* the capture's own time has passed: PBS printed the case ``elapsed`` seconds after the last
  captured command that changed the cluster (cap.py stamps each command's start); until the
  replay is as far past its own run of that command, the fake has had less time than PBS had and
  an unchanged answer proves nothing (extra i06b: the walltime kill comes at the mom's poll, 22 s
  after qsub, and the output files only then);
* and from then on the answer stayed the same for STABLE_SECONDS (or LAG_SHARE of that
  elapsed time, when longer: the daemons' timers drift under load, release f24 ends 67 s of
  execjob_abort attempts) and STABLE_READS reads in a row: the fake's lag behind PBS (each read
  takes longer under load, so the window grows with the load);
* or a hard bound passed (RETRY_SECONDS past that time), for answers that keep changing.

Every read is compared in full each time: the discipline only decides how long to keep reading.
"""
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Generic, Optional, Tuple, TypeVar

STABLE_SECONDS = 2.0      # an unchanged answer, past the capture's time, this long ...
STABLE_READS = 3          # ... and over this many reads, is final
RETRY_SECONDS = 15.0      # past the capture's time, stop reading answers that keep changing
LAG_SHARE = 0.1           # ... or this share of the capture's elapsed time, when longer
CAPTURE_WAIT_CAP = 120.0  # the capture's time counts this long at most (the sets: 67 s, f24)
FIRST_PAUSE = 0.2         # pauses between reads double from this ...
MAX_PAUSE = 1.0           # ... up to this

T = TypeVar("T")


def capture_seconds(stamp: str) -> float:
    """A case's ``time`` (cap.py: ``2026-11-21T20:58:15.123456Z``) in epoch seconds."""
    return datetime.fromisoformat(stamp.rstrip("Z") + "+00:00").timestamp()


@dataclass
class Timeline:
    """The capture's clock paired with the replay's at the last case that changed the cluster.

    Steps of harness/plan.py carry no capture time: they do not move the pairing.
    """

    replay_at: Optional[float] = None
    capture_at: Optional[float] = None

    def anchor(self, stamp: str, now: float) -> None:
        """The case captured at ``stamp``, which changes the cluster, starts now."""
        self.replay_at, self.capture_at = now, capture_seconds(stamp)

    def elapsed(self, stamp: str) -> float:
        """The capture's seconds from the anchor to ``stamp`` (0 without an anchor), capped."""
        if self.capture_at is None:
            return 0.0
        return min(max(capture_seconds(stamp) - self.capture_at, 0.0), CAPTURE_WAIT_CAP)

    def due(self, stamp: str, now: float) -> float:
        """When the replay is as far past the anchor as the capture was at ``stamp``."""
        if self.replay_at is None:
            return now
        return max(now, self.replay_at + self.elapsed(stamp))

    def window(self, stamp: str) -> float:
        """How long an unchanged answer must last past the due time to be final."""
        return max(STABLE_SECONDS, LAG_SHARE * self.elapsed(stamp))


@dataclass
class Reads(Generic[T]):
    """What the reads of one case gave: the last answer (and what came with it)."""

    got: str
    extra: T
    attempts: int
    plateau: float  # the longest time the answer stayed the same without matching


def read_until(read: Callable[[], Tuple[str, T]], expected: str, *, again: bool, due: float,
               deadline: float, window: float = STABLE_SECONDS,
               clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], None] = time.sleep) -> Reads[T]:
    """Call ``read`` (which returns the compared answer and anything that goes with it) until
    the answer is ``expected`` or the case is done (module docstring); once when not ``again``.
    ``due`` is the capture's time for the case, ``window`` how long past it an unchanged answer
    is final, ``deadline`` the hard bound."""
    attempts = 0
    pause = FIRST_PAUSE
    last: Optional[str] = None
    changed = clock()
    steady = 0  # reads that gave the last answer again, at or after the capture's time
    plateau = 0.0
    while True:
        got, extra = read()
        attempts += 1
        now = clock()
        if got != last:
            last, changed, steady = got, now, 0
        elif now >= due:
            steady += 1
        plateau = max(plateau, now - changed)
        # The answer counts as unchanged only from the capture's time on (see the docstring).
        settled = (now >= due and now - max(changed, due) >= window
                   and steady >= STABLE_READS)
        if got == expected or not again or now >= deadline or settled:
            return Reads(got, extra, attempts, plateau)
        sleep(pause)
        pause = min(pause * 2, MAX_PAUSE)
