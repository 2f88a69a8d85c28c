"""Running a command's ``body`` against a stub server and comparing with golden transcripts."""
import json
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

from fake_pbs.cli import common, jobctl
from fake_pbs.model.errors import PbsError

DATA = Path(__file__).resolve().parent.parent / "data" / "fidelity"
RELEASE = DATA / "openpbs-23.06.06"
EXTRA = DATA / "openpbs-23.06.06-extra"

Reply = Callable[[str, Dict[str, Any]], Any]


def case(name: str) -> Dict[str, Any]:
    """One golden transcript (command, stdout, stderr, exit_code)."""
    for folder in (RELEASE, EXTRA):
        path = folder / (name + ".json")
        if path.exists():
            return dict(json.loads(path.read_text()))
    raise FileNotFoundError(name)


class StubServer:
    """Records requests; answers with ``reply(op, args)`` (which may raise PbsError)."""

    def __init__(self, reply: Optional[Reply] = None) -> None:
        self.requests: List[Tuple[str, Dict[str, Any]]] = []
        self.reply = reply

    def __call__(self, op: str, **args: Any) -> Any:
        self.requests.append((op, args))
        if op == "ping":
            return {"server_name": "vm", "pid": 1}
        if self.reply is not None:
            return self.reply(op, args)
        if op == "queuejob":
            return {"jobid": "0.vm"}
        return None

    def ops(self, op: str) -> List[Dict[str, Any]]:
        return [args for name, args in self.requests if name == op]


def fail(code: int, text: Optional[str] = None) -> Reply:
    def reply(op: str, args: Dict[str, Any]) -> Any:
        if op == "queuejob" or op != "ping":
            raise PbsError(code, text)
    return reply


@pytest.fixture(name="stub")
def stub_fixture(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> StubServer:
    """A stub server, a job directory holding the scenario scripts, and a fixed environment."""
    server = StubServer()
    monkeypatch.setattr(common, "request", server)
    monkeypatch.setattr(jobctl, "_server_name", None)
    for script in (EXTRA / "scripts").glob("*.sh"):
        shutil.copy(script, tmp_path / script.name)
    monkeypatch.chdir(tmp_path)
    for name in ("MAIL", "TZ", "PBS_DPREFIX", "PBS_SHELL", "MYVAR", "FROMENV"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/home/pbsuser")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LOGNAME", "pbsuser")
    monkeypatch.setenv("PATH", "/opt/pbs/bin:/usr/bin:/bin")
    monkeypatch.setenv("SHELL", "/bin/bash")
    return server


def run(body: Callable[[List[str]], int], argv: List[str],
        capsys: pytest.CaptureFixture[str]) -> Tuple[int, str, str]:
    code = body(argv)
    out, err = capsys.readouterr()
    return code, out, err


def matches(name: str, result: Tuple[int, str, str]) -> None:
    """The command's (exit, stdout, stderr) equal the transcript's, byte for byte."""
    golden = case(name)
    assert result == (golden["exit_code"], golden["stdout"], golden["stderr"])
