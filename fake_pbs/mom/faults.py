"""Injected faults, per host: what a real execution host may suffer, on demand.

``{"op": "fault", "fault": NAME}`` arms NAME on the mom that receives it; ``"clear"`` disarms all.
Faults persist in ``faults.json`` so they survive a mom restart, and stay armed until cleared.

========  =========================================================================================
fork      the job shell cannot be started: exception + finish -3 (JOB_EXEC_RETRY), abort hooks run
join      as a sister: the join fails after execjob_begin; abort hooks run here, primary gets -30
jobdir    the job directory cannot be created: primary -3; as a sister, join fails (abort hooks)
comm      as a sister: join requests go unanswered (connection dropped): primary gets -30
slow      a loaded host: the mom takes ``SLOW_START`` seconds before it takes a job in, so the
          server's signals meet a run it does not know yet (they must wait for the start)
bottomup  PBS's kill order: a kill's SIGTERM reaches the job's children deepest first and the
          job shell ``BOTTOM_UP_GAP`` seconds later (kill_task walks the process tree
          bottom-up), so a shell may see its child die and run on (write an exit code file)
========  =========================================================================================
"""
import threading
from pathlib import Path
from typing import List

from fake_pbs.mom.durable import read_json, write_json

KNOWN = ("fork", "join", "jobdir", "comm", "slow", "bottomup")
SLOW_START = 2.0
BOTTOM_UP_GAP = 0.5


class Faults:
    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        try:
            stored = read_json(path) or {}
        except (OSError, ValueError):  # not the mom's own, or torn: no fault armed
            stored = {}
        self._armed = set(str(name) for name in stored.get("armed", []) if name in KNOWN)

    def arm(self, name: str) -> List[str]:
        """Arm ``name`` (``clear`` disarms every fault); return the armed faults."""
        with self._lock:
            if name in ("clear", "none", ""):
                self._armed.clear()
            elif name in KNOWN:
                self._armed.add(name)
            else:
                raise ValueError(name)
            write_json(self._path, {"armed": sorted(self._armed)})
            return sorted(self._armed)

    def armed(self, name: str) -> bool:
        with self._lock:
            return name in self._armed

    def listing(self) -> List[str]:
        with self._lock:
            return sorted(self._armed)
