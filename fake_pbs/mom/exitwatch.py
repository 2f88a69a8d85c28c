"""One thread of the mom that wakes each job's watcher when its shepherd exits (Linux pidfds).

The shepherd writes ``exit.json`` and exits; without this it also connected to the mom to say so
(``shepherd_exit``), which cost every job a connection, a thread and a reply in the mom and a
socket round trip in the shepherd.  Instead the mom opens a pidfd of the shepherd and one thread
polls them all (epoll): the shepherd's exit is the signal.  Where pidfds are not available
(:data:`SUPPORTED` false: Linux < 5.3, other systems) the shepherd notifies as before; a job
that could not be watched (no descriptor left) is found by its watcher's poll.
"""
import os
import select
import threading
from typing import Dict, Optional

from fake_pbs.mom.procs import same_process_alive

SUPPORTED = hasattr(os, "pidfd_open") and hasattr(select, "epoll")
_TICK = 1.0  # seconds between checks that the thread is still wanted (it never ends a watch)


class ExitWatch:
    """Sets a job's wake event when the process it watches ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._epoll: Optional["select.epoll"] = None
        self._events: Dict[int, threading.Event] = {}

    def watch(self, pid: int, ticks: Optional[int], wake: threading.Event) -> bool:
        """Set ``wake`` once process ``pid`` (started at ``ticks``) ends; at once when it has
        already ended or is another process.  False when it cannot be watched."""
        if not SUPPORTED or pid <= 0:
            return False
        try:
            fd = os.pidfd_open(pid)
        except OSError:
            if not same_process_alive(pid, ticks):
                wake.set()  # gone already (ESRCH): nothing to wait for
                return True
            return False
        # Opened after the process was recorded: make sure the pid was not reused meanwhile.
        if not same_process_alive(pid, ticks):
            os.close(fd)
            wake.set()
            return True
        with self._lock:
            if self._epoll is None:
                self._epoll = select.epoll()
                threading.Thread(target=self._run, args=(self._epoll,), name="exitwatch",
                                 daemon=True).start()
            self._events[fd] = wake
            self._epoll.register(fd, select.EPOLLIN)
        return True

    def _run(self, epoll: "select.epoll") -> None:
        while True:
            ready = epoll.poll(_TICK)
            for fd, _ in ready:
                with self._lock:
                    wake = self._events.pop(fd, None)
                    epoll.unregister(fd)
                os.close(fd)
                if wake is not None:
                    wake.set()
