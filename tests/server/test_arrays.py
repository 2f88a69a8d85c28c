"""Job arrays whose subjobs are rows of the parent's table until they run (server/subjobs.py).

array_func.c keeps a subjob that has not run only in its parent's table and makes it a job
(create_subjob) when it runs; req_delete.c expires the queued ones of a deleted array at once;
req_signal.c (req_signaljob) signals every running subjob of ``N[]`` or of a range.
"""
from pathlib import Path
from typing import Any, Dict

from fake_pbs.testing import FakeCluster, wait_for

_TRAPPER = """cd "$PBS_O_WORKDIR"
trap 'echo USR1 >> got.$PBS_ARRAY_INDEX' USR1
echo up > up.$PBS_ARRAY_INDEX
i=0
while [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done"""


def _all_up(workdir: Path, indices: "range") -> bool:
    return all((workdir / ("up.%d" % i)).exists() for i in indices)


def _sub(parent: str, index: object) -> str:
    return parent.replace("[]", "[%s]" % index)


def test_qsig_of_an_array_signals_every_running_subjob(fake_pbs: FakeCluster,
                                                       tmp_path: Path) -> None:
    """req_signaljob, IS_ARRAY_ArrayJob: each running subjob gets the signal, rc 0 (a suspend
    skips the suspended ones, a resume takes only those); a range signals the running ones in
    it, and a range with none running is 168 (PBSE_BADSTATE)."""
    tmp_path.chmod(0o777)
    parent = fake_pbs.qsub(_TRAPPER, "-J", "1-3", cwd=str(tmp_path))
    wait_for(lambda: _all_up(tmp_path, range(1, 4)), 60, "subjobs did not start")
    done = fake_pbs.run(["qsig", "-s", "suspend", _sub(parent, "2-3")])
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    states = {i: fake_pbs.job(_sub(parent, i))["job_state"] for i in (1, 2, 3)}
    assert states == {1: "R", 2: "S", 3: "S"}
    done = fake_pbs.run(["qsig", "-s", "resume", parent])
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    for index in (2, 3):
        fake_pbs.wait(_sub(parent, index), "R", timeout=30)
    done = fake_pbs.run(["qsig", "-s", "USR1", parent])
    assert (done.returncode, done.stderr) == (0, ""), done.stderr

    def signalled(index: int) -> bool:
        # the trap's line, or the end USR1 gave the job (k03i: 266, as PBS's mom races)
        return ((tmp_path / ("got.%d" % index)).exists()
                or fake_pbs.job(_sub(parent, index)).get("Exit_status") == "266")
    wait_for(lambda: all(signalled(i) for i in (1, 2, 3)), 30, "not every subjob got USR1")
    fake_pbs.run(["qdel", parent])
    fake_pbs.wait(parent, timeout=60)
    done = fake_pbs.run(["qsig", "-s", "USR1", _sub(parent, "1-3")])
    assert done.returncode == 35, done.stderr  # the array is over: "Job has finished"


def test_qsig_of_a_range_with_none_running_is_badstate(fake_pbs: FakeCluster) -> None:
    """req_signaljob: a range of a begun array in which no subjob runs is 168."""
    parent = fake_pbs.qsub("sleep 60", "-J", "1-3", "-l", "select=1:ncpus=8")
    fake_pbs.wait(_sub(parent, 1), "R", timeout=30)
    done = fake_pbs.run(["qsig", "-s", "USR1", _sub(parent, "7-9")])
    assert done.returncode == 168, done.stderr
    assert fake_pbs.run(["qdel", parent]).returncode == 0
    fake_pbs.wait(parent, timeout=60)


def test_qsig_of_an_array_that_has_not_begun_is_badstate(fake_pbs: FakeCluster) -> None:
    """req_signaljob: an array that is not B is 168 (PBSE_BADSTATE); an unknown range 153."""
    parent = fake_pbs.qsub("true", "-h", "-J", "1-3")
    done = fake_pbs.run(["qsig", parent])
    assert done.returncode == 168, done.stderr
    done = fake_pbs.run(["qsig", parent.replace(parent.split("[")[0], "99999", 1)
                         .replace("[]", "[1-2]")])
    assert done.returncode == 153, done.stderr
    assert fake_pbs.run(["qdel", parent]).returncode == 0


