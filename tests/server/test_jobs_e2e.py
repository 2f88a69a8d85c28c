"""End-to-end job behaviour through the real commands against one fake cluster.

Each test names the golden transcript (docs: /work/shared/fidelity) whose behaviour it pins.
"""
from typing import Dict, List

import pytest

from fake_pbs.model.errors import PBSE_HISTJOBID, PBSE_UNKQUE, PbsError
from fake_pbs.testing import FakeCluster


def _names(attrs: Dict[str, str]) -> List[str]:
    return list(attrs)


def test_first_job_id_is_zero_and_defaults(fake_pbs: FakeCluster) -> None:
    """b03b / a01: ids count from 0; a held job shows the defaults PBS fills in, no etime."""
    jobid = fake_pbs.qsub("true", "-h", "-N", "queued3")
    assert jobid == "0.vm"
    attrs = fake_pbs.job(jobid)
    assert attrs["job_state"] == "H" and attrs["substate"] == "20"
    assert attrs["Hold_Types"] == "u"
    assert attrs["project"] == "_pbs_project_default"
    assert attrs["Resource_List.select"] == "1:ncpus=1"
    assert attrs["Resource_List.place"] == "pack"
    assert attrs["Output_Path"].endswith("/queued3.o0")
    assert attrs["Error_Path"].endswith("/queued3.e0")
    assert attrs["Variable_List"].endswith(",PBS_O_QUEUE=workq,PBS_O_HOST=%s"
                                           % attrs["Submit_Host"])
    assert "etime" not in attrs and "comment" not in attrs
    order = _names(attrs)
    assert order.index("Job_Owner") < order.index("job_state") < order.index("queue")
    assert order.index("Variable_List") < order.index("Submit_arguments") < order.index(
        "project") < order.index("Submit_Host")


def test_unknown_queue_and_resource(fake_pbs: FakeCluster) -> None:
    """a03 (qsub: Unknown queue, exit 170) and a04 (Unknown resource Resource_List.foo, 187)."""
    with pytest.raises(PbsError) as err:
        fake_pbs.call("queuejob", attrs={"queue": "nosuch"}, script="", cwd="/", env={},
                      host="vm")
    assert err.value.code == PBSE_UNKQUE and err.value.exit_code == 170
    with pytest.raises(PbsError) as err:
        fake_pbs.call("queuejob", attrs={"Resource_List.foo": "1"}, script="", cwd="/",
                      env={}, host="vm")
    assert err.value.text == "Unknown resource Resource_List.foo"
    assert err.value.exit_code == 187


def test_finished_job_history(fake_pbs: FakeCluster) -> None:
    """b04 / i01c: F, substate 92, Exit_status 0, comment '... and finished'; b10c: 35."""
    jobid = fake_pbs.qsub("echo hello")
    attrs = fake_pbs.wait(jobid)
    assert attrs["substate"] == "92"
    assert attrs["Exit_status"] == "0"
    assert attrs["comment"].startswith("Job run at ")
    assert attrs["comment"].endswith(" on (node1:ncpus=1) and finished")
    assert attrs["exec_host"] == "node1/0"
    assert attrs["Stageout_status"] == "1"
    assert "obittime" in attrs and "history_timestamp" in attrs
    with pytest.raises(PbsError) as err:
        fake_pbs.call("statjob", id=jobid, extend="")
    assert err.value.code == PBSE_HISTJOBID
    done = fake_pbs.run(["qdel", jobid])
    assert (done.returncode, done.stderr) == (35, "qdel: Job has finished %s\n" % jobid)


def test_failed_job(fake_pbs: FakeCluster) -> None:
    """b07b: a job exiting 3 ends F/93 with Exit_status 3 and '... and failed'."""
    attrs = fake_pbs.wait(fake_pbs.qsub("exit 3"))
    assert (attrs["substate"], attrs["Exit_status"]) == ("93", "3")
    assert attrs["comment"].endswith(" and failed")


