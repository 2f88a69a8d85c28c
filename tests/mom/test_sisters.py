"""Multi-host jobs and injected faults: the primary mom joins, releases and aborts its sisters
(DESIGN "The exec protocol"; reference §6.4 job_start_error codes)."""
from .momrig import MomRig, kinds

TWO_HOSTS = [{"host": "node1", "ncpus": 1, "mpiprocs": 1},
             {"host": "node2", "ncpus": 1, "mpiprocs": 2}]


def _log(rig: MomRig, host: str) -> str:
    return "".join(p.read_text() for p in (rig.home / "mom_logs" / host).iterdir())


def test_two_host_job_releases_sister_then_final(rig: MomRig) -> None:
    """Flux-style stream: start, finish, release {node2, final false}, release {node1, final}."""
    rig.start("node1")
    rig.start("node2")
    job = rig.spec("1.vm", "cat $PBS_NODEFILE\n", hosts=TWO_HOSTS,
                   exec_vnode="(node1:ncpus=1)+(node2:ncpus=1)")
    channel = rig.submit("node1", job)
    assert kinds(rig.read_until(channel, "start")) == ["start"]
    events = rig.read_until(channel, "release-final")
    assert kinds(events) == ["finish", "release", "release"]
    assert (events[1]["vnodes"], events[1]["final"]) == (["node2"], False)
    assert (events[2]["vnodes"], events[2]["final"]) == (["node1"], True)
    assert (rig.user_home / "job.o1").read_text() == "node1\nnode2\nnode2\n"
    assert rig.request("node2", "status")["sister_jobs"] == []
    assert "JOIN_JOB" in _log(rig, "node2")


def test_sister_unreachable_fails_with_joinjob(rig: MomRig) -> None:
    """A sister that cannot be reached (comm fault, or no mom) -> exception, finish -30
    (JOB_EXEC_JOINJOB, requeue), final release; the job shell never starts."""
    rig.start("node1")
    rig.start("node2")
    assert rig.request("node2", "fault", fault="comm") == {"faults": ["comm"]}
    events = rig.run("node1", rig.spec("2.vm", "exit 0\n", hosts=TWO_HOSTS))
    assert kinds(events) == ["exception", "finish", "release"]
    assert events[1]["status"] == -30 and events[2]["final"] is True
    assert "job_start_error 15059 from node node2 could not JOIN_JOB successfully" \
        in _log(rig, "node1")
    assert ";0001;pbs_mom;Job;2.vm;job not started, Failure -30" in _log(rig, "node1")
    rig.request("node2", "fault", fault="clear")
    rig.kill9("node2")
    events = rig.run("node1", rig.spec("3.vm", "exit 0\n", hosts=TWO_HOSTS))
    assert events[1]["status"] == -30


def test_sister_join_and_jobdir_faults(rig: MomRig) -> None:
    """Injected join failure on a sister -> -30; job directory failure on a sister -> -3."""
    rig.start("node1")
    rig.start("node2")
    rig.request("node2", "fault", fault="join")
    events = rig.run("node1", rig.spec("4.vm", "exit 0\n", hosts=TWO_HOSTS))
    assert events[1]["status"] == -30
    assert "ABORT_JOB received" in _log(rig, "node2")
    rig.request("node2", "fault", fault="clear")
    rig.request("node2", "fault", fault="jobdir")
    events = rig.run("node1", rig.spec("5.vm", "exit 0\n", hosts=TWO_HOSTS))
    assert events[1]["status"] == -3


def test_fork_fault_on_primary_retries(node1: MomRig) -> None:
    """Fork failure -> "job not started, Retry -3", finish -3; faults persist until cleared."""
    node1.request("node1", "fault", fault="fork")
    events = node1.run("node1", node1.spec("6.vm", "exit 0\n"))
    assert kinds(events) == ["exception", "finish", "release"]
    assert events[1]["status"] == -3
    assert ";0001;pbs_mom;Job;6.vm;job not started, Retry -3" in _log(node1, "node1")
    assert node1.request("node1", "status")["faults"] == ["fork"]
    assert node1.request("node1", "fault", fault="clear") == {"faults": []}
    assert node1.run("node1", node1.spec("7.vm", "exit 0\n"))[1]["status"] == 0
