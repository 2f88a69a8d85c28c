"""PBS's per-request, scheduler-command, vnode-state and job-usage server log lines (g11).

Transcript g11_server_logs_preempt_D (OpenPBS 23.06.06): qsub -> ``Type 1/3/5 request
received``; ``qstat -f`` -> 0, 95, 21, 19; each scheduling cycle -> ``Scheduler sent command N``
and the scheduler's queries 21 71 58 20 51 51, then 23 per run; ``set_vnode_state`` lines when a
job makes its vnode job-busy and free; ``Exit_status=... resources_used...`` at the end.
"""
import re
import time
from pathlib import Path
from typing import List

from fake_pbs.server import logs, reqlog, vnodeslots, vnodestate
from fake_pbs.testing import FakeCluster


def _messages(directory: Path) -> List[str]:
    lines: List[str] = []
    for path in sorted(directory.glob("*")):
        lines.extend(path.read_text().splitlines())
    return [ln.split(";", 1)[1] for ln in lines]


def test_connection_lines_follow_pbs_clients(tmp_path: Path) -> None:
    """g11: qsub's 1 3 5 on its daemon's connection; qstat's 0 95 21 19 on a fresh one."""
    log = logs.DaemonLog(tmp_path, "Server@vm", lambda: 0.0)
    submit = reqlog.ConnectionLog(log, "pbsuser@vm", 18)
    submit.request("ping")  # fake-only: no PBS request behind it
    submit.request("queuejob")
    status = reqlog.ConnectionLog(log, "root@vm", 19)
    status.request("statsvr")
    status.request("statjob")
    assert _messages(tmp_path) == [
        "0100;Server@vm;Req;;Type %d request received from %s, sock=%d" % line for line in [
            (1, "pbsuser@vm", 18), (3, "pbsuser@vm", 18), (5, "pbsuser@vm", 18),
            (0, "root@vm", 19), (95, "root@vm", 20), (21, "root@vm", 19),
            (19, "root@vm", 19)]]


def test_request_lines_obey_log_events(tmp_path: Path) -> None:
    """PBS logs them at event 0x0100, which the default log_events (511) includes."""
    log = logs.DaemonLog(tmp_path, "Server@vm", lambda: 0.0, lambda: 0x0FF)
    reqlog.ConnectionLog(log, "root@vm", 19).request("statjob")
    assert _messages(tmp_path) == []


def test_cycle_start_lines(tmp_path: Path) -> None:
    """g11: ``Scheduler sent command 1`` (0x0040 Svr, object the server) and the queries."""
    log = logs.DaemonLog(tmp_path, "Server@vm", lambda: 0.0)
    reqlog.cycle_started(log, "vm", "vm", reqlog.SCH_SCHEDULE_TERM)
    reqlog.scheduler_request(log, "vm", reqlog.PREEMPT_JOBS)
    got = _messages(tmp_path)
    assert got[0] == "0040;Server@vm;Svr;vm;Scheduler sent command 2"
    assert [int(re.search(r"Type (\d+)", ln).group(1)) for ln in got[1:]] == [  # type: ignore
        21, 71, 58, 20, 51, 51, 93]
    assert all(ln.endswith("from Scheduler@vm, sock=16") for ln in got[1:])


def test_set_vnode_state_lines() -> None:
    """g11: busy ``vnode.state=0x10 vnode_o.state=0x0 ... state_bits=0x10 ... Nd_State_Or``;
    free ``state_bits=0xffffffffffffffaf state_bit_op_type_str=Nd_State_And ...=2``."""
    assert vnodestate.change_line(0x10, 0x0, 200, 100) == (
        "set_vnode_state;vnode.state=0x10 vnode_o.state=0x0 vnode.last_state_change_time=200 "
        "vnode_o.last_state_change_time=100 state_bits=0x10 state_bit_op_type_str=Nd_State_Or "
        "state_bit_op_type_enum=1")
    assert vnodestate.change_line(0x0, 0x10, 300, 200).endswith(
        "state_bits=0xffffffffffffffaf state_bit_op_type_str=Nd_State_And "
        "state_bit_op_type_enum=2")
    assert vnodestate.state_bits("job-busy") == 0x10
    assert vnodestate.state_bits("down,offline") == 0x3


