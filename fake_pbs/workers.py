"""Threads that are reused: a daemon's short tasks (one connection, one request) run on an
idle worker when there is one, on a new thread otherwise.

The mom and the server started a thread for every connection (~3-4 per job each): building a
``threading.Thread`` (its Event, Condition and name), the ``clone`` and stack, and the start
handshake (the caller waits until the new thread runs) were ~15% of the mom's Python time per
job (py-spy, docs/performance.md).  A worker that finished waits up to :data:`IDLE_SECONDS`
for the next task.  Tasks never wait for a worker: there is no bound, as before, so a task
that blocks for long (an event stream) cannot hold back another.
"""
import threading
import traceback
from collections import deque
from typing import Any, Callable, Deque, Tuple

IDLE_SECONDS = 30.0

Task = Tuple[Callable[..., Any], Tuple[Any, ...]]


class Workers:
    """A set of daemon threads for tasks of one kind (``name`` names the threads)."""

    def __init__(self, name: str, idle_seconds: float = IDLE_SECONDS) -> None:
        self.name = name
        self.idle_seconds = idle_seconds
        self._cond = threading.Condition(threading.Lock())
        self._tasks: Deque[Task] = deque()
        self._idle = 0  # workers waiting for a task; each queued task has one of its own

    def spawn(self, target: Callable[..., Any], *args: Any) -> None:
        """Run ``target(*args)`` on an idle worker, or on a new thread (RuntimeError as
        ``Thread.start`` when none can be had)."""
        with self._cond:
            if self._idle > len(self._tasks):
                self._tasks.append((target, args))
                self._cond.notify()
                return
        threading.Thread(target=self._work, args=((target, args),), name=self.name,
                         daemon=True).start()

    def _work(self, task: Task) -> None:
        while True:
            target, args = task
            try:
                target(*args)
            except Exception:  # as a thread of its own would: report it, and go on serving
                traceback.print_exc()
            del target, args, task  # hold nothing of a finished task while idle
            with self._cond:
                self._idle += 1
                if not self._tasks:
                    self._cond.wait(self.idle_seconds)
                self._idle -= 1
                if not self._tasks:
                    return  # idle for long: leave (a task queued meanwhile has its own worker)
                task = self._tasks.popleft()
