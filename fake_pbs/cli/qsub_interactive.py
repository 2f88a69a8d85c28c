"""``qsub -I``: wait for the interactive job to start, then be its terminal (qsub_sup.c).

PBS's qsub prints ``qsub: waiting for job <id> to start``, accepts the mom's connection, sends
TERM and its window size, prints ``qsub: job <id> ready`` and a blank line, puts the terminal
in raw mode (``settermraw``: no echo, no signals from keys, no CR/NL mapping, output
post-processing only) and copies keys to the job and the job's output to the screen; at the
end it restores the terminal and prints a blank line and ``qsub: job <id> completed``, and
exits 0 whatever the job did (I01, I05, I06, I10).  ``~.`` at the start of a line leaves.

Here the job's shepherd listens and qsub connects (fake_pbs/mom/ptyrelay.py has the wire and
who may attach), through ``verified_connect`` like every client.  Keys such as Ctrl-C and
Ctrl-Z are bytes to the job's terminal, whose line discipline signals the job's foreground
processes; qsub itself gets no signal from them.  A change of the window size is sent on
within a tick; PBS sends the size once, at the start.

Which process runs this: ``qsub -I`` (any option word with I or X) takes the Python path, a
plain ``python3`` with the terminal as its controlling terminal (runclient.c,
``may_need_terminal``); a ``#PBS -I`` directive is found only in the command runner's worker,
which holds the terminal's descriptors (passed by the C client) without it being its
controlling terminal: raw mode, reads and writes work there the same, SIGINT/SIGTERM/SIGHUP
reach it through the client, SIGWINCH does not, so the size is looked at each tick rather than
signalled.  Raw mode means the keys raise no SIGINT or SIGTSTP on qsub's side either way.
"""
from __future__ import annotations

import os
import select
import signal
import struct
import sys
import termios
import time

from fake_pbs import leanos, paths, verified_connect
from fake_pbs.cli import common
from fake_pbs.model.errors import PbsError
from fake_pbs.mom.ptyrelay import KIND_DATA, KIND_TERM, KIND_WINSIZE, frame

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, List, Optional, Union

STATUS_EVERY = 2.0      # how often the server is asked whether the job still exists
POLL_FIRST, POLL_MAX = 0.05, 0.25
TICK = 0.2
DEFAULT_WINSIZE = (20, 80, 0, 0)  # qsub_sup.c: when the size cannot be read


def _winsize() -> bytes:
    try:
        import fcntl

        raw = fcntl.ioctl(0, termios.TIOCGWINSZ, b"\0" * 8)
        values = struct.unpack("HHHH", raw)
    except OSError:
        values = DEFAULT_WINSIZE
    return ("%d,%d,%d,%d" % values).encode()


def _out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _job_gone(jobid: str) -> bool:
    """The job no longer exists, or ended, before it could be attached."""
    try:
        reply = common.request("statjob", id=jobid, extend="x", names=["job_state"])
    except PbsError:
        return True
    state = dict(reply[0]["attrs"]).get("job_state") if reply else None
    return state in (None, "F", "X")


def _ask_to_delete(jobid: str) -> bool:
    """qsub_sup.c catchint: Ctrl-C while waiting asks; True when the job was deleted."""
    _out("Do you wish to terminate the job and exit (y|[n])? ")
    while True:
        line = sys.stdin.readline()
        answer = line[:1]
        if answer in ("n", "N", "\n"):
            return False
        if answer in ("y", "Y", ""):
            _out("Job %s is being deleted\n" % jobid)
            try:
                common.request("deljob", id=jobid, force=False, purge=False,
                               suppress_mail=None)
            except PbsError:
                pass
            return True
        _out("yes or no please\n")


def _connect(jobid: str) -> Union[int, Any]:
    """Say that qsub waits, then wait for the job side; its connection once the job runs, or
    an exit status when there will be none.  As qsub.c, Ctrl-C is caught before the line is
    printed (a flag the loop looks at: no moment where it would end qsub instead)."""
    interrupted: List[bool] = []

    def on_interrupt(signum: int, frame: Any) -> None:
        interrupted.append(True)

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        _out("qsub: waiting for job %s to start\n" % jobid)
        path = paths.interactive_socket_path(paths.cluster_home_path(), jobid)
        delay = POLL_FIRST
        asked = time.monotonic()
        while True:
            if interrupted:
                del interrupted[:]
                if _ask_to_delete(jobid):
                    return 0
            try:
                return verified_connect.connect(path, 10.0)
            except (FileNotFoundError, ConnectionRefusedError):
                pass
            except verified_connect.Untrusted as err:
                sys.stderr.write("qsub: %s\n" % err)
                return 1
            if time.monotonic() - asked >= STATUS_EVERY:
                asked = time.monotonic()
                if _job_gone(jobid):
                    sys.stderr.write("qsub: job %s apparently deleted\n" % jobid)
                    return 1
            time.sleep(delay)
            delay = min(delay * 2, POLL_MAX)
    finally:
        signal.signal(signal.SIGINT, previous)


