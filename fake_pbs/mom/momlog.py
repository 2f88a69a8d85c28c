"""The mom's log in PBS's format (reference §10.1), one file per host and day.

``MM/DD/YYYY HH:MM:SS;<eventtype %04x>;pbs_mom;<class>;<object>;<message>`` appended to
``<home>/mom_logs/<host>/YYYYMMDD``.  The object and message pass through
:func:`fake_pbs.logtext.one_line`, as the server's logs do: a value a user chose (a path, a
job name, a hook's message) cannot end a record early or forge the next one.
"""
import os
import threading
import time
from pathlib import Path
from typing import Callable, Optional, Tuple

from fake_pbs.logtext import one_line

# PBS event types (log.h) used by the mom.
EV_ERROR = 0x0001
EV_SYSTEM = 0x0002
EV_ADMIN = 0x0004
EV_JOB = 0x0008
EV_DEBUG = 0x0080
EV_DEBUG2 = 0x0100
EV_DEBUG3 = 0x0400

DAEMON = "pbs_mom"


# (second, time zone, stamp) of the last line: a job's ~18 lines mostly share a second.
_LAST: Tuple[int, Tuple[str, str], str] = (-1, ("", ""), "")


def _stamp(when: float) -> str:
    global _LAST
    last = _LAST
    second = int(when // 1)
    if last[0] != second or last[1] is not time.tzname:
        last = (second, time.tzname,
                time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(when)))
        _LAST = last
    return last[2]


def format_line(when: float, event: int, daemon: str, klass: str, obj: str, msg: str) -> str:
    return "%s;%04x;%s;%s;%s;%s\n" % (_stamp(when), event & 0x7FFF, daemon, klass,
                                      one_line(obj), one_line(msg))


class MomLog:
    """Appends PBS-format lines to the host's daily mom log; safe to share between threads."""

    def __init__(self, home: Path, host: str, clock: Optional[Callable[[], float]] = None) -> None:
        self.directory = home / "mom_logs" / host
        self._clock = clock or time.time
        self._lock = threading.Lock()
        # A job writes ~15 lines: the file name is computed once per second, not per line, and
        # the file stays open (O_APPEND: each line one write, whoever else appends; an open and
        # a close per line were ~1 ms of the mom's CPU per job).
        self._second = -1
        self._file = ""
        self._fd = -1
        self._fd_file = ""

    def path_for(self, when: float) -> Path:
        return self.directory / time.strftime("%Y%m%d", time.localtime(when))

    def write(self, event: int, klass: str, obj: str, msg: str, daemon: str = DAEMON) -> None:
        when = self._clock()
        line = format_line(when, event, daemon, klass, obj, msg).encode("utf-8", "surrogateescape")
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        with self._lock:
            if int(when) != self._second:
                self._second, self._file = int(when), str(self.path_for(when))
            if self._file != self._fd_file or self._fd < 0:
                try:
                    fd = os.open(self._file, flags, 0o644)
                except FileNotFoundError:  # the first line, or the directory was removed
                    self.directory.mkdir(parents=True, exist_ok=True)
                    fd = os.open(self._file, flags, 0o644)
                if self._fd >= 0:
                    os.close(self._fd)
                self._fd, self._fd_file = fd, self._file
            os.write(self._fd, line)

    def job(self, jobid: str, msg: str, event: int = EV_JOB) -> None:
        """A ``Job`` class line about ``jobid`` (the most common kind)."""
        self.write(event, "Job", jobid, msg)

    def server(self, msg: str, event: int = EV_SYSTEM) -> None:
        """A ``Svr`` class line about the mom itself."""
        self.write(event, "Svr", DAEMON, msg)
