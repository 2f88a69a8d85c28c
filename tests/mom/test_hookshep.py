"""The hook shepherd's records (fake_pbs/mom/hookshep.py; DESIGN.md "Process model"): a recorded
result is reused, never rerun; a shepherd gone without a result is a hook error, not a hang."""
from pathlib import Path
from typing import Any, List

import pytest

from fake_pbs.mom import hookpoints, hookshep
from fake_pbs.mom.durable import read_json, write_json


def _site(home: Path) -> hookpoints.HookSite:
    def log(event: int, klass: str, obj: str, msg: str) -> None:
        pass
    return hookpoints.HookSite(home, "node1", True, log)


def _forbid_direct(monkeypatch: pytest.MonkeyPatch, calls: List[str]) -> None:
    def direct(site: hookpoints.HookSite, job: Any, *args: Any) -> hookpoints.HookResult:
        calls.append("ran")
        return hookpoints.ACCEPT
    monkeypatch.setattr(hookpoints, "execjob_epilogue", direct)


def test_recorded_result_is_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mom restarted after the epilogue finished takes its result (reject, rerun) as is."""
    calls: List[str] = []
    _forbid_direct(monkeypatch, calls)
    _, _, result = hookshep.record_paths(tmp_path, "execjob_epilogue")
    write_json(result, hookpoints.HookResult(accept=False, message="no", rerun=True)._asdict())
    got = hookshep.run(_site(tmp_path), "execjob_epilogue", {"id": "1.vm"}, tmp_path, [0])
    assert (got.accept, got.message, got.rerun) == (False, "no", True) and calls == []
    assert hookshep.in_progress(tmp_path, "execjob_epilogue")


def test_shepherd_gone_without_result_is_a_hook_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A start record whose process is gone (host crash): error result, recorded once."""
    calls: List[str] = []
    _forbid_direct(monkeypatch, calls)
    _, start, result = hookshep.record_paths(tmp_path, "execjob_epilogue")
    write_json(start, {"pid": 2 ** 22 + 7, "ticks": 1})  # above any pid_max default: never alive
    got = hookshep.run(_site(tmp_path), "execjob_epilogue", {"id": "1.vm"}, tmp_path, [0])
    assert got.error and not got.accept and got.message == hookshep.LOST_MESSAGE
    assert (read_json(result) or {}).get("error") is True and calls == []
