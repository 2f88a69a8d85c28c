"""The mom's resource-poll schedule under the ``pbs`` pace (fake_pbs/pace.py).

PBS (mom_main.c, requests.c, start_exec.c): a poll happens once ``last + next_sample_time`` has
passed; each poll grows the interval by ``(max - min + 19) / 20`` (6 s with the defaults 10 and
120) up to ``$max_check_poll``; a job start and a TermJob set it back to ``$min_check_poll``.  It
is why a qdel'd job stays R for seconds (e01: ``jobs = 15.vm/1`` 1.4 s after qdel; b05b: 8 s).
"""
from fake_pbs import pace


def test_idle_mom_polls_every_max_check_poll() -> None:
    """A mom with no job polls every $max_check_poll (next_sample_time starts at the maximum)."""
    clock = pace.PollClock(1000.0)
    assert clock.next_poll(1000.0) == 1120.0
    assert clock.next_poll(1130.0) == 1240.0


def test_start_then_polls_grow_by_six_seconds() -> None:
    """After a job start the mom polls 10 s after its last poll, then 16, 22 ... s apart."""
    clock = pace.PollClock(1000.0)
    clock.reset(1005.0)                   # the last poll (1000) + 10 is still ahead
    assert clock.next_poll(1005.0) == 1010.0
    assert clock.next_poll(1010.0) == 1026.0
    assert clock.next_poll(1026.0) == 1048.0


def test_termjob_sets_the_next_poll_ten_seconds_after_the_last() -> None:
    """TermJob ("poll ASAP in case job ignores SIGTERM") does not poll at once: the next poll is
    $min_check_poll after the previous one, so the end is seen 0..10 s after the signal."""
    clock = pace.PollClock(1000.0)
    clock.reset(1000.5)                   # job start
    assert clock.next_poll(1030.0) == 1048.0  # polls at 1010 and 1026 went by
    clock.reset(1030.0)                   # TermJob
    assert clock.next_poll(1030.0) == 1036.0


def test_overdue_reset_polls_at_once() -> None:
    """When $min_check_poll has already passed since the last poll, the main loop polls at once
    (the reset instant) and the next poll is one grown interval later."""
    clock = pace.PollClock(1000.0)
    clock.reset(1050.0)
    assert clock.last == 1050.0
    assert clock.next_poll(1050.0) == 1066.0


def test_pace_profiles() -> None:
    """``fast`` (default, also for unknown names) ends jobs at once; ``pbs`` has PBS's delays."""
    assert pace.of({}).name == "fast" and not pace.of({"pace": "nope"}).mom_poll
    slow = pace.of({"pace": "pbs"})
    assert slow.mom_poll and slow.obit_latency > 0 and slow.e_phase > 0
    assert slow.first_update > slow.obit_latency  # a job ending at once obits at substate 41
