"""resources_default, resources_max and default_chunk of queue and server applied to a job
(src/server/svr_jobfunc.c set_resc_deflt, set_deflt_resc, set_chunk_sum; vnparse.c
do_schedselect), as qstat -f shows Resource_List and, to a manager, schedselect."""
import pytest

from fake_pbs.model.jobdefaults import complete, schedselect
from fake_pbs.testing import FakeCluster

SERVER = {"resources_default.ncpus": "1", "default_chunk.ncpus": "1"}


def test_queue_default_before_server_default() -> None:
    done = complete({}, {"resources_default.walltime": "00:05:00"},
                    dict(SERVER, **{"resources_default.walltime": "00:10:00"}))
    assert done.resources["walltime"] == "00:05:00"
    assert "walltime" in done.defaulted


@pytest.mark.parametrize("requested", ["00:01:00", "00:30:00"])
def test_explicit_value_wins(requested: str) -> None:
    done = complete({"walltime": requested}, {"resources_default.walltime": "00:05:00"}, SERVER)
    assert done.resources["walltime"] == requested
    assert "walltime" not in done.defaulted


def test_resources_max_is_the_last_default_never_select() -> None:
    """set_resc_deflt: the queue's then the server's resources_max (selflg 0: no select)."""
    done = complete({}, {"resources_max.mem": "2gb", "resources_max.select": "2:ncpus=1"},
                    dict(SERVER, **{"resources_max.mem": "4gb"}))
    assert done.resources["mem"] == "2gb"
    assert done.resources["select"] == "1:mem=2gb:ncpus=1"


def test_default_chunk_fills_each_chunk_and_the_sums() -> None:
    """do_schedselect: the queue's default_chunk first, then the server's, for what a chunk
    lacks; set_chunk_sum sets the job-wide ncpus/mem from it."""
    done = complete({"select": "2:mem=1gb+1:ncpus=3"}, {"default_chunk.mem": "512mb"}, SERVER)
    assert done.schedselect == "2:mem=1gb:ncpus=1+1:ncpus=3:mem=512mb"
    assert (done.resources["ncpus"], done.resources["mem"], done.resources["nodect"]) == (
        "5", "2560mb", "3")
    assert done.resources["select"] == "2:mem=1gb+1:ncpus=3"


def test_no_default_chunk_leaves_select() -> None:
    assert schedselect("1:ncpus=2", {}, {}) == "1:ncpus=2"


def test_qstat_shows_defaults_and_qmove_recomputes_them(pbs: FakeCluster) -> None:
    """clear_default_resc + set_resc_deflt in svr_chkque: a move takes the new queue's
    defaults and keeps the explicit values."""
    pbs.qmgr("set queue workq resources_default.walltime = 00:05:00")
    pbs.qmgr("create queue q2 queue_type = execution, enabled = true, started = true")
    pbs.qmgr("set queue q2 resources_default.walltime = 00:07:00")
    pbs.qmgr("set queue q2 default_chunk.mem = 100mb")
    job = pbs.qsub("true", "-h", "-l", "software=abc")
    shown = pbs.job(job)
    assert (shown["Resource_List.walltime"], shown["Resource_List.ncpus"],
            shown["schedselect"]) == ("00:05:00", "1", "1:ncpus=1")
    pbs.sh("qmove", "q2", job)
    moved = pbs.job(job)
    assert (moved["Resource_List.walltime"], moved["Resource_List.software"],
            moved["Resource_List.mem"], moved["schedselect"]) == (
        "00:07:00", "abc", "100mb", "1:ncpus=1:mem=100mb")