def _handshake(conn: Any, jobid: str) -> bool:
    """The job side names its job first (qsub.c checks it), then gets TERM and the size."""
    line = b""
    while not line.endswith(b"\n") and len(line) < 1024:
        chunk = conn.recv(1)
        if not chunk:
            return False
        line += chunk
    if line.decode("utf-8", "replace").strip() != jobid:
        sys.stderr.write("qsub: invalid job name from execution server\n")
        return False
    term = leanos.environ().get("TERM") or "unknown"
    conn.sendall(frame(KIND_TERM, term.encode("utf-8", "replace"))
                 + frame(KIND_WINSIZE, _winsize()))
    return True


def _raw(saved: List[Any]) -> List[Any]:
    """qsub_sup.c settermraw: the terminal's new attributes from the saved ones."""
    iflag, _, cflag, lflag, ispeed, ospeed, chars = saved
    lflag = int(lflag) & ~(termios.ICANON | termios.ISIG | termios.ECHO | termios.ECHOE
                           | termios.ECHOK)
    iflag = int(iflag) & ~(termios.IGNBRK | termios.INLCR | termios.ICRNL | termios.IXON
                           | termios.IXOFF)
    chars = list(chars)
    chars[termios.VMIN] = 1
    chars[termios.VTIME] = 0
    return [iflag, termios.OPOST, cflag, lflag, ispeed, ospeed, chars]


class _Keys:
    """Keyboard bytes -> frames; ``~.`` at the start of a line ends the session (writer())."""

    def __init__(self, saved: List[Any]) -> None:
        chars = saved[6]
        self.line_ends = {b"\n", b"\r", chars[termios.VKILL], chars[termios.VINTR]}
        self.at_line_start = True
        self.tilde = False

    def feed(self, data: bytes) -> Optional[bytes]:
        """The bytes to send, or None when the user typed ``~.``."""
        out = bytearray()
        for value in data:
            char = bytes((value,))
            if self.tilde:
                self.tilde = False
                if char == b".":
                    return None
                out += b"~"
            elif self.at_line_start and char == b"~":
                self.tilde = True
                self.at_line_start = False
                continue
            out += char
            self.at_line_start = char in self.line_ends
        return bytes(out)


def _relay(conn: Any, saved: List[Any]) -> None:
    keys = _Keys(saved)
    sent_size = _winsize()
    conn.setblocking(True)
    stdin_open = True
    while True:
        watched = [conn] + ([0] if stdin_open else [])
        try:
            ready, _, _ = select.select(watched, [], [], TICK)
        except InterruptedError:
            ready = []
        size = _winsize()
        if size != sent_size:  # looked at every tick: the runner does not forward SIGWINCH
            sent_size = size
            conn.sendall(frame(KIND_WINSIZE, size))
        if conn in ready:
            data = conn.recv(65536)
            if not data:
                return
            view = memoryview(data)
            while view:
                view = view[os.write(1, view):]
        if 0 in ready:
            data = os.read(0, 4096)
            if not data:
                stdin_open = False  # writer(): EOF on the terminal ends the session
                return
            sending = keys.feed(data)
            if sending is None:
                return
            if sending:
                conn.sendall(frame(KIND_DATA, sending))


def attend(jobid: str) -> int:
    """Wait for ``jobid`` to start, then relay the terminal to it until it ends."""
    conn = _connect(jobid)
    if isinstance(conn, int):
        return conn
    try:
        if not _handshake(conn, jobid):
            return 1
        _out("qsub: job %s ready\n\n" % jobid)
        saved = termios.tcgetattr(0)
        termios.tcsetattr(0, termios.TCSANOW, _raw(saved))
        try:
            _relay(conn, saved)
        except OSError:
            pass  # the job side went away: the session is over
        finally:
            termios.tcsetattr(0, termios.TCSANOW, saved)
    finally:
        conn.close()
    _out("\nqsub: job %s completed\n" % jobid)
    return 0
