"""The retry discipline of read-only cases (harness/retry.py), on a made-up clock.

No cluster: the reads are scripted answers, the clock moves with each read and pause.
"""
from typing import Callable, List, Tuple

import pytest

from .harness.retry import (CAPTURE_WAIT_CAP, LAG_SHARE, STABLE_READS, STABLE_SECONDS,
                            Timeline, capture_seconds, read_until)


class Clock:
    """A clock that moves only when the replay reads (``cost`` each) or pauses."""

    def __init__(self, cost: float = 0.1) -> None:
        self.now = 100.0
        self.cost = cost

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def reader(clock: Clock, answer: Callable[[float], str]) -> Callable[[], Tuple[str, None]]:
    """Each read costs ``clock.cost`` and gives ``answer(time the read began)``."""
    def read() -> Tuple[str, None]:
        began = clock.now
        clock.now += clock.cost
        return answer(began), None
    return read


def test_a_match_or_a_command_with_side_effects_is_read_once() -> None:
    clock = Clock()
    reads = read_until(reader(clock, lambda t: "R"), "R", again=True, due=clock.now,
                       deadline=clock.now + 15, clock=clock, sleep=clock.sleep)
    assert (reads.got, reads.attempts) == ("R", 1)
    reads = read_until(reader(clock, lambda t: "Q"), "R", again=False, due=clock.now,
                       deadline=clock.now + 15, clock=clock, sleep=clock.sleep)
    assert (reads.got, reads.attempts) == ("Q", 1)


@pytest.mark.parametrize("cost", [0.05, 1.5])
def test_an_unchanged_answer_is_final_after_the_window(cost: float) -> None:
    """Past the capture's time, an answer that stays the same STABLE_SECONDS and STABLE_READS
    reads is the answer (a heavy load's slow reads stretch the window)."""
    clock = Clock(cost)
    start = clock.now
    reads = read_until(reader(clock, lambda t: "Q"), "R", again=True, due=start,
                       deadline=start + 15, clock=clock, sleep=clock.sleep)
    assert reads.got == "Q"
    assert reads.attempts >= STABLE_READS + 1
    assert clock.now - start >= STABLE_SECONDS
    if cost > STABLE_SECONDS / STABLE_READS:  # slow reads: the reads make the window
        assert reads.attempts == STABLE_READS + 1
    else:
        assert clock.now - start < STABLE_SECONDS + 1.0 + cost


def test_an_unchanged_answer_is_read_on_until_the_capture_time() -> None:
    """Extra i06b: PBS printed the walltime-killed job's files 22 s after qsub (the kill came
    at the mom's poll); the fake's answer stays the same until then, and is read on."""
    clock = Clock()
    due = clock.now + 22
    reads = read_until(reader(clock, lambda t: "killed" if t >= due - 0.5 else "running"),
                       "killed", again=True, due=due, deadline=due + 15, clock=clock,
                       sleep=clock.sleep)
    assert reads.got == "killed"
    assert reads.plateau >= 20


def test_a_late_change_after_the_capture_time_restarts_the_window() -> None:
    clock = Clock()
    start = clock.now
    reads = read_until(reader(clock, lambda t: "E" if t < start + 1.5 else "F"), "X",
                       again=True, due=start, deadline=start + 15, clock=clock,
                       sleep=clock.sleep)
    assert reads.got == "F"
    assert clock.now - start >= 1.5 + STABLE_SECONDS


def test_an_answer_that_keeps_changing_stops_at_the_deadline() -> None:
    clock = Clock()
    start = clock.now
    answers: List[str] = []

    def answer(t: float) -> str:
        answers.append("read %d" % len(answers))
        return answers[-1]
    reads = read_until(reader(clock, answer), "X", again=True, due=start, deadline=start + 15,
                       clock=clock, sleep=clock.sleep)
    assert reads.got == answers[-1]
    assert start + 15 <= clock.now < start + 16.2


def test_timeline_due_is_the_capture_elapsed_time_past_the_anchor() -> None:
    timeline = Timeline()
    assert timeline.due("2026-11-21T20:58:38.000000Z", 50.0) == 50.0  # no anchor yet
    timeline.anchor("2026-11-21T20:58:15.500000Z", 10.0)  # i06_qsub_wt3
    assert timeline.due("2026-11-21T20:58:38.000000Z", 12.0) == pytest.approx(32.5)
    assert timeline.due("2026-11-21T20:58:38.000000Z", 40.0) == 40.0  # already later
    assert timeline.due("2026-11-21T21:27:28.000000Z", 12.0) == 10.0 + CAPTURE_WAIT_CAP
    assert timeline.window("2026-11-21T20:58:16.000000Z") == STABLE_SECONDS  # 0.5 s later
    assert timeline.window("2026-11-21T20:58:38.000000Z") == pytest.approx(2.25)  # 22.5 s
    assert capture_seconds("2026-11-21T20:58:38.250000Z") - capture_seconds(
        "2026-11-21T20:58:15.500000Z") == pytest.approx(22.75)


def test_a_long_capture_wait_widens_the_window() -> None:
    """Release f24: PBS held the job 67 s after qsub (21 execjob_abort attempts); the fake's
    last attempt ends 5 s after that under load, its answer unchanged for 5 s past the due
    time: still read on (LAG_SHARE of 67 s), and it matches."""
    timeline = Timeline()
    timeline.anchor("2026-11-21T19:59:54.290000Z", 0.0)  # f21_qsub_abort_sleep
    stamp = "2026-11-21T20:01:01.150000Z"  # f24_qstat_fxjson_abort_sleep_final
    assert timeline.window(stamp) == pytest.approx(LAG_SHARE * 66.86)
    clock = Clock()
    clock.now = 60.0  # after plan.py's 60 s wait
    due = timeline.due(stamp, clock.now)
    reads = read_until(reader(clock, lambda t: "H" if t >= due + 5 else "R run_count 21"), "H",
                       again=True, due=due, deadline=due + 15, window=timeline.window(stamp),
                       clock=clock, sleep=clock.sleep)
    assert reads.got == "H"
