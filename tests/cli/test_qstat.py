"""qstat's command line against OpenPBS 23.06.06 transcripts (b10-b12, b18, v01): argv parsing,
one request per operand, error ordering on stderr, exit codes and the header quirk.  The server
is replaced by canned replies built from the transcripts' own output."""
from typing import Any, Dict, List, Optional

import pytest

from fake_pbs.cli import common, qstat
from fake_pbs.model.errors import PbsError
from .test_render_cases import case, normalize_timestamp, pbs_json_objects, use_utc

FINISHED = {"id": "0.vm", "attrs": [
    ["Job_Name", "hello"], ["Job_Owner", "pbsuser@vm"], ["resources_used.cput", "00:00:00"],
    ["job_state", "F"], ["queue", "workq"]]}


class FakeServer:
    """Jobs 15.vm (running, from b11d) and 0.vm (finished); everything else unknown."""

    def __init__(self) -> None:
        use_utc()
        name, pairs = pbs_json_objects(case("b11d_qstat_fjson_mixed")["stdout"], "Jobs")[0]
        self.jobs = {name: {"id": name, "attrs": [list(p) for p in pairs]}, "0.vm": FINISHED}
        self.calls: List[Any] = []

    def request(self, op: str, **args: Any) -> Any:
        self.calls.append((op, args))
        if op == "statsvr":
            return {"name": "vm", "attrs": [["server_state", "Active"],
                                            ["max_job_sequence_id", "9999999"]]}
        if op != "statjob":
            raise AssertionError(op)
        history = "x" in args.get("extend", "")
        wanted: Optional[str] = args.get("id")
        if wanted is None:
            return [j for j in self.jobs.values() if history or j is not FINISHED]
        if wanted not in self.jobs:
            raise PbsError(15001)
        if self.jobs[wanted] is FINISHED and not history:
            raise PbsError(15139)
        return [self.jobs[wanted]]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    fake = FakeServer()
    monkeypatch.setattr(common, "request", fake.request)
    monkeypatch.setattr(qstat, "server_name", lambda: "vm")
    return fake


def run(argv: List[str], capsys: pytest.CaptureFixture[str]) -> Dict[str, Any]:
    code = qstat.body(argv)
    captured = capsys.readouterr()
    return {"exit_code": code, "stdout": captured.out, "stderr": captured.err}


@pytest.mark.parametrize("name", [
    "b10_qstat_unknown_id", "b10b_qstat_unknown_id_short", "b10c_qstat_finished_id_without_x",
    "b11_qstat_mixed", "b11b_qstat_mixed_x", "b11f_qstat_F_json_without_f",
    "b18_qstat_unknown_server_suffix", "v01_qstat_version",
])
def test_transcript(name: str, server: FakeServer,
                    capsys: pytest.CaptureFixture[str]) -> None:
    """Exact stdout, stderr and exit status of the transcript (errors per operand, in order;
    exit = last error % 256; conflicting options -> usage, exit 2)."""
    expected = case(name)
    argv = expected["command"].split()[1:]
    assert run(argv, capsys) == {k: expected[k] for k in ("exit_code", "stdout", "stderr")}


def test_json_mixed(server: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    """b11d: `qstat -f -F json 999.vm 15.vm`: the error on stderr, the found job in Jobs."""
    expected = case("b11d_qstat_fjson_mixed")
    result = run(["-f", "-F", "json", "999.vm", "15.vm"], capsys)
    assert result["exit_code"] == 153 and result["stderr"] == expected["stderr"]
    assert normalize_timestamp(result["stdout"]) == normalize_timestamp(expected["stdout"])


def test_no_header_when_first_id_fails(server: FakeServer,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """openpbs-behaviour 2.1 quirk: the server status goes with the first operand; when that id
    fails, later jobs print without the header."""
    result = run(["999", "15"], capsys)
    assert result["stdout"].startswith("15.vm ")
    assert result["stderr"] == "qstat: Unknown Job Id 999.vm\n"


def test_one_request_per_operand(server: FakeServer, capsys: pytest.CaptureFixture[str]) -> None:
    """qstat.c: pbs_statjob once per job id, extend letters as given (-x -> x, -t -> t),
    asking for basic_attribs (Job_Name, Job_Owner, resources_used, job_state, queue) for the
    default table and for every attribute (none named) with -f."""
    run(["-x", "-t", "15", "0.vm"], capsys)
    stats = [args for op, args in server.calls if op == "statjob"]
    basic = ["Job_Name", "Job_Owner", "resources_used", "job_state", "queue"]
    assert stats == [{"id": "15.vm", "extend": "xt", "names": basic},
                     {"id": "0.vm", "extend": "xt", "names": basic}]
    run(["-f", "-x", "15"], capsys)
    stats = [args for op, args in server.calls if op == "statjob"]
    assert stats[-1] == {"id": "15.vm", "extend": "x"}


def test_user_without_jobs_prints_nothing(server: FakeServer,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """b12b: `qstat -u nobodyxyz` -> no output at all, exit 0."""
    assert run(["-u", "nobodyxyz"], capsys) == {"exit_code": 0, "stdout": "", "stderr": ""}


def test_user_filter_uses_alternate_display(server: FakeServer,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """b12: `qstat -u pbsuser` -> the alternate display with its 5 header lines."""
    out = run(["-u", "pbsuser"], capsys)["stdout"]
    assert out.startswith("\nvm: \n") and out.splitlines()[5].startswith("15.vm ")


@pytest.mark.parametrize("argv,message", [
    (["-F", "json", "-w", "-f"], "qstat: option w cannot be used with -F\n"),
    (["-Q", "-B"], "qstat: conflicting options.\n"),
    (["-1"], "qstat: conflicting options.\n"),
    (["-Z"], "qstat: invalid option -- 'Z'\n"),
])
def test_usage_errors(argv: List[str], message: str,
                      capsys: pytest.CaptureFixture[str]) -> None:
    """qstat.c option checks: message, then the usage text, exit 2."""
    result = run(argv, capsys)
    assert result["exit_code"] == 2 and result["stderr"].startswith(message + "usage: \n")


def test_selection_with_t_lists_an_arrays_subjobs_not_the_array() -> None:
    """Extra j02d: `qstat -J -t` lists only the subjobs (req_select.c: a selected array stands
    for its subjobs, their own states checked against -s/-i/-r); plain jobs stay."""
    def rec(jobid: str, state: str, **extra: str) -> Dict[str, Any]:
        return {"id": jobid, "attrs": [["job_state", state]] + [[k, v] for k, v in extra.items()]}
    jobs = [rec("338.vm", "R"), rec("339[].vm", "B", array="True"),
            rec("339[1].vm", "R", array_id="339[].vm"), rec("339[2].vm", "Q", array_id="339[].vm")]
    assert [j["id"] for j in qstat.select(jobs, [("array", "True")], True)] == [
        "339[1].vm", "339[2].vm"]
    assert [j["id"] for j in qstat.select(jobs, [("state", "EHQTW")], True)] == ["339[2].vm"]
    assert [j["id"] for j in qstat.select(jobs, [("array", "True")])] == ["339[].vm"]
