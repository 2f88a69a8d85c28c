"""Preemption and signals meeting a run the mom has not taken in yet (a loaded host).

PBS's server sends a run to the mom and the job is R at once; a preempt request, qsig or qdel
that follows at once must still reach the job when the mom takes it.  The ``slow`` fault holds
the mom 2 s before it takes a job in.  Before the fix, a requeue sent in that window ended the
job on the server while the mom went on to run it: an orphan holding the node's only cpu, and
the scheduler stuck waiting for it (the CI failure of session 2).
"""
import os
import time
from typing import List

from fake_pbs import control
from fake_pbs.testing import wait_for
from .preemptrig import NodeSampler, PreemptRig, index_of, ran_after

VICTIM = "sleep 60"
URGENT = "sleep 2"


def _slow(rig: PreemptRig) -> None:
    control.fault(rig.home, "vm", "slow")


def _session_states(sid: int) -> List[str]:
    """The states (/proc/PID/stat) of the live processes of session ``sid``."""
    states = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as handle:
                fields = handle.read().rsplit(b") ", 1)[-1].split()
        except OSError:
            continue
        if len(fields) > 3 and fields[3] == str(sid).encode() and fields[0] not in (b"Z", b"X"):
            states.append(fields[0].decode())
    return states


def _stopped(sid: int) -> bool:
    """The job's session is stopped by a signal: its processes are stopped (state T), but for
    a parent blocked in ``vfork`` until its stopped child execs (state D: dash, an ordinary
    user's ``/bin/sh``, runs commands through vfork; the kernel shows such a parent D, not T,
    while the child is stopped)."""
    states = _session_states(sid)
    return bool({"T", "t"} & set(states)) and all(s in ("T", "t", "D") for s in states)


def test_requeue_reaches_a_run_the_mom_has_not_taken_yet(rig: PreemptRig) -> None:
    """preempt_order R: the victim, R on the server but not yet on the mom, is requeued when the
    mom takes it (Exit_status -11, back to Q); the express job runs; no orphan, no overlap."""
    rig.setup("R")
    _slow(rig)
    with NodeSampler(rig) as sampler:
        victim = rig.submit(VICTIM, "-r", "y")
        rig.wait(victim, "R", timeout=10, started=False)
        urgent = rig.submit(URGENT, "-q", "expressq")
        rig.wait(urgent, "R", timeout=30)
        back = rig.job(victim)
        assert back["job_state"] == "Q" and back["Exit_status"] == "-11", back
        rig.wait(urgent, "F", timeout=30)
        rig.wait(victim, "R", run_count=2, timeout=30)
    assert index_of(rig.log_lines("sched"), victim, "Job preempted by requeuing") >= 0
    assert ran_after(rig, victim, urgent) is None, ran_after(rig, victim, urgent)
    assert sampler.violations == []
    rig.sh("qdel", victim)


def test_suspend_reaches_a_run_the_mom_has_not_taken_yet(rig: PreemptRig) -> None:
    """preempt_order S: the SIGSTOP waits for the job's processes; the victim is really stopped
    (its shell writes nothing while suspended, maybe not even its first tick) and resumes after
    the express job."""
    rig.setup("S")
    _slow(rig)
    with NodeSampler(rig) as sampler:
        # PBS starts a job in its owner's home: the ticks go to the submission directory
        victim = rig.submit('for i in $(seq 1 40); do date +%s >> "$PBS_O_WORKDIR/ticks"; '
                            'sleep 0.25; done')
        rig.wait(victim, "R", timeout=10, started=False)
        # The express job runs until the test lets it end (bounded: 60 s), so the victim stays
        # suspended however late its start report comes (under load a sleep of 12 s had ended
        # and the victim had resumed before its shell was seen stopped).
        urgent = rig.submit('i=0; until [ -e "$PBS_O_WORKDIR/go" ] || [ $i -ge 600 ]; do '
                            'sleep 0.1; i=$((i+1)); done', "-q", "expressq")
        rig.wait(urgent, "R", timeout=30)
        assert rig.job(victim)["job_state"] == "S"
        ticks = rig.workdir(victim) / "ticks"
        # The held SIGSTOP goes out when the mom reports the start (session_id), which on a
        # loaded host may come well after the express job ran: wait for the shell to be stopped
        # (its first tick may precede the stop) before sampling, not for a fixed time.
        wait_for(lambda: "session_id" in rig.job(victim), 30, "the victim's start report")
        shell = int(rig.job(victim)["session_id"])
        wait_for(lambda: _stopped(shell), 30, lambda: "the victim's session %d was not stopped "
                 "by the SIGSTOP (states %s); the victim %r; its log lines:\n%s" % (
                     shell, _session_states(shell), rig.job(victim), "\n".join(
                         line for daemon in ("server", "mom") for line in rig.log_lines(daemon)
                         if victim in line)))
        before = ticks.read_text() if ticks.exists() else ""
        time.sleep(1.5)  # a running victim would add about six ticks meanwhile
        assert rig.job(urgent).get("job_state") == "R"
        after = ticks.read_text() if ticks.exists() else ""
        assert after == before, "the suspended victim went on running"
        (rig.workdir(urgent) / "go").touch()
        rig.wait(urgent, "F", timeout=40)
        rig.wait(victim, "R", timeout=30)
        wait_for(ticks.exists, 30, "the resumed victim's ticks")  # the file is the right one
    assert sampler.violations == []
    rig.sh("qdel", victim)


def test_qdel_force_and_reset_kill_reach_a_run_the_mom_has_not_taken_yet(
        rig: PreemptRig) -> None:
    """``qdel -W force`` right after the run began: the mom still gets the SIGKILL when it takes
    the job, so no job shell is left running behind a job the server calls finished."""
    _slow(rig)
    victim = rig.submit("sleep 60")
    rig.wait(victim, "R", timeout=10, started=False)
    rig.sh("qdel", "-W", "force", victim)
    rig.wait(victim, "F", timeout=30)
    wait_for(lambda: not rig.mom_has_jobs(), 20, "the mom's end of the job")
