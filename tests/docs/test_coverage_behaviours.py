"""Behaviours docs/coverage.md names that no other test pinned: each test names the PBS rule and
its OpenPBS source (issue 22)."""
import time
from typing import List

from fake_pbs.model.hooks import Hook, ordered_hooks
from fake_pbs.testing import FakeCluster

from ..reliability.rig import Rig
from ..sched.sched_helpers import cycle, job, node, running


def _ran(result: object) -> List[str]:
    return [run.jobid for run in result.runs]  # type: ignore[attr-defined]


# -- scheduler ------------------------------------------------------------------------------
def test_arch_selects_the_vnode() -> None:
    """arch is on the default sched_config resources: line, a string the scheduler matches
    (check_spec.cpp / node_info.cpp): a chunk asking another arch finds no vnode."""
    vnodes = {"vm": node(2, extra={"resources_available.arch": "linux"})}
    assert _ran(cycle(vnodes, [job(1, select="1:ncpus=1:arch=linux")])) == ["1.vm"]
    assert _ran(cycle(vnodes, [job(2, select="1:ncpus=1:arch=aix")])) == []


def _subjob(parent: int, index: int, state: str = "Q") -> dict:  # type: ignore[type-arg]
    record = job(parent * 100 + index, state=state)
    record["id"] = "%d[%d].vm" % (parent, index)
    record["array_id"] = "%d[].vm" % parent
    return record


def test_max_run_subjobs_caps_the_running_subjobs() -> None:
    """qsub -J 1-4%2: no more than max_run_subjobs subjobs of the array run at once; the others
    wait with the scheduler's MAX_RUN_SUBJOBS comment (check.cpp is_ok_to_run, job_info.cpp
    sched_error text; transcript j04d)."""
    parent = job(7, state="B")
    parent.update({"id": "7[].vm", "array": "True", "max_run_subjobs": "2"})
    busy = running(9, "(vm:ncpus=1)", "vm/0")
    busy.update({"id": "7[1].vm", "array_id": "7[].vm"})
    result = cycle({"vm": node(8)}, [parent, busy, _subjob(7, 2), _subjob(7, 3)])
    assert _ran(result) == ["7[2].vm"]
    assert result.comments["7[3].vm"] == \
        "Not Running: Number of concurrent running subjobs limit reached"
    parent.pop("max_run_subjobs")
    assert _ran(cycle({"vm": node(8)}, [parent, busy, _subjob(7, 2), _subjob(7, 3)])) == \
        ["7[2].vm", "7[3].vm"]


# -- hooks ----------------------------------------------------------------------------------
def _hook(name: str, order: int, enabled: bool = True) -> Hook:
    hook = Hook(name)
    hook.events = ["queuejob"]
    hook.order = order
    hook.enabled = enabled
    return hook


def test_hooks_run_in_ascending_order() -> None:
    """Hooks of one event run in ascending ``order``, ties in creation order (hook_func.c
    insert_hook_sort_order)."""
    hooks = [_hook("c", 5), _hook("a", 1), _hook("b", 5)]
    assert [h.name for h in ordered_hooks(hooks, "queuejob")] == ["a", "c", "b"]


def test_disabled_hooks_do_not_run() -> None:
    """A hook with ``enabled = false`` is skipped for its events (hook_func.c: only enabled
    hooks are run)."""
    hooks = [_hook("on", 1), _hook("off", 2, enabled=False)]
    assert [h.name for h in ordered_hooks(hooks, "queuejob")] == ["on"]


# -- server ---------------------------------------------------------------------------------
SLOW_HOOK = "import time\ntime.sleep(8)\n"


def test_job_requeue_timeout_bounds_a_qrerun_reply(fake_pbs: FakeCluster) -> None:
    """qrerun waits for the job's run to be released at most ``job_requeue_timeout``, then
    answers 15011 ``Response timed out. Job rerun request still in progress for`` (req_rerun.c
    timeout_rerun_request); here an execjob_epilogue hook holds the release for 8 s.  The job
    is requeued all the same."""
    fake_pbs.qmgr("set server job_requeue_timeout = 2")
    fake_pbs.hook("slow_epilogue", "execjob_epilogue", SLOW_HOOK)
    jobid = fake_pbs.qsub("sleep 60", "-r", "y")
    fake_pbs.wait(jobid, "R", started=True)
    began = time.monotonic()
    done = fake_pbs.run(["qrerun", jobid])
    waited = time.monotonic() - began
    assert done.returncode != 0
    assert "Response timed out. Job rerun request still in progress for" in done.stderr
    assert waited < 7.5, waited  # the hook's 8 s were not waited for
    fake_pbs.wait(jobid, "QR", run_count=1, timeout=40)


def test_scheduler_iteration_sets_the_timed_cycle(fake_pbs: FakeCluster) -> None:
    """A node coming back starts no cycle; the next timed one, every ``scheduler_iteration``
    seconds, runs the waiting job (sched_func.c action_sched_iteration; extra n01j/n01n)."""
    fake_pbs.qmgr("set sched scheduler_iteration = 2")
    names = sorted(str(h["name"]) for h in fake_pbs.hosts)
    for name in names:
        fake_pbs.sh("pbsnodes", "-o", name)
    jobid = fake_pbs.qsub("true")
    fake_pbs.sh("pbsnodes", "-r", names[0])
    fake_pbs.wait(jobid, "RF", timeout=20)


def _listed(rig: Rig, user: str) -> List[str]:
    """The job ids ``qstat`` shows ``user``."""
    return [line.split()[0] for line in rig.run(["qstat"], user=user).stdout.splitlines()[2:]]


def test_query_other_jobs_false_hides_other_users_jobs(rig: Rig) -> None:
    """With ``query_other_jobs = False`` a user's qstat shows only the user's own jobs; a
    manager still sees every job (stat_job.c status_job, req_select.c)."""
    theirs = rig.qsub("sleep 30", "-h", user="pbsuser")
    mine = rig.qsub("sleep 30", "-h", user="pbsuser2")
    assert _listed(rig, "pbsuser2") == [theirs, mine]
    done = rig.run(["qmgr", "-c", "set server query_other_jobs = False"], user="root")
    assert done.returncode == 0, done.stderr
    assert _listed(rig, "pbsuser2") == [mine]
    assert _listed(rig, "root") == [theirs, mine]


def test_jobscript_max_size_refuses_a_larger_script(fake_pbs: FakeCluster) -> None:
    """A script over the server's ``jobscript_max_size`` is refused with 15175 and no job is
    made (req_quejob.c req_jobscript, pbs_messages.c msg_jobscript_max_size); a manager may set
    at most 2gb (svr_func.c action_jobscript_max_size, 15176)."""
    fake_pbs.qmgr("set server jobscript_max_size = 1kb")
    script = "#!/bin/sh\n" + "# padding\n" * 120 + "true\n"
    work = str(fake_pbs.home)  # where the small job's output files go
    done = fake_pbs.run(["qsub"], input=script, cwd=work)
    assert (done.returncode, done.stderr) == (
        15175 % 256, "qsub: jobscript size exceeded the jobscript_max_size\n")
    assert fake_pbs.call("statjob", id=None, extend="x") == []
    assert fake_pbs.run(["qsub"], input="#!/bin/sh\ntrue\n", cwd=work).returncode == 0
    too_big = fake_pbs.run(["qmgr", "-c", "set server jobscript_max_size = 3gb"])
    assert too_big.returncode != 0 and "jobscript max size exceeds 2GB" in too_big.stderr
