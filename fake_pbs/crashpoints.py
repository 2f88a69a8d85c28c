"""Crash points: a daemon SIGKILLs itself at a named step of the job end, once, on demand.

The crash tests need a crash *between* two given steps, not wherever a timed ``kill -9`` lands.
``fake-pbs crashpoint DAEMON POINT`` (DAEMON: ``server`` or a mom's host name) writes the file
``<home>/crashpoints/<daemon>``; the daemon that reaches POINT removes the file (so that its
restart goes on) and kills itself with SIGKILL: no cleanup, no flush, as a real crash.  Unarmed,
a check is one ``access`` of a file that does not exist (no exception, no path object: a job's
end passes ~8 of them in the server and the mom).  docs/reliability.md lists the points in the
order the job end passes them.
"""
import os
import signal
from pathlib import Path
from typing import Dict, Tuple

# The job end in step order (docs/reliability.md, "Ordering rule").
SERVER_POINTS: Tuple[str, ...] = (
    "obit-received",     # a finish event arrived, nothing of it applied
    "obit-saved",        # the finish is stored (E), the copy request not sent
    "copy-sent",         # the mom acknowledged the copy request (stage-out under way)
    "release-received",  # the final release arrived, the job's end not stored
    "end-saved",         # the end is stored (F or requeued), the delete-job request not sent
    "discard-sent",      # the mom acknowledged the delete-job request
)
# Not of the job end: a submission received, nothing stored; stored, its reply (the job id)
# not sent (cli/qsub_submit.py).
SUBMIT_POINTS: Tuple[str, ...] = ("submit-received", "submit-saved")
MOM_POINTS: Tuple[str, ...] = (
    "exit-recorded",     # the shell's exit record is on disk, no finish event yet
    "obit-sent",         # the finish event is stored (and may have been sent)
    "staged",            # the output is delivered, the final release not stored
    "released",          # the final release is stored
    "discard-received",  # the delete-job request is stored, execjob_end not run
    "end-hook-done",     # execjob_end ran, the job's files still there
)


def _marker(home: Path, daemon: str) -> Path:
    return Path(home) / "crashpoints" / daemon


def points_of(daemon: str) -> Tuple[str, ...]:
    return SERVER_POINTS + SUBMIT_POINTS if daemon == "server" else MOM_POINTS


def arm(home: Path, daemon: str, point: str) -> None:
    """Make ``daemon`` (``server`` or a host name) crash when it next reaches ``point``."""
    if point not in points_of(daemon):
        raise ValueError("unknown crash point %r for %s: use one of %s"
                         % (point, daemon, ", ".join(points_of(daemon))))
    marker = _marker(home, daemon)
    marker.parent.mkdir(mode=0o700, exist_ok=True)
    marker.write_text(point)


def disarm(home: Path, daemon: str) -> None:
    try:
        _marker(home, daemon).unlink()
    except FileNotFoundError:
        pass


# The marker's path per (home, daemon), as a string: the unarmed check is on every job's path.
_MARKERS: Dict[Tuple[str, str], str] = {}


def reach(home: Path, daemon: str, point: str) -> None:
    """Called by ``daemon`` at ``point``: die here when this point is armed."""
    key = (str(home), daemon)
    marker = _MARKERS.get(key)
    if marker is None:
        marker = _MARKERS[key] = str(_marker(home, daemon))
    if not os.access(marker, os.F_OK):
        return
    try:
        with open(marker, encoding="utf-8") as handle:
            armed = handle.read()
    except OSError:
        return
    if armed != point:
        return
    os.unlink(marker)
    os.kill(os.getpid(), signal.SIGKILL)
