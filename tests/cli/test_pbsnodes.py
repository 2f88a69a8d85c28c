"""pbsnodes against OpenPBS 23.06.06 transcripts (e01, e04, n01*, n03b), with the server request
replaced by canned replies built from the transcripts' own output."""
from typing import Any, Dict, List

import pytest

from fake_pbs.cli import common, pbsnodes, qstat
from fake_pbs.model.errors import PbsError
from .test_render_cases import case, normalize_timestamp, to_epoch, use_utc


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
