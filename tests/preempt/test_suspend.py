"""Preemption by suspension (default preempt_order SCR; master g40-g44, extra k06) and the
resume of the suspended job once the express job is done."""
import re

from .preemptrig import NodeSampler, PreemptRig, index_of


def test_scr_suspends_then_resumes(rig: PreemptRig) -> None:
    """Master g40-g44: with SCR the victim is suspended (S, substate 45, its cpus freed:
    resources_assigned.ncpus counts only the express job), the express job runs; when it ends
    the scheduler resumes the victim (server ``resume job by Scheduler@vm``, sched ``Job run``).
    C is skipped (no checkpoint action) and R is never needed."""
    rig.setup("SCR")
    with NodeSampler(rig) as sampler:
        victim = rig.submit("sleep 30")
        rig.wait(victim, "R")
        urgent = rig.submit("sleep 2", "-q", "expressq")
        rig.wait(urgent, "R")
        held = rig.job(victim)
        assert held["job_state"] == "S" and held["substate"] == "45", held
        node = dict(rig.call("statnode", name="vm", vnodes=True)[0]["attrs"])
        assert node["resources_assigned.ncpus"] == "1"
        rig.wait(urgent, "F")
        again = rig.wait(victim, "R")
        assert again["substate"] == "42" and again["run_count"] == "1"
    # The test's own waits saw R, S, R in that order; the sampler, polling, may miss the short
    # first R (psijci CI, under load) but must never see the victim go back to Q (a requeue).
    assert re.fullmatch("Q?R?SR", sampler.states_seen[victim]), sampler.states_seen
    sched = rig.log_lines("sched")
    suspended = index_of(sched, ";%s;Job preempted by suspension" % victim)
    assert 0 <= suspended < index_of(sched, ";%s;Job run" % urgent)
    assert index_of(sched, ";%s;Job run" % victim, last=True) > suspended
    server = rig.log_lines("server")
    for message in ("suspend job by Scheduler@vm", "job signaled with suspend by Scheduler@vm",
                    "resume job by Scheduler@vm", "job signaled with resume by Scheduler@vm"):
        assert index_of(server, ";%s;%s" % (victim, message)) >= 0, message
    assert sampler.samples > 0 and sampler.violations == []
    rig.sh("qdel", victim)


def test_several_victims_for_one_multi_chunk_job(rig: PreemptRig) -> None:
    """pbs_preemption.py (vnode resource contention): a ``select=2:ncpus=1`` express job on a
    2-cpu node needs both running 1-cpu jobs out of the way: both are suspended, the express
    job runs, then both resume."""
    rig.setup("S", ncpus=2)
    with NodeSampler(rig) as sampler:
        first = rig.submit("sleep 30")
        second = rig.submit("sleep 30")
        rig.wait(first, "R")
        rig.wait(second, "R")
        urgent = rig.submit("sleep 2", "-q", "expressq", "-l", "select=2:ncpus=1")
        rig.wait(urgent, "R")
        assert rig.job(first)["job_state"] == "S"
        assert rig.job(second)["job_state"] == "S"
        rig.wait(urgent, "F")
        rig.wait(first, "R")
        rig.wait(second, "R")
    sched = rig.log_lines("sched")
    run = index_of(sched, ";%s;Job run" % urgent)
    for victim in (first, second):
        assert 0 <= index_of(sched, ";%s;Job preempted by suspension" % victim) < run
    assert sampler.samples > 0 and sampler.violations == []
    rig.sh("qdel", first, second)


def test_multi_chunk_job_deletes_several_victims(rig: PreemptRig) -> None:
    """As above with D: both victims end F/91 (271) before the express job starts."""
    rig.setup("D", ncpus=2)
    with NodeSampler(rig) as sampler:
        first = rig.submit("sleep 30")
        second = rig.submit("sleep 30")
        rig.wait(first, "R")
        rig.wait(second, "R")
        urgent = rig.submit("sleep 2", "-q", "expressq", "-l", "select=2:ncpus=1")
        rig.wait(urgent, "R")
        for victim in (first, second):
            done = rig.wait(victim, "F")
            assert done["Exit_status"] == "271", done
    server = rig.log_lines("server")
    run = index_of(server, ";%s;Job Run at request of" % urgent)
    for victim in (first, second):
        assert 0 <= index_of(server, ";%s;Obit received" % victim) < run
    assert sampler.samples > 0 and sampler.violations == []


def test_only_lower_priority_jobs_are_victims(rig: PreemptRig) -> None:
    """preempt_prio ``express_queue, normal_jobs``: a normal job never preempts another normal
    job; it waits (comment ``Not Running: ...``) while the first runs."""
    rig.setup("D")
    first = rig.submit("sleep 30")
    rig.wait(first, "R")
    second = rig.submit("sleep 1")
    rig.wait_log("sched", ";%s;Considering job to run" % second)
    assert rig.job(first)["job_state"] == "R"
    assert rig.job(second)["job_state"] == "Q"
    rig.sh("qdel", first)


def test_qrun_on_a_full_node_suspends_a_running_job(rig: PreemptRig) -> None:
    """Extra k06c/k06d/k06h/k06i: root's ``qrun`` of a queued job (same queue, no express) when
    the node is full: the scheduler gets the job ("Received qrun request"), suspends the running
    job (default SCR: ``Job preempted by suspension``; server ``signal job request received``,
    ``suspend job by Scheduler@vm``) and runs the qrun'd job itself (``Job Run at request of
    Scheduler@vm``, comment ``Job run at ...``); qrun returns 0 once it runs, and the victim
    resumes when the qrun'd job ends."""
    rig.setup("SCR")
    with NodeSampler(rig) as sampler:
        victim = rig.submit("sleep 30")
        rig.wait(victim, "R")
        forqrun = rig.submit("sleep 2")
        rig.wait_log("sched", ";%s;Not enough free nodes available" % forqrun)
        assert rig.job(forqrun)["job_state"] == "Q"
        rig.sh("qrun", forqrun)
        ran = rig.job(forqrun)
        assert ran["job_state"] == "R", ran
        assert ran["comment"].startswith("Job run at "), ran["comment"]
        held = rig.job(victim)
        assert held["job_state"] == "S" and held["substate"] == "45", held
        rig.wait(forqrun, "F")
        rig.wait(victim, "R")
    sched = rig.log_lines("sched")
    received = index_of(sched, ";%s;Received qrun request" % forqrun)
    suspended = index_of(sched, ";%s;Job preempted by suspension" % victim)
    assert 0 <= received < suspended < index_of(sched, ";%s;Job run" % forqrun)
    server = rig.log_lines("server")
    assert index_of(server, ";%s;suspend job by Scheduler@vm" % victim) < index_of(
        server, ";%s;Job Run at request of Scheduler@vm on exec_vnode (vm:ncpus=1)" % forqrun)
    assert sampler.samples > 0 and sampler.violations == []
    rig.sh("qdel", victim)