def test_node_observer_sees_busy_and_free() -> None:
    """The vnode bookkeeping reports each job-busy/free flip (and only those) by name."""
    seen: List[str] = []
    table = {"vm": {"resources_available.ncpus": "2", "state": "free"}}
    vnodeslots.state_observer = lambda name, node, old: seen.append(
        "%s %s->%s" % (name, old, node["state"]))
    try:
        vnodeslots.assign(table, "1.vm", "(vm:ncpus=1)")
        vnodeslots.assign(table, "2.vm", "(vm:ncpus=1)")
        vnodeslots.release(table, "1.vm", "(vm:ncpus=1)")
        vnodeslots.release(table, "2.vm", "(vm:ncpus=1)")
    finally:
        vnodeslots.state_observer = None
    assert seen == ["vm free->job-busy", "vm job-busy->free"]


def test_end_usage_is_the_e_records_usage() -> None:
    """h01/g11: the log line is the E record's ``Exit_status=3 resources_used...`` part."""
    record = ("user=u group=g start=1 exec_host=vm/0 session=0 end=2 Exit_status=271 "
              "resources_used.cpupercent=0 resources_used.cput=00:00:00 resources_used.mem=0kb "
              "resources_used.ncpus=1 resources_used.vmem=0kb resources_used.walltime=00:00:03 "
              "run_count=1")
    assert logs.end_usage(record) == (
        "Exit_status=271 resources_used.cpupercent=0 resources_used.cput=00:00:00 "
        "resources_used.mem=0kb resources_used.ncpus=1 resources_used.vmem=0kb "
        "resources_used.walltime=00:00:03")
    assert logs.end_usage("requestor=root@vm") == ""


def _server_log(cluster: FakeCluster) -> List[str]:
    lines: List[str] = []
    for path in sorted((cluster.home / "server_logs").glob("*")):
        lines.extend(path.read_text().splitlines())
    return [ln.split(";", 2)[2] for ln in lines]


def test_job_life_in_the_server_log(fake_pbs: FakeCluster) -> None:
    """g11 for one job filling its vnode: request lines, cycle, busy, run, free, usage.

    On a slow machine other requests fell into the job's lines: the test's own statjob polls
    (it now waits on the log instead) and a cycle the test's reset set off (its lines are
    told apart by their sender, Scheduler@vm, and the job's cycle is the one that runs it)."""
    start = len(_server_log(fake_pbs))
    jobid = fake_pbs.qsub("true", "-l", "select=1:ncpus=8")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(
            "Exit_status=0 resources_used." in ln for ln in _server_log(fake_pbs)[start:]):
        time.sleep(0.1)
    done = fake_pbs.run(["qstat", "-x", "-f", jobid])
    assert done.returncode == 0
    window = _server_log(fake_pbs)[start:]
    head = next(i for i, ln in enumerate(window) if ln.startswith("Server@vm;Req;;Type 1 "))
    got = window[head:]
    req = [ln for ln in got if ln.startswith("Server@vm;Req;;Type ")]
    client = [int(ln.split()[1]) for ln in req if " from Scheduler@vm," not in ln]
    assert client == [1, 3, 5, 0, 95, 21, 19], req  # qsub's, then qstat's
    assert re.fullmatch(r"Server@vm;Req;;Type 1 request received from \S+@vm, sock=\d+",
                        req[0])
    run = next(i for i, ln in enumerate(got) if ln.startswith("Server@vm;Req;;Type 23 "))
    cycle = [ln for ln in got[:run + 1] if " from Scheduler@vm," in ln][-7:]
    assert [int(ln.split()[1]) for ln in cycle] == [21, 71, 58, 20, 51, 51, 23], req
    queries = got.index(cycle[0])

    def index(pattern: str, after: int = 0) -> int:
        return next(i for i, ln in enumerate(got) if i >= after and re.search(pattern, ln))

    # The command that set the cycle off precedes its queries: SCH_SCHEDULE_NEW (1) for the
    # qsub, or, under load, one the reset set off before the qsub's first request, which is
    # SCH_SCHEDULE_TERM (2) when a job of the test before ended since the last cycle.
    before = window[:head + queries]
    assert any(re.search(r"Scheduler sent command [12]$", ln) for ln in before), before[-12:]
    assert queries < index(
        r"Node;node1;set_vnode_state;vnode.state=0x10 vnode_o.state=0x0 ", queries) < index(
        "Job Run at request of Scheduler@vm", queries) < index(
        r"Node;node1;set_vnode_state;vnode.state=0x0 vnode_o.state=0x10 ", queries) < index(
        r"Job;%s;Exit_status=0 resources_used\.cpupercent=" % re.escape(jobid), queries)
    raw = "".join(p.read_text() for p in (fake_pbs.home / "server_logs").glob("*"))
    assert re.search(r";0010;Server@vm;Job;%s;Exit_status=0 " % re.escape(jobid), raw)