def test_a_big_array_is_one_record_until_its_subjobs_run(fake_pbs: FakeCluster) -> None:
    """array_func.c: a held 10,000-subjob array is its parent's table: qstat -t lists every
    subjob, ``N[5000]`` is queued, qalter of one subjob makes it a job of its own, and qdel
    expires the queued ones at once (Expired:10000 in array_state_count)."""
    parent = fake_pbs.qsub("true", "-h", "-J", "0-9999")
    listed = fake_pbs.call("statjob", id=parent, extend="t")
    assert len(listed) == 10001
    assert [r["id"] for r in listed[1:3]] == [_sub(parent, 0), _sub(parent, 1)]
    attrs = fake_pbs.job(parent)
    assert attrs["array_state_count"] == "Queued:10000 Running:0 Exiting:0 Expired:0"
    assert attrs["array_indices_remaining"] == "0-9999"
    sub = fake_pbs.job(_sub(parent, 5000))
    assert (sub["job_state"], sub["array_index"]) == ("Q", "5000")
    assert sub["Output_Path"].endswith(".o%s.5000" % parent.split("[")[0])
    assert fake_pbs.run(["qalter", "-N", "one", _sub(parent, 5000)]).returncode == 0
    assert fake_pbs.job(_sub(parent, 5000))["Job_Name"] == "one"
    assert fake_pbs.job(_sub(parent, 4999))["Job_Name"] != "one"
    assert fake_pbs.run(["qdel", _sub(parent, "10-19")]).returncode == 0
    attrs = fake_pbs.job(parent)
    assert attrs["array_indices_remaining"] == "0-9,20-9999"
    assert attrs["array_state_count"] == "Queued:9990 Running:0 Exiting:0 Expired:10"
    assert fake_pbs.run(["qdel", _sub(parent, "100-9000:2")]).returncode == 0
    attrs = fake_pbs.job(parent)
    assert attrs["array_state_count"] == "Queued:5539 Running:0 Exiting:0 Expired:4461"
    assert attrs["array_indices_remaining"].startswith("0-9,20-99,101,103,")
    assert attrs["array_indices_remaining"].endswith(",8997,8999,9001-9999")
    assert fake_pbs.job(_sub(parent, 102))["job_state"] == "X"
    assert fake_pbs.job(_sub(parent, 103))["job_state"] == "Q"
    assert fake_pbs.run(["qdel", parent]).returncode == 0
    attrs = fake_pbs.wait(parent, timeout=30)
    assert attrs["array_state_count"] == "Queued:0 Running:0 Exiting:0 Expired:10000"
    sub = fake_pbs.job(_sub(parent, 7000))
    assert (sub["job_state"], sub["comment"]) == ("F", "Subjob finished")


def test_index_ranges_round_trip() -> None:
    """The table's index text (PBS's range form, as array_indices_submitted): parse, print,
    take one index out, and ascending indices back to ranges of one step each."""
    from fake_pbs.server import subjobs

    assert subjobs.unparse(subjobs.parse("0-9,12,20-30:2")) == "0-9,12,20-30:2"
    assert subjobs.unparse(subjobs.compress([0, 2, 4, 6, 9, 10, 11, 20])) == "0-6:2,9-11,20"
    parent: Dict[str, Any] = {subjobs.QUEUED: "0-9999"}
    assert subjobs.first_queued(parent, 3) == [0, 1, 2]
    assert subjobs.expire_span(parent, range(10, 20), 7) == 10
    assert parent[subjobs.QUEUED] == "0-9,20-9999"
    assert parent[subjobs.EXPIRED] == [[7, "10-19"]]
    assert subjobs.expire_queued(parent, 8) == 9990
    assert parent[subjobs.QUEUED] == "" and subjobs.expired_count(parent) == 10000


def test_subjobs_run_in_index_order(fake_pbs: FakeCluster) -> None:
    """PBS starts an array's subjobs by index (its table's next queued one), whether or not a
    request made one a record first (here a qalter of the last)."""
    parent = fake_pbs.qsub("sleep 30", "-h", "-J", "0-3", "-l", "select=1:ncpus=8")
    assert fake_pbs.run(["qalter", "-N", "last", _sub(parent, 3)]).returncode == 0
    assert fake_pbs.run(["qrls", parent]).returncode == 0
    fake_pbs.wait(_sub(parent, 1), "R", timeout=30)
    states = {i: fake_pbs.job(_sub(parent, i))["job_state"] for i in range(4)}
    assert states == {0: "R", 1: "R", 2: "Q", 3: "Q"}
    assert fake_pbs.run(["qdel", parent]).returncode == 0
    fake_pbs.wait(parent, timeout=60)