def test_qdel_running_job(fake_pbs: FakeCluster) -> None:
    """c03/b05b: qdel of a running job -> SIGTERM -> Exit_status 271, substate 91,
    comment '... and terminated by <user>@<host>'."""
    jobid = fake_pbs.qsub("sleep 300")
    fake_pbs.wait(jobid, "R")
    done = fake_pbs.run(["qdel", jobid])
    assert done.returncode == 0, done.stderr
    attrs = fake_pbs.wait(jobid)
    assert (attrs["substate"], attrs["Exit_status"]) == ("91", "271")
    assert " and terminated by " in attrs["comment"]


def test_qdel_force_running_job(fake_pbs: FakeCluster) -> None:
    """c04c: qdel -W force -> SIGKILL -> Exit_status 265."""
    jobid = fake_pbs.qsub("sleep 300")
    fake_pbs.wait(jobid, "R")
    assert fake_pbs.run(["qdel", "-W", "force", jobid]).returncode == 0
    assert fake_pbs.wait(jobid)["Exit_status"] == "265"


def test_qdel_queued_job_has_no_exit_status(fake_pbs: FakeCluster) -> None:
    """c10b: a held job deleted goes F/91 without Exit_status or comment."""
    jobid = fake_pbs.qsub("true", "-h")
    assert fake_pbs.run(["qdel", jobid]).returncode == 0
    attrs = fake_pbs.job(jobid)
    assert (attrs["job_state"], attrs["substate"]) == ("F", "91")
    assert "Exit_status" not in attrs and "comment" not in attrs


def test_hold_release_runs(fake_pbs: FakeCluster) -> None:
    """j06/k01/k02: qhold comment 'Job held by <user> on <ctime>'; qrls -> runs."""
    jobid = fake_pbs.qsub("true", "-a", "2359")  # W until tonight: never runs meanwhile
    assert fake_pbs.job(jobid)["job_state"] == "W"
    assert fake_pbs.run(["qhold", jobid]).returncode == 0
    attrs = fake_pbs.job(jobid)
    assert (attrs["job_state"], attrs["Hold_Types"]) == ("H", "u")
    assert attrs["comment"].startswith("Job held by ")
    held = fake_pbs.qsub("true", "-h")
    assert fake_pbs.run(["qrls", held]).returncode == 0
    assert fake_pbs.wait(held)["Exit_status"] == "0"


def test_dependency_afterok(fake_pbs: FakeCluster) -> None:
    """j05: the dependent waits H/22 with Hold_Types s; the parent lists beforeok:; on the
    parent's failure the dependent goes F/92 without running."""
    parent = fake_pbs.qsub("sleep 2; exit 1")
    child = fake_pbs.qsub("true", "-W", "depend=afterok:%s" % parent)
    attrs = fake_pbs.job(child)
    assert (attrs["job_state"], attrs["substate"], attrs["Hold_Types"]) == ("H", "22", "s")
    assert attrs["depend"] == "afterok:%s@vm" % parent
    assert fake_pbs.job(parent)["depend"] == "beforeok:%s@vm" % child
    fake_pbs.wait(parent)
    attrs = fake_pbs.wait(child)
    assert attrs["substate"] == "92" and "Exit_status" not in attrs


def _server_lines(cluster: FakeCluster, jobid: str) -> List[str]:
    return [ln.split(";", 5)[5] for ln in cluster.log_lines("server")
            if ";Job;%s;" % jobid in ln or ";Job;%s@" % jobid in ln]


