"""Drive a command under a pseudo-terminal, as the group I transcripts' I_driver.py did.

A bounded reader: every wait has a deadline, and the child is killed (SIGKILL) if it outlives
the session, so a test never hangs on a session that does not end.
"""
from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time
from typing import Dict, List, Optional, Pattern, Union


class PtySession:
    """One command on the master side of a fresh pty (its controlling terminal)."""

    def __init__(self, argv: List[str], env: Dict[str, str], cwd: Optional[str] = None,
                 rows: int = 24, cols: int = 80, user: Optional[int] = None,
                 group: Optional[int] = None) -> None:
        pid, fd = pty.fork()
        if pid == 0:  # the child: the pty slave is its terminal already
            try:
                if group is not None:
                    os.setgroups([])
                    os.setgid(group)
                if user is not None:
                    os.setuid(user)
                if cwd:
                    os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.output = b""
        self.status: Optional[int] = None
        self.set_size(rows, cols)

    def set_size(self, rows: int, cols: int) -> None:
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def send(self, data: Union[str, bytes]) -> None:
        os.write(self.fd, data.encode() if isinstance(data, str) else data)

    def _read_some(self, timeout: float) -> bool:
        """Read what is there within ``timeout``; False at the end of the stream."""
        ready, _, _ = select.select([self.fd], [], [], max(timeout, 0.0))
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the child and every holder of the slave are gone
            return False
        if not data:
            return False
        self.output += data
        return True

    def expect(self, pattern: Union[str, Pattern[bytes]], timeout: float = 30.0,
               start: int = 0) -> "re.Match[bytes]":
        """Read until ``pattern`` appears in the output after ``start``; AssertionError
        (with the output so far) when it does not within ``timeout``."""
        regex = re.compile(re.escape(pattern.encode())) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(self.output, start)
            if found:
                return found
            left = deadline - time.monotonic()
            if left <= 0 or not self._read_some(min(left, 0.5)):
                found = regex.search(self.output, start)
                if found:
                    return found
                raise AssertionError("%r not seen in %r" % (regex.pattern, self.output))

    def wait(self, timeout: float = 30.0) -> int:
        """Read to the end and reap the child; its exit status (128 + N for a signal)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._read_some(deadline - time.monotonic()):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                self._reaped(status)
                while self._read_some(0.05):
                    pass
                return self.returncode
        if self.status is None:
            end = time.monotonic() + max(deadline - time.monotonic(), 2.0)
            while time.monotonic() < end:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid == self.pid:
                    self._reaped(status)
                    return self.returncode
                time.sleep(0.02)
            self.close()
            raise AssertionError("the command did not end: %r" % self.output)
        return self.returncode

    def _reaped(self, status: int) -> None:
        self.status = status

    @property
    def returncode(self) -> int:
        assert self.status is not None
        if os.WIFSIGNALED(self.status):
            return 128 + os.WTERMSIG(self.status)
        return os.WEXITSTATUS(self.status)

    def text(self) -> str:
        return self.output.decode("utf-8", "backslashreplace")

    def close(self) -> None:
        """Kill the child if it still runs, reap it, close the master."""
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                _, status = os.waitpid(self.pid, 0)
                self.status = status
            except ChildProcessError:
                pass
        try:
            os.close(self.fd)
        except OSError:
            pass
