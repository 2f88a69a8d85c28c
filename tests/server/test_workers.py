"""Reused threads for the daemons' short tasks (fake_pbs/workers.py): every task runs, none waits
for another (an event stream may hold its worker for a job's whole life), and a finished
worker takes the next task instead of a new thread being started (docs/performance.md)."""
import threading
import time

from fake_pbs.workers import Workers


def test_tasks_run_concurrently_and_idle_workers_are_reused() -> None:
    workers = Workers("test", idle_seconds=5.0)
    release = threading.Event()
    started = threading.Semaphore(0)
    threads = set()
    lock = threading.Lock()

    def blocked() -> None:
        with lock:
            threads.add(threading.get_ident())
        started.release()
        release.wait(10.0)

    for _ in range(3):  # three at once: none may wait for another to finish
        workers.spawn(blocked)
    for _ in range(3):
        assert started.acquire(timeout=10.0)
    assert len(threads) == 3
    release.set()
    done = threading.Event()
    seen = []

    def quick() -> None:
        seen.append(threading.get_ident())
        done.set()

    for _ in range(200):  # let the three go idle, then reuse them
        if workers._idle == 3:
            break
        time.sleep(0.05)
    assert workers._idle == 3
    workers.spawn(quick)
    assert done.wait(10.0)
    assert seen[0] in threads


def test_a_failing_task_does_not_end_its_worker() -> None:
    workers = Workers("test", idle_seconds=5.0)
    done = threading.Event()

    def fail() -> None:
        raise ValueError("task failed")

    workers.spawn(fail)
    for _ in range(200):
        if workers._idle == 1:
            break
        time.sleep(0.05)
    assert workers._idle == 1  # the worker outlived its task's exception
    workers.spawn(done.set)
    assert done.wait(10.0)