def test_dependency_on_finished_and_unknown_jobs(fake_pbs: FakeCluster) -> None:
    """j05q-j05y: the enqueue line shows the state before the dependencies (Q, or H with -h);
    then each is logged: a finished job that satisfies it, one that cannot (the job is then
    deleted), an unknown job (logged about ID@server); j05x: the deleted job keeps
    Hold_Types s and has no etime."""
    ok = fake_pbs.qsub("true")
    bad = fake_pbs.qsub("exit 1")
    fake_pbs.wait(ok)
    fake_pbs.wait(bad)
    runs = fake_pbs.qsub("true", "-W", "depend=afterok:%s" % ok)
    assert fake_pbs.wait(runs)["Exit_status"] == "0"
    unknown = fake_pbs.qsub("true", "-W", "depend=afterok:9999.vm")
    attrs = fake_pbs.wait(unknown)
    assert (attrs["substate"], attrs["Hold_Types"]) == ("92", "s") and "etime" not in attrs
    multi = fake_pbs.qsub("true", "-h", "-W", "depend=afterok:%s:%s" % (ok, bad))
    fake_pbs.wait(multi)
    lines = _server_lines(fake_pbs, unknown)
    assert lines[:3] == [
        "enqueuing into workq, state Q hop 1",
        "Job Queued at request of %s" % lines[1].split("Job Queued at request of ")[1],
        "Dependency request for job rejected by 9999.vm"], lines
    lines = _server_lines(fake_pbs, multi)
    assert lines[0] == "enqueuing into workq, state H hop 1"
    assert lines[2:4] == ["%s Job has finished, dependency satisfied" % ok,
                          "%s Finished job did not satisfy dependency" % bad], lines
    assert "%s Job has finished, dependency satisfied" % ok in _server_lines(fake_pbs, runs)


def test_qstat_of_a_subjob_range(fake_pbs: FakeCluster) -> None:
    """Extra j02o: `qstat -t '339[1-2].vm'` lists those subjobs (not the array); an unknown
    array's range is Unknown Job Id (153)."""
    parent = fake_pbs.qsub("sleep 30", "-J", "1-3")
    seq = parent.split("[")[0]
    done = fake_pbs.run(["qstat", "-t", "%s[1-2]" % seq])
    assert done.returncode == 0, done.stderr
    rows = [line.split()[0] for line in done.stdout.splitlines()[2:]]
    assert rows == ["%s[1].%s" % (seq, parent.split(".", 1)[1]),
                    "%s[2].%s" % (seq, parent.split(".", 1)[1])]
    assert fake_pbs.run(["qstat", "-t", "99999[1-2]"]).returncode == 153
    fake_pbs.run(["qdel", parent])


def test_array_job(fake_pbs: FakeCluster) -> None:
    """j01-j03: qsub -J 1-3 prints N[]; the parent ends F with array_indices_remaining '-'
    and comment 'Job Array Began at ... and finished'."""
    parent = fake_pbs.qsub("true", "-J", "1-3")
    assert parent.endswith("[].vm")
    attrs = fake_pbs.wait(parent, timeout=60)
    assert attrs["array"] == "True"
    assert attrs["array_indices_remaining"] == "-"
    assert attrs["comment"].startswith("Job Array Began at ")
    assert attrs["comment"].endswith(" and finished")
    sub = fake_pbs.job(parent.replace("[]", "[2]"))
    assert sub["array_index"] == "2" and sub["array_id"] == parent


def test_queue_and_server_status(fake_pbs: FakeCluster) -> None:
    """b13b/b14b: statque/statsvr carry total_jobs and state_count; defaults of a new server."""
    fake_pbs.qsub("true", "-h")
    queue = dict(fake_pbs.call("statque", name="workq")[0]["attrs"])
    assert queue["queue_type"] == "Execution" and queue["total_jobs"] == "1"
    assert queue["state_count"].startswith("Transit:0 Queued:0 Held:1 ")
    server = dict(fake_pbs.call("statsvr")["attrs"])
    assert server["server_state"] == "Active" and server["default_queue"] == "workq"
    assert server["job_history_enable"] == "True"
    assert list(server)[:3] == ["server_state", "server_host", "scheduling"]
    nodes = fake_pbs.call("statnode", name=None, vnodes=False)
    assert [n["name"] for n in nodes] == ["node1", "node2"]
