"""statjob/statsvr at scale: the job index and the encoded history records change no reply.

pbs_server answers ``qstat`` from its job lists; the fake keeps a live/history index and caches
each finished job's encoded record (docs/performance.md, issue 7 figure 4).  These tests pin that
the answers are those of a walk over every job: the all-jobs reply (``qstat -x``, b11b) carries,
for each job, exactly the record a one-id ``statjob`` (uncached) returns, in the job table's
order, before and after the cache is warm; ``qstat`` without ``-x`` (b11) leaves finished jobs
out; ``statsvr``'s ``total_jobs`` counts history (b08: qstat -Bf) and ``state_count`` does not.
"""
from typing import Any, Dict, List

from hypothesis import given, settings, strategies as hs

from fake_pbs.jsonwire import loads
from fake_pbs.protocol import encode
from fake_pbs.server.jobindex import JobIndex
from fake_pbs.server.rawreply import EncodedList
from fake_pbs.testing import FakeCluster


@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.dictionaries(hs.sampled_from(["id", "attrs", "x"]),
                                hs.text(max_size=6)), max_size=1100))
def test_encoded_list_is_the_line_protocol_encode_writes(items: List[Dict[str, Any]]) -> None:
    """The raw reply line equals protocol.encode of the same reply (the wire is unchanged)."""
    raw = EncodedList([encode(item)[:-1] for item in items])
    line = b"".join(raw.pieces({"ok": True}))
    assert line == encode({"ok": True, "data": items})
    assert loads(line.decode("ascii")) == {"ok": True, "data": items}


def test_index_follows_saves_and_rebuilds_from_the_table() -> None:
    """Live jobs in table order; history counted; an unsaved insertion forces a rebuild."""
    jobs: Dict[str, Dict[str, Any]] = {}
    index = JobIndex()
    for n, state in enumerate("QFRFQ"):
        jobs["%d.vm" % n] = {"_id": "%d.vm" % n, "job_state": state, "exec_vnode": "(a)"}
        index.saved("%d.vm" % n, jobs["%d.vm" % n])
    assert [j["_id"] for j in index.live(jobs)] == ["0.vm", "2.vm", "4.vm"]
    assert index.history_counts(jobs) == (2, 2)
    jobs["2.vm"]["job_state"] = "F"
    index.saved("2.vm", jobs["2.vm"])
    assert [j["_id"] for j in index.live(jobs)] == ["0.vm", "4.vm"]
    assert index.history_counts(jobs) == (3, 3)
    jobs["5.vm"] = {"_id": "5.vm", "job_state": "Q"}  # added without save_job
    assert [j["_id"] for j in index.live(jobs)] == ["0.vm", "4.vm", "5.vm"]
    del jobs["1.vm"]
    index.saved("1.vm", None)
    assert index.history_counts(jobs) == (2, 2)


def test_encoded_record_dropped_when_the_job_is_saved() -> None:
    """A cached encoding is served only for the very record it was made from."""
    index = JobIndex()
    job: Dict[str, Any] = {"_id": "1.vm", "job_state": "F"}
    index.saved("1.vm", job)
    index.keep_encoded(job, (True, None), b"old")
    assert index.encoded(job, (True, None)) == b"old"
    assert index.encoded(job, (False, None)) is None
    job["comment"] = "changed"  # changed in place: size differs, not served
    assert index.encoded(job, (True, None)) is None
    index.keep_encoded(job, (True, None), b"new")
    index.saved("1.vm", job)
    assert index.encoded(job, (True, None)) is None


def _one(fake_pbs: FakeCluster, jobid: str, **args: Any) -> Dict[str, Any]:
    return dict(fake_pbs.call("statjob", id=jobid, extend="x", **args)[0])


def test_all_jobs_reply_equals_one_id_replies(fake_pbs: FakeCluster) -> None:
    """b11b (qstat -x) / b11 (qstat): each job's record as the one-id statjob gives it."""
    held = fake_pbs.qsub("true", "-h")
    done = [fake_pbs.qsub("true", "-N", "d%d" % n) for n in range(3)]
    for jobid in done:
        fake_pbs.wait(jobid)
    order = [held] + done
    for _ in range(2):  # cold, then from the cache
        everything = fake_pbs.call("statjob", id=None, extend="x")
        assert [r["id"] for r in everything] == order
        assert [dict(r) for r in everything] == [_one(fake_pbs, j) for j in order]
        named = fake_pbs.call("statjob", id=None, extend="x", names=["job_state", "queue"])
        assert [dict(r) for r in named] == [
            _one(fake_pbs, j, names=["job_state", "queue"]) for j in order]
    assert [r["id"] for r in fake_pbs.call("statjob", id=None, extend="")] == [held]
    server = dict((k, v) for k, v in fake_pbs.call("statsvr")["attrs"])
    assert server["total_jobs"] == "4"
    assert server["state_count"].startswith("Transit:0 Queued:0 Held:1 ")
    assert "resources_assigned.ncpus" in server
