"""Stage-out after the obit, on the server's copy file request (req_jobobit.c on_job_exit).

Transcripts: h01_tracejob_exit3 and extra i06d_wt_mom / k03n_qsig_mom: the mom logs ``Obit
sent``, then (on the server's request) ``copy file request received``, ``Staged 2/2 items out
over 0:00:00``, ``no active tasks``, and later ``delete job request received``, ``kill_job``.
"""
from typing import List

from .momrig import MomRig


def _job_lines(rig: MomRig, jobid: str) -> List[str]:
    text = "".join(p.read_text() for p in (rig.home / "mom_logs" / "node1").iterdir())
    mark = ";pbs_mom;Job;%s;" % jobid
    return [line.split(mark, 1)[1] for line in text.splitlines() if mark in line]


def test_output_staged_after_obit_on_copy_request(node1: MomRig) -> None:
    """h01/i06d order: Obit sent < copy file request received < Staged < no active tasks <
    delete job request received < kill_job; the output is there when the stream ends."""
    events = node1.run("node1", node1.spec("31.vm", "echo out; echo err >&2; exit 3\n"))
    assert [e["ev"] for e in events] == ["start", "finish", "release"]
    assert events[-1]["stageout_status"] == 1
    assert (node1.user_home / "job.o31").read_text() == "out\n"
    node1.request("node1", "discard", job="31.vm", run_count=1)
    lines = _job_lines(node1, "31.vm")
    tail = lines[lines.index("Obit sent"):]
    assert tail == ["Obit sent", "copy file request received",
                    "Staged 2/2 items out over 0:00:00", "no active tasks",
                    "delete job request received", "kill_job"]


def test_no_copy_request_waits_then_discard_stages_out(node1: MomRig) -> None:
    """Without the server's copy request the mom holds the output back (no ``Staged`` line,
    no final release); a delete job request still delivers it, without a 'copy file' line."""
    channel = node1.submit("node1", node1.spec("32.vm", "echo out\n"))
    events: List[dict] = []  # type: ignore[type-arg]
    for msg in channel.messages():
        events.append(msg)
        if msg.get("ev") == "finish":
            break
    assert "Staged" not in " ".join(_job_lines(node1, "32.vm"))
    node1.request("node1", "discard", job="32.vm", run_count=1)
    assert (node1.user_home / "job.o32").read_text() == "out\n"
    lines = _job_lines(node1, "32.vm")
    assert "copy file request received" not in lines
    assert lines.index("Staged 2/2 items out over 0:00:00") > lines.index("Obit sent")


def test_discard_of_an_earlier_job_with_the_same_id_is_ignored(node1: MomRig) -> None:
    """Ids come back (a reset starts them at 0): a late delete-job request for the job that
    had this id and run_count before must not end the new job, which has another run key."""
    spec = dict(node1.spec("33.vm", "sleep 30\n"), run_key="33.vm#1#new")
    channel = node1.submit("node1", spec)
    node1.read_until(channel, "start")
    node1.request("node1", "discard", job="33.vm", run_count=1, run_key="33.vm#1#old")
    held = [j["id"] for j in node1.request("node1", "status")["jobs"]]
    assert "33.vm" in held
    node1.request("node1", "discard", job="33.vm", run_count=1, run_key="33.vm#1#new")
    held = [j["id"] for j in node1.request("node1", "status")["jobs"]]
    assert "33.vm" not in held


def test_a_new_job_with_a_held_id_replaces_the_stale_run(node1: MomRig) -> None:
    """After a reset the server gives an id again: a start whose run key names another job
    (another instance token) is a new job, not the held run started again; the held run,
    which the server is done with, is discarded and the new job runs with its own stream."""
    old = node1.submit("node1", node1.spec("34.vm", "sleep 30\n", run_key="34.vm#1#aaaa"))
    node1.read_until(old, "start")
    new = node1.submit("node1", node1.spec("34.vm", "echo new\n", run_key="34.vm#1#bbbb"))
    events = node1.read_until(new, "release-final")
    assert [e.get("ev") for e in events] == ["start", "finish", "release"]
    assert events[1]["status"] == 0  # the new script's end, not the old sleep's kill
    assert (node1.user_home / "job.o34").read_text() == "new\n"


def test_a_requeued_run_waits_for_its_old_run_to_end(node1: MomRig) -> None:
    """The same job (same instance token) sent again while its earlier run is still live
    here: refused with PBSE_JOBEXIST (15009), as the server's requeue expects."""
    old = node1.submit("node1", node1.spec("35.vm", "sleep 30\n", run_key="35.vm#1#cccc"))
    node1.read_until(old, "start")
    again = node1.submit("node1", node1.spec("35.vm", "true\n", run_count=2,
                                             run_key="35.vm#2#cccc"))
    reply = node1.read_until(again, "start")
    assert reply[0].get("ok") is False and reply[0].get("code") == 15009
    node1.request("node1", "discard", job="35.vm")
