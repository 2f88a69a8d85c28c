"""The mom's resource-poll schedule under the ``pbs`` pace (fake_pbs/pace.py).

PBS (mom_main.c, requests.c, start_exec.c): a poll happens once ``last + next_sample_time`` has
passed; each poll grows the interval by ``(max - min + 19) / 20`` (6 s with the defaults 10 and
120) up to ``$max_check_poll``; a TermJob sets it back to ``$min_check_poll``, a job start samples
at once (``time_resc_updated`` = now) and sets it to ``$min_check_poll`` (i06d).  It
is why a qdel'd job stays R for seconds (e01: ``jobs = 15.vm/1`` 1.4 s after qdel; b05b: 8 s).
Only a poll that finds jobs moves the last-poll time (an idle mom's polls sample nothing), and an
orphaned task is declared exited no earlier than 10 s after its start (mom_mach.c cput_sum).
"""
from fake_pbs import pace


def test_idle_mom_polls_sample_nothing() -> None:
    """mom_main.c: with no job the due polls only grow next_sample_time to $max_check_poll;
    time_resc_updated stays at the last poll that found jobs."""
    clock = pace.PollClock(1000.0)
    assert clock.next_poll(1000.0) == 1120.0
    assert clock.next_poll(5000.0) == 1120.0
    assert clock.last == 1000.0


def test_start_after_idle_samples_then_polls_ten_seconds_later_i06d() -> None:
    """extra i06d_wt_mom: a job started on an idle mom is polled 10 s after its start (its
    walltime limit 3 is found exceeded at ``walltime 10``), then 16, 22 ... s apart
    (start_exec.c: time_resc_updated = now, next_sample_time = $min_check_poll)."""
    clock = pace.PollClock(1000.0)
    clock.set_jobs(1050.0, 1)
    clock.started(1050.0)
    assert clock.last == 1050.0
    assert clock.next_poll(1050.0) == 1060.0
    assert clock.next_poll(1060.0) == 1076.0
    assert clock.next_poll(1076.0) == 1098.0


def test_a_start_is_no_poll_for_the_other_jobs_k03n() -> None:
    """extra k03n_qsig_mom: 387.vm and 388.vm start a moment apart; 388.vm's start sample moves
    the schedule (next poll 10 s after it) but is no poll for 387.vm, which logs its second
    ``SID is`` only at a poll proper."""
    clock = pace.PollClock(1000.0)
    clock.set_jobs(1062.0, 1)
    clock.started(1062.0)                 # 387.vm
    clock.set_jobs(1062.5, 2)
    clock.started(1062.5)                 # 388.vm
    assert clock.last_poll(1070.0) == 1000.0  # no poll yet: only start samples
    assert clock.next_poll(1070.0) == 1072.5
    assert clock.last_poll(1073.0) == 1072.5


def test_start_soon_after_a_poll_restarts_the_schedule() -> None:
    """A start a few seconds after the last sampling poll (the previous job's) samples again:
    the next poll is that start + 10 s, for every job at the mom."""
    clock = pace.PollClock(1000.0)
    clock.set_jobs(1000.0, 1)
    clock.started(1000.0)
    clock.set_jobs(1004.0, 0)             # that job left
    clock.set_jobs(1005.0, 1)
    clock.started(1005.0)
    assert clock.next_poll(1005.0) == 1015.0


def test_termjob_sets_the_next_poll_ten_seconds_after_the_last() -> None:
    """TermJob ("poll ASAP in case job ignores SIGTERM") does not poll at once: the next poll is
    $min_check_poll after the previous one."""
    clock = pace.PollClock(1000.0)
    clock.set_jobs(1050.0, 1)
    clock.started(1050.0)                 # job start: samples at once
    assert clock.next_poll(1065.0) == 1076.0  # the poll at 1060 went by
    clock.reset(1065.0)                   # TermJob
    assert clock.next_poll(1065.0) == 1070.0


def test_orphan_seen_not_before_the_job_is_ten_seconds_old() -> None:
    """master g12: TermJob 3 s after the start; the task is declared exited at the first poll
    once the job is 10 s old (cput_sum's grace): start + 10 s there."""
    clock = pace.PollClock(1000.0)
    clock.set_jobs(1100.0, 1)
    clock.started(1100.0)                 # start: samples at once
    clock.reset(1103.0)                   # TermJob: next poll 1110
    assert clock.orphan_seen(1103.0, 1100.0) == 1110.0
    assert clock.last == 1100.0           # working it out did not move the clock


def test_orphan_seen_waits_past_an_early_poll() -> None:
    """A poll due before the job is 10 s old does not declare it ended; the next one does."""
    clock = pace.PollClock(1000.0)
    clock.set_jobs(1000.0, 1)
    clock.started(1000.0)                 # an earlier job's start (last 1000)
    clock.reset(1009.0)                   # TermJob at 1009 for a job started at 1002
    assert clock.orphan_seen(1009.0, 1002.0) == 1026.0  # 1010 is too early; then +16


def test_pace_profiles() -> None:
    """``fast`` (default, also for unknown names) ends jobs at once; ``pbs`` has PBS's delays."""
    assert pace.of({}).name == "fast" and not pace.of({"pace": "nope"}).mom_poll
    slow = pace.of({"pace": "pbs"})
    assert slow.mom_poll and slow.obit_latency > 0 and slow.e_phase > 0
    assert slow.first_update > slow.obit_latency  # a job ending at once obits at substate 41
