"""Server, scheduler and accounting logs in PBS's formats (docs/internals.md §6).

Daemon log line: ``MM/DD/YYYY HH:MM:SS;<event %04x>;<daemon>;<class>;<object>;<message>``.
Accounting line: ``MM/DD/YYYY HH:MM:SS;<type>;<jobid>;<message>``.  One file per local day.

One record is one line, whatever a user put in a value: the object and message fields pass
through :func:`fake_pbs.logtext.one_line`.
"""
import os
import threading
import time
from pathlib import Path
from typing import Callable, Optional, Sequence, Tuple

from fake_pbs.logtext import one_line

# PBSEVENT_* (log.h)
ERROR = 0x0001
SYSTEM = 0x0002
ADMIN = 0x0004
JOB = 0x0008
JOB_USAGE = 0x0010
SECURITY = 0x0020
SCHED = 0x0040
DEBUG = 0x0080
DEBUG2 = 0x0100

# PBS_EVENTCLASS_* names
SVR = "Svr"
QUE = "Que"
JOBC = "Job"
REQ = "Req"
NODE = "Node"
HOOK = "Hook"
SCHEDC = "Sched"


# (second, time zone, line stamp, file day) of the last line: a job's ~30 server, scheduler
# and accounting lines mostly share a second, and formatting local time cost ~10% of the
# server's CPU per job (docs/performance.md).  One tuple, replaced whole: thread-safe.
_LAST: Tuple[int, Tuple[str, str], str, str] = (-1, ("", ""), "", "")


def _stamp_and_day(now: float) -> Tuple[str, str]:
    global _LAST
    last = _LAST
    second = int(now // 1)
    if last[0] != second or last[1] is not time.tzname:
        local = time.localtime(now)
        last = (second, time.tzname, time.strftime("%m/%d/%Y %H:%M:%S", local),
                time.strftime("%Y%m%d", local))
        _LAST = last
    return last[2], last[3]


def _stamp(now: float) -> str:
    return _stamp_and_day(now)[0]


def _day(now: float) -> str:
    return _stamp_and_day(now)[1]


class DaemonLog:
    """Appends PBS-format lines to ``<directory>/YYYYMMDD``; ``mask`` filters event types."""

    def __init__(self, directory: Path, daemon: str, clock: Callable[[], float] = time.time,
                 mask: Callable[[], int] = lambda: 0x1FF) -> None:
        self.directory = directory
        self.daemon = daemon
        self._clock = clock
        self._mask = mask
        self._lock = threading.Lock()
        # The day's file stays open (O_APPEND: each line one write, whoever else appends):
        # an open and a close per line were ~1 ms of the server's CPU per job.
        self._day = ""
        self._fd = -1
        directory.mkdir(parents=True, exist_ok=True)

    def write(self, event: int, cls: str, obj: str, message: str,
              now: Optional[float] = None) -> None:
        if not event & self._mask() & 0x7FFF:
            return
        when = self._clock() if now is None else now
        line = "%s;%04x;%s;%s;%s;%s\n" % (_stamp(when), event & 0x7FFF, self.daemon, cls,
                                          one_line(obj), one_line(message))
        self._append(when, line)

    def lines(self, event: int, cls: str, obj: str, messages: Sequence[str]) -> None:
        """Several lines of one event and object, stamped alike, in one write."""
        if not messages or not event & self._mask() & 0x7FFF:
            return
        when = self._clock()
        head = "%s;%04x;%s;%s;%s;" % (_stamp(when), event & 0x7FFF, self.daemon, cls,
                                      one_line(obj))
        self._append(when, "".join(head + one_line(message) + "\n" for message in messages))

    def job(self, jobid: str, message: str, event: int = JOB) -> None:
        self.write(event, JOBC, jobid, message)

    def server(self, message: str, event: int = SYSTEM, obj: str = "") -> None:
        self.write(event, SVR, obj or self.daemon, message)

    def _append(self, when: float, line: str) -> None:
        day = _day(when)
        data = line.encode("utf-8", "surrogateescape")
        with self._lock:
            if day != self._day or self._fd < 0:
                fd = os.open(str(self.directory / day), os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                             0o644)
                if self._fd >= 0:
                    os.close(self._fd)
                self._day, self._fd = day, fd
            os.write(self._fd, data)


class AccountingLog(DaemonLog):
    """``server_priv/accounting/YYYYMMDD``: ``Q`` queued, ``S`` start, ``E`` end, ``D`` delete...

    ``usage_log`` (the server log, set by the daemon): pbs_server also logs each end record's
    ``Exit_status=... resources_used...`` part there at event 0x0010 (req_jobobit.c end_job;
    transcripts g11, h01).
    """

    usage_log: Optional[DaemonLog] = None

    def record(self, kind: str, jobid: str, message: str) -> None:
        when = self._clock()
        line = "%s;%s;%s;%s\n" % (_stamp(when), one_line(kind), one_line(jobid),
                                  one_line(message))
        self._append(when, line)
        if kind == "E" and self.usage_log is not None:
            usage = end_usage(message)
            if usage:
                self.usage_log.write(JOB_USAGE, JOBC, jobid, usage, when)


def end_usage(record: str) -> str:
    """The ``Exit_status=N resources_used.a=x ...`` part of an ``E`` record's message."""
    start = record.find("Exit_status=")
    if start < 0:
        return ""
    words = record[start:].split(" ")
    keep = [words[0]] + [w for w in words[1:] if w.startswith("resources_used.")]
    return " ".join(keep)
