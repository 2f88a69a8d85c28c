"""The mom's shepherd launcher: one pre-imported process that forks a shepherd per job.

Starting a shepherd as a new Python process cost every job an interpreter start (~20-30 ms of
CPU on this project's machines; docs/performance.md, hotspot 1).  The mom instead keeps one
``python3 -S -m fake_pbs.mom.shepherd --serve <jobs dir>`` child, started on first use, and asks
it to start the shepherd of a job directory; it answers with the same ``ok <pid>``/``err ...``
report as the one-shot form.  The shepherds it starts are its children (it reaps them) in their
own sessions; when the launcher ends they are re-parented to init, so they outlive the mom and
the launcher alike.

The launcher exits when its stdin reaches EOF, that is when the mom is gone (even after
``kill -9``), so nothing of it outlives the mom.  Any failure of the launcher falls back to the
one-shot process for that job, unless the request may already have been acted on: then the
caller decides from the shepherd's own record (``shepherd.json``).
"""
import os
import select
import subprocess
import sys
import threading
import time
from typing import Dict, Optional

# A report that tells the caller the launcher may or may not have started the shepherd.
UNCERTAIN = "err shepherd launcher failed during the start"


def shepherd_env() -> Dict[str, str]:
    """The mom's environment with the package on PYTHONPATH (shepherds run with ``-S``)."""
    from fake_pbs import paths

    env = dict(os.environ)
    package_root = str(paths.bin_dir().parent.parent)
    env["PYTHONPATH"] = package_root + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_once(jobdir: str, timeout: float) -> str:
    """The one-shot form: a new ``python3 -S -m fake_pbs.mom.shepherd <jobdir>`` process."""
    try:
        done = subprocess.run(
            [sys.executable, "-S", "-m", "fake_pbs.mom.shepherd", jobdir],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            cwd="/", env=shepherd_env(), start_new_session=True, timeout=timeout)
        return done.stdout.decode("utf-8", "replace").strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return "err %s" % exc


class ShepherdLauncher:
    """The mom's launcher child; thread-safe (one start at a time: each takes a few ms)."""

    def __init__(self, jobs_dir: str) -> None:
        self.jobs_dir = jobs_dir
        self._lock = threading.Lock()
        self._proc: Optional["subprocess.Popen[bytes]"] = None
        self._pending = b""

    def start_shepherd(self, jobdir: str, timeout: float) -> str:
        """Start the shepherd of ``jobdir``; its report (``ok <pid>`` or ``err ...``)."""
        with self._lock:
            proc = self._running()
            if proc is None:
                return run_once(jobdir, timeout)
            try:
                self._send(proc, jobdir)
            except OSError:
                # Not delivered (the launcher is gone): nothing was started, start it anew.
                self._discard()
                return run_once(jobdir, timeout)
            line = self._read_line(proc, timeout)
            if line is None:
                self._discard()
                return UNCERTAIN
            return line

    def close(self) -> None:
        """Stop the launcher (it would stop by itself at the mom's exit); skipped when a start
        holds it longer than a moment (a mom that is stopping does not wait for that)."""
        if self._lock.acquire(timeout=2.0):
            try:
                self._discard()
            finally:
                self._lock.release()

    @property
    def pid(self) -> Optional[int]:
        proc = self._proc
        return None if proc is None else proc.pid

    # ---- the child -----------------------------------------------------------------------------

    def _running(self) -> "Optional[subprocess.Popen[bytes]]":
        proc = self._proc
        if proc is not None and proc.poll() is None:
            return proc
        self._discard()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-S", "-m", "fake_pbs.mom.shepherd", "--serve", self.jobs_dir],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                cwd="/", env=shepherd_env(), start_new_session=True)
        except OSError:
            return None
        self._proc = proc
        self._pending = b""
        return proc

    @staticmethod
    def _send(proc: "subprocess.Popen[bytes]", jobdir: str) -> None:
        assert proc.stdin is not None
        data = jobdir.encode("utf-8", "surrogateescape") + b"\n"
        while data:
            data = data[os.write(proc.stdin.fileno(), data):]

    def _read_line(self, proc: "subprocess.Popen[bytes]", timeout: float) -> Optional[str]:
        """One answer line, or None on EOF or timeout."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        poller = select.poll()  # not select(): a busy mom's descriptors may pass 1024
        poller.register(fd, select.POLLIN)
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if not poller.poll(left * 1000.0):
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                return None
            self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line.decode("utf-8", "replace").strip()

    def _discard(self) -> None:
        proc, self._proc = self._proc, None
        self._pending = b""
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        # Closing stdin ends it (EOF); a stuck one is killed. Only our own child is touched.
        try:
            proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5.0)


_SHARED: Dict[str, ShepherdLauncher] = {}
_SHARED_LOCK = threading.Lock()


def shared(jobs_dir: str) -> ShepherdLauncher:
    """The launcher of the mom whose job directories live in ``jobs_dir`` (one per process)."""
    with _SHARED_LOCK:
        found = _SHARED.get(jobs_dir)
        if found is None:
            found = _SHARED[jobs_dir] = ShepherdLauncher(jobs_dir)
        return found
