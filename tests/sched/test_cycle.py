"""Cycle rules: FIFO, queue priority, skipped jobs/queues, scheduling off, equivalence classes."""
from .sched_helpers import cycle, job, node, queue, running


def _ran(result: object) -> list:  # type: ignore[type-arg]
    return [run.jobid for run in result.runs]  # type: ignore[attr-defined]


def test_fifo_by_submission() -> None:
    """Default sched_config (no job_sort_key): jobs of one queue run in submission order."""
    jobs = [job(3, qtime=30), job(1, qtime=10), job(2, qtime=20)]
    assert _ran(cycle({"vm": node(2)}, jobs)) == ["1.vm", "2.vm"]


def test_job_priority_is_not_a_sort_key_by_default() -> None:
    """Job Priority (-p) only orders jobs when job_sort_key says so; the default is FIFO."""
    first, second = job(1), job(2)
    second["Priority"] = "1000"
    assert _ran(cycle({"vm": node(1)}, [first, second])) == ["1.vm"]


def test_queue_priority_first() -> None:
    """by_queue: True: a higher-Priority queue's jobs are considered first."""
    queues = {"workq": queue(0), "high": queue(100)}
    jobs = [job(1), job(2, queue_name="high")]
    result = cycle({"vm": node(1)}, jobs, queues=queues)
    assert _ran(result) == ["2.vm"]
    assert result.comments == {"1.vm": "Not Running: Not enough free nodes available"}


def test_not_fifo_strict_smaller_jobs_fill_in() -> None:
    """strict_ordering is false: a later job that fits runs although an earlier one waits."""
    jobs = [job(1, ncpus="2"), job(2)]
    busy = running(9, "(vm:ncpus=1)", "vm/0")
    result = cycle({"vm": node(2)}, [busy] + jobs)
    assert _ran(result) == ["2.vm"]
    assert result.comments["1.vm"] == \
        "Not Running: Insufficient amount of resource: ncpus (R: 2 A: 1 T: 2)"


def test_scheduling_false_runs_nothing() -> None:
    """Extra n01: with server scheduling = False nothing starts."""
    assert cycle({"vm": node(2)}, [job(1)], server={"scheduling": "False"}) == ([], {}, [], [])


def test_held_waiting_and_finished_jobs_are_skipped() -> None:
    """Only Q jobs are considered: H (held, dependencies), W (-a in the future), R, F are not."""
    held, waiting, done = job(1, state="H"), job(2, state="W"), job(3, state="F")
    result = cycle({"vm": node(8)}, [held, waiting, done])
    assert result == ([], {}, [], [])


def test_execution_time_in_future_is_skipped() -> None:
    """A queued job whose Execution_Time is still ahead does not run yet."""
    later = job(1)
    later["Execution_Time"] = "9000"
    assert _ran(cycle({"vm": node(2)}, [later], now=5000)) == []
    assert _ran(cycle({"vm": node(2)}, [later], now=9000)) == ["1.vm"]


def test_stopped_and_route_queues_are_skipped() -> None:
    """Queues with started = False, and routing queues, run nothing."""
    queues = {"stopped": queue(started="False"), "route": queue(queue_type="Route"),
              "workq": queue()}
    jobs = [job(1, queue_name="stopped"), job(2, queue_name="route"), job(3)]
    assert _ran(cycle({"vm": node(8)}, jobs, queues=queues)) == ["3.vm"]


def test_array_parent_is_not_run() -> None:
    """An array parent (array = True) never runs itself; its subjobs do."""
    parent = job(1)
    parent["array"] = "True"
    assert _ran(cycle({"vm": node(8)}, [parent, job(2)])) == ["2.vm"]


def test_resources_assigned_from_the_server_win() -> None:
    """The server's resources_assigned is the truth for what is in use on a vnode."""
    full = node(2, extra={"resources_assigned.ncpus": "2"})
    result = cycle({"vm": full}, [job(1)])
    assert result.comments == {"1.vm": "Not Running: Not enough free nodes available"}


def test_assigned_memory_in_bytes() -> None:
    """resources_assigned.mem may come in bytes (``...b``); it still counts."""
    used = node(4, mem="2gb", extra={"resources_assigned.mem": "%db" % (2 << 30)})
    result = cycle({"vm": used}, [job(1, select="1:ncpus=1:mem=1gb")])
    assert result.comments == {
        "1.vm": "Not Running: Insufficient amount of resource: mem (R: 1gb A: 0kb T: 2gb)"}


def test_many_queued_jobs_few_slots() -> None:
    """10,000 queued jobs and two free cpus: two run, the rest share one comment (the cycle
    evaluates each equivalence class once)."""
    jobs = [job(seq) for seq in range(10000)]
    result = cycle({"vm": node(2)}, jobs)
    assert _ran(result) == ["0.vm", "1.vm"]
    assert len(result.comments) == 9998
    assert set(result.comments.values()) == {"Not Running: Not enough free nodes available"}


def test_later_jobs_see_earlier_placements() -> None:
    """Within one cycle each run consumes its cpus before the next job is placed."""
    jobs = [job(seq, ncpus="3") for seq in range(4)]
    runs = cycle({"a": node(4), "b": node(4)}, jobs).runs
    assert [(run.jobid, run.exec_vnode) for run in runs] == [
        ("0.vm", "(a:ncpus=3)"), ("1.vm", "(b:ncpus=3)")]
