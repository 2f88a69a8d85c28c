"""Server rules the extra set's k section pins, end to end through the commands.

k11 (the ``Holds ... released`` line tracejob shows), k12 (array subjob deletion, a finished
array's subjob ids), k14 (accounting records), k08p/k10 (queue ``resources_assigned``).
"""
import re
from typing import List

from fake_pbs.model import states as st
from fake_pbs.model.stateselect import state_selected as _state_selected
from fake_pbs.testing import FakeCluster


def _lines(cluster: FakeCluster) -> List[str]:
    return [line for path in sorted((cluster.home / "server_priv" / "accounting").glob("*"))
            for line in path.read_text(errors="replace").splitlines()]


def _accounting(cluster: FakeCluster, jobid: str, skip: int) -> List[str]:
    """``grep -a -F ';<id>;'`` of the accounting files (the lines after the first ``skip``:
    the cluster is shared by the tests), as k14 reads them: type;message."""
    out = []
    for line in _lines(cluster)[skip:]:
        parts = line.split(";", 3)
        if len(parts) == 4 and parts[2] == jobid:
            out.append(parts[1] + ";" + parts[3])
    return out


def test_hold_and_release_are_logged(fake_pbs: FakeCluster) -> None:
    """k11: req_holdjob/req_releasejob log ``Holds u set|released at request of user@host``."""
    jobid = fake_pbs.qsub("true", "-a", "2359")
    assert fake_pbs.run(["qhold", jobid]).returncode == 0
    assert fake_pbs.run(["qrls", jobid]).returncode == 0
    lines = fake_pbs.messages("server", jobid)
    for verb in ("set", "released"):
        pattern = re.compile(r"^Holds u %s at request of [^@;]+@[^@;]+$" % verb)
        assert any(pattern.match(line) for line in lines), lines
    fake_pbs.run(["qdel", jobid])


def test_subjob_ids_of_a_finished_array_are_finished(fake_pbs: FakeCluster) -> None:
    """k12k/k12l: once the array is over, any index, even one it never had, is 35 ``Job has
    finished``; a live array's unknown index stays 153."""
    parent = fake_pbs.qsub("true", "-J", "1-2")
    fake_pbs.wait(parent, timeout=60)
    for index in ("9", "1", "1-2"):
        done = fake_pbs.run(["qdel", parent.replace("[]", "[%s]" % index)])
        assert done.returncode == 35, done.stderr
        assert done.stderr == "qdel: Job has finished %s\n" % parent.replace(
            "[]", "[%s]" % index)


def test_array_parent_accounting_and_end(fake_pbs: FakeCluster) -> None:
    """k14d: the parent's Q (array_indices), S when its first subjob starts, and E (no usage,
    run_count=0); k12n: a subjob deleted while queued leaves the parent 'finished' when the
    others ran fine, and shows the parent's Exit_status and substate."""
    skip = len(_lines(fake_pbs))
    # two 8-cpu nodes: subjobs 1 and 2 run, 3 waits until it is deleted
    parent = fake_pbs.qsub("sleep 4", "-J", "1-3", "-l", "select=1:ncpus=8")
    fake_pbs.wait(parent.replace("[]", "[1]"), "R", timeout=30)
    assert fake_pbs.run(["qdel", parent.replace("[]", "[3]")]).returncode == 0
    attrs = fake_pbs.wait(parent, timeout=60)
    assert attrs["comment"].endswith(" and finished") and attrs["Exit_status"] == "0"
    expired = fake_pbs.job(parent.replace("[]", "[3]"))
    assert (expired["comment"], expired["substate"], expired["Exit_status"]) == (
        "Subjob finished", attrs["substate"], "0")
    records = _accounting(fake_pbs, parent, skip)
    assert [r[0] for r in records] == ["Q", "S", "E"], records
    assert " array_indices=1-3 Resource_List." in records[0]
    assert " start=" in records[1] and " array_indices=1-3 " in records[1]
    assert records[2].endswith(" session=0 end=%s Exit_status=0 run_count=0"
                               % records[2].split(" end=")[1].split()[0])
    assert "resources_used" not in records[2] and "array_indices" not in records[2]


def test_dependency_delete_record_precedes_the_end(fake_pbs: FakeCluster) -> None:
    """k14f: the dependent's Q names ``depend=``; its A record says why and comes before the
    failing job's E record."""
    skip = len(_lines(fake_pbs))
    first = fake_pbs.qsub("sleep 2; exit 3")
    dependent = fake_pbs.qsub("true", "-W", "depend=afterok:%s" % first)
    fake_pbs.wait(dependent)
    mine = _accounting(fake_pbs, dependent, skip)
    assert mine[0].startswith("Q;") and " depend=afterok:%s@vm " % first in mine[0]
    assert "A;Job deleted as result of dependency on job %s" % first in mine
    lines = _lines(fake_pbs)[skip:]
    a_at = next(i for i, ln in enumerate(lines) if ";A;%s;" % dependent in ln)
    e_at = next(i for i, ln in enumerate(lines) if ";E;%s;" % first in ln)
    assert a_at < e_at


def test_queue_keeps_assigned_resources_at_zero(fake_pbs: FakeCluster) -> None:
    """k08p/k10: after an mpiprocs job ran, workq shows resources_assigned.mpiprocs = 0."""
    jobid = fake_pbs.qsub("true", "-l", "select=1:ncpus=1:mpiprocs=1")
    fake_pbs.wait(jobid)
    queue = dict(fake_pbs.call("statque", name="workq")[0]["attrs"])
    assert queue["resources_assigned.mpiprocs"] == "0"
    assert queue["resources_assigned.ncpus"] == "0"
    server = dict(fake_pbs.call("statsvr")["attrs"])
    assert server["resources_assigned.mpiprocs"] == "0"


def test_state_selection_of_suspended_jobs() -> None:
    """req_select.c: a suspended job is R inside PBS: qstat -r ("RS") leaves it out (k08h),
    qselect -s S finds it (k07e), a list that names R after another state finds it too."""
    assert not _state_selected(st.SUSPENDED, "RS")
    assert not _state_selected(st.SUSPENDED, "R")
    assert _state_selected(st.SUSPENDED, "S")
    assert _state_selected(st.SUSPENDED, "SQ")
    assert _state_selected(st.SUSPENDED, "QR")
    assert not _state_selected(st.SUSPENDED, "QH")
    assert _state_selected(st.RUNNING, "RS") and _state_selected(st.QUEUED, "QH")
    assert not _state_selected(st.QUEUED, "RS")


def test_qstat_r_leaves_suspended_jobs_out() -> None:
    """k08h: qstat -r's selection ("RS") applied by the command to the status list."""
    from fake_pbs.cli.qstat import select

    jobs = [{"id": "%d.vm" % n, "attrs": [["job_state", letter]]}
            for n, letter in enumerate("RSQ")]
    assert [j["id"] for j in select(jobs, [("state", "RS")])] == ["0.vm"]
    assert [j["id"] for j in select(jobs, [("state", "EHQTW")])] == ["2.vm"]
