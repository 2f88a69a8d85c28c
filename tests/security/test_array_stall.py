"""One user's big job array must not stall the others' requests (issue 21, part 5).

PBS keeps an array's subjobs that have not run in the parent's table (array_func.c) and makes
each a job only when it runs (create_subjob); deleting the array drops its queued subjobs from
the table at once (req_delete.c).  So ``qsub -J 0-9999`` and its ``qdel`` cost about what one
job costs, and another user's ``qstat`` meanwhile is answered as usual.  The bound here is
generous (a loaded 2-core machine); bench/array_stall.py prints the latencies.
"""
import threading
import time
from typing import List, Tuple

from ..reliability.rig import Rig

#: Each of pbsuser2's qstat commands must be answered within this many seconds (before the
#: change a qdel of the array held the server for about 30 s: every qstat timed out).
BOUND = 2.0


def _probe(rig: Rig, stop: threading.Event, seen: List[Tuple[float, int]]) -> None:
    deadline = time.monotonic() + 120
    while not stop.is_set() and time.monotonic() < deadline:
        began = time.monotonic()
        done = rig.run(["qstat"], user="pbsuser2")
        seen.append((time.monotonic() - began, done.returncode))
        time.sleep(0.05)


def test_big_array_does_not_stall_other_users(rig: Rig) -> None:
    seen: List[Tuple[float, int]] = []
    stop = threading.Event()
    prober = threading.Thread(target=_probe, args=(rig, stop, seen), daemon=True)
    prober.start()
    try:
        time.sleep(0.5)
        parent = rig.qsub("sleep 600", "-J", "0-9999", user="pbsuser")
        time.sleep(1.0)  # subjobs start, the scheduler considers the array
        done = rig.run(["qdel", parent], user="pbsuser")
        assert done.returncode == 0, done.stderr
        rig.wait(parent, "F", timeout=60)
        time.sleep(0.5)
    finally:
        stop.set()
        prober.join(timeout=130)
    assert len(seen) >= 3, seen
    assert all(code == 0 for _, code in seen), seen
    slowest = max(took for took, _ in seen)
    assert slowest < BOUND, "a qstat of pbsuser2 took %.2f s: %r" % (slowest, seen)
