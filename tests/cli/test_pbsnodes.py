"""pbsnodes against OpenPBS 23.06.06 transcripts (e01, e04, n01*, n03b), with the server request
replaced by canned replies built from the transcripts' own output."""
import json
from typing import Any, Dict, List

import pytest

from fake_pbs.cli import common, pbsnodes, qstat
from fake_pbs.model.errors import PbsError
from .test_render_cases import DATA, case, normalize_timestamp, to_epoch, use_utc


def _node_from_text(stdout: str) -> Dict[str, Any]:
    lines = [line for line in stdout.split("\n") if line]
    attrs: List[List[str]] = []
    for line in lines[1:]:
        key, _, value = line.strip().partition(" = ")
        if key.endswith("_time"):
            value = to_epoch(value)
        attrs.append([key, value])
    return {"name": lines[0], "attrs": attrs}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    use_utc()
    calls: List[Any] = []
    node = _node_from_text(case("e01_pbsnodes_a")["stdout"])

    def fake(op: str, **args: Any) -> Any:
        calls.append((op, args))
        if op == "statnode":
            if args.get("name") in (None, "vm"):
                return [node]
            raise PbsError(15062, "Unknown node ")
        if op == "manager":
            if args["name"] != "vm":
                raise PbsError(15062, "Unknown node ")
            return None
        raise AssertionError(op)

    monkeypatch.setattr(common, "request", fake)
    monkeypatch.setattr(qstat, "server_name", lambda: "vm")
    return calls


def test_all_nodes_text(server: List[Any], capsys: pytest.CaptureFixture[str]) -> None:
    """e01: `pbsnodes -a`, 5-space attribute lines, ctime dates, blank line after the node."""
    assert pbsnodes.body(["-a"]) == 0
    assert capsys.readouterr().out == case("e01_pbsnodes_a")["stdout"]


def test_json(server: List[Any], capsys: pytest.CaptureFixture[str]) -> None:
    """e04: `pbsnodes -a -F json`: numbers typed, jobs as a list, zero assignments left out,
    times as epochs."""
    assert pbsnodes.body(["-a", "-F", "json"]) == 0
    out = normalize_timestamp(capsys.readouterr().out)
    assert out == normalize_timestamp(case("e04_pbsnodes_F_json")["stdout"])


def test_offline_sends_manager_set(server: List[Any]) -> None:
    """n01: `pbsnodes -o vm` sets state offline (and a comment with -C) through the server."""
    assert pbsnodes.body(["-o", "-C", "maintenance window", "vm"]) == 0
    assert server[-1] == ("manager", {"command": "set", "objtype": "node", "name": "vm",
                                      "attrs": [["state", "+=", "offline"],
                                                ["comment", "=", "maintenance window"]]})


def test_mark_unknown_node(server: List[Any], capsys: pytest.CaptureFixture[str]) -> None:
    """n01m: `pbsnodes -o nosuchnode` -> `Error marking node nosuchnode - Unknown node `, rc 1."""
    expected = case("n01m_pbsnodes_o_unknown")
    assert pbsnodes.body(["-o", "nosuchnode"]) == expected["exit_code"]
    assert capsys.readouterr().err == expected["stderr"]


def test_list_marked(server: List[Any], capsys: pytest.CaptureFixture[str],
                     monkeypatch: pytest.MonkeyPatch) -> None:
    """n01g: `pbsnodes -l` prints `%-20s state comment` for offline nodes."""
    node = {"name": "vm", "attrs": [["state", "offline"], ["comment", "maintenance window"]]}
    monkeypatch.setattr(common, "request", lambda op, **a: [node])
    assert pbsnodes.body(["-l"]) == 0
    assert capsys.readouterr().out == case("n01g_pbsnodes_l_with_comment")["stdout"]


def test_unknown_node_listing(server: List[Any], capsys: pytest.CaptureFixture[str]) -> None:
    """pbsnodes.c LISTSP: `Node: X,  Error: <msg>` on stderr and exit 1."""
    assert pbsnodes.body(["nosuch"]) == 1
    assert capsys.readouterr().err == "Node: nosuch,  Error: Unknown node \n"


def test_usage(capsys: pytest.CaptureFixture[str]) -> None:
    """n03c: a bad option prints glibc's message and the usage, exit 1."""
    assert pbsnodes.body(["-n"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pbsnodes: invalid option -- 'n'\nusage:\tpbsnodes [-{o|r}]")


def extra(name: str) -> Dict[str, Any]:
    path = DATA / "openpbs-23.06.06-extra" / (name + ".json")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def _summary_of(monkeypatch: pytest.MonkeyPatch, node: Dict[str, Any], argv: List[str],
                capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr(common, "request", lambda op, **a: [node])
    monkeypatch.setattr(qstat, "server_name", lambda: "vm")
    assert pbsnodes.body(argv) == 0
    return capsys.readouterr().out


def test_summaries_of_an_offline_node(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """n03/n03a: `pbsnodes -aSj` and `-aS` of the node n03b lists: mem 24684084kb shown as
    `24gb/24gb`, nmics/ngpus 0/0 though neither is defined, the comment in the -S view."""
    use_utc()
    node = _node_from_text(case("n03b_pbsnodes_av_offline")["stdout"])
    assert _summary_of(monkeypatch, node, ["-aSj"], capsys) == \
        extra("n03_pbsnodes_aSj_offline")["stdout"]
    assert _summary_of(monkeypatch, node, ["-aS"], capsys) == \
        extra("n03a_pbsnodes_aS_offline")["stdout"]


def test_job_summary_of_a_node_running_a_gpu_job(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """n03c/n02u: one job on one of two cpus and gpus -> `1 1 0 24gb/24gb 1/2 0/0 1/2 413`
    (the server's suffix dropped from the job id, each id once)."""
    use_utc()
    node = _node_from_text(case("n03b_pbsnodes_av_offline")["stdout"])
    attrs = [a for a in node["attrs"] if a[0] not in ("state", "comment")]
    attrs.insert(0, ["state", "free"])
    attrs.insert(6, ["resources_available.ngpus", "2"])
    attrs += [["resources_assigned.ngpus", "1"], ["jobs", "413.vm/0"]]
    attrs = [["resources_assigned.ncpus", "1"] if a[0] == "resources_assigned.ncpus" else a
             for a in attrs]
    out = _summary_of(monkeypatch, {"name": "vm", "attrs": attrs}, ["-aSj"], capsys)
    expected = extra("n03c_pbsnodes_aSj_running")["stdout"]
    assert out == expected[:expected.index("vnode           state           OS")]
