"""One replay at a time in the golden users' homes.

Every replay on a machine uses the same ``pbsuser`` and ``pbsuser2`` and cleans their homes
before it copies the job scripts there (environment.py).  Two replays at once -- a CI run beside
a developer's, or ``tools/fidelity_report.py`` beside ``pytest`` -- deleted each other's scripts
and output files, and every case after that differed.  Replays therefore hold an exclusive
``flock`` on a file in pbsuser's home while their cluster lives; within one process the lock is
shared (a session's release and extra replayers run one after the other).
"""
import fcntl
import os
import time
from pathlib import Path
from typing import Optional

LOCK_NAME = ".fake_pbs_fidelity_lock"
WAIT_SECONDS = 3600.0
POLL_SECONDS = 1.0


class HomeLock:
    """A process-wide, counted, exclusive lock on ``<home>/.fake_pbs_fidelity_lock``."""

    _fd: Optional[int] = None
    _holders = 0

    @classmethod
    def acquire(cls, home: str, owner_uid: int, owner_gid: int) -> None:
        if cls._holders == 0:
            path = Path(home) / LOCK_NAME
            fd = os.open(str(path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                os.fchown(fd, owner_uid, owner_gid)
                deadline = time.monotonic() + WAIT_SECONDS
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() >= deadline:
                            raise RuntimeError(
                                "another fidelity replay has used %s for %.0f s" % (
                                    home, WAIT_SECONDS)) from None
                        time.sleep(POLL_SECONDS)
            except BaseException:
                os.close(fd)
                raise
            cls._fd = fd
        cls._holders += 1

    @classmethod
    def release(cls) -> None:
        if cls._holders == 0:
            return
        cls._holders -= 1
        if cls._holders == 0 and cls._fd is not None:
            os.close(cls._fd)  # closing drops the flock
            cls._fd = None
