"""A run is named by its run key, not by job id and run_count: ids come back.

PBS reuses job ids once the sequence wraps, and the fake's reset starts them at 0 again.  CI saw
the result of naming a run ``<id>#<run_count>``: the follower of the last test's ``0.vm`` run was
still finishing when the next test's ``0.vm`` (run_count 1 too) was run, so the new run was taken
for one already followed, never sent to its mom, and stayed R/41 for good.
"""
import threading
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Tuple

from fake_pbs.server import lifecycle
from fake_pbs.server.execclient import ExecClient


class _Recorder:
    """Stands in for the follower threads: records what would be followed."""

    def __init__(self) -> None:
        self.spawned: List[Tuple[Callable[..., Any], Tuple[Any, ...]]] = []

    def spawn(self, target: Callable[..., Any], *args: Any) -> None:
        self.spawned.append((target, args))


def _client(jobs: Dict[str, Dict[str, Any]]) -> Tuple[ExecClient, _Recorder]:
    app = SimpleNamespace(state=SimpleNamespace(lock=threading.RLock(), jobs=jobs),
                          stopping=threading.Event(), home=None)
    client = ExecClient(app)  # type: ignore[arg-type]
    recorder = _Recorder()
    client._followers = recorder  # type: ignore[assignment]
    return client, recorder


def _running(key: str) -> Dict[str, Any]:
    return {"_id": "0.vm", "run_count": "1", "job_state": "R", "exec_host": "node1/0",
            "_run_key": key}


def test_a_new_job_with_a_reused_id_and_run_count_is_followed() -> None:
    jobs = {"0.vm": _running("0.vm#1#old")}
    client, recorder = _client(jobs)
    client.start("0.vm")
    jobs["0.vm"] = _running("0.vm#1#new")  # reset; the old follower has not yet finished
    client.start("0.vm")
    followed = [args for _, args in recorder.spawned]
    assert followed == [("0.vm", "0.vm#1#old"), ("0.vm", "0.vm#1#new")]


def test_the_same_run_is_followed_once() -> None:
    client, recorder = _client({"0.vm": _running("0.vm#1#a")})
    client.start("0.vm")
    client.start("0.vm")
    assert len(recorder.spawned) == 1


def test_a_stale_follower_leaves_the_new_job_with_its_id_alone() -> None:
    """The old run's follower returns at once: it neither connects to the mom nor marks the
    new run sent."""
    jobs = {"0.vm": _running("0.vm#1#new")}
    client, _ = _client(jobs)
    client._follow("0.vm", "0.vm#1#old")
    assert "_sent" not in jobs["0.vm"]


def test_run_key_falls_back_to_id_and_run_count() -> None:
    """A job run by a server without keys (its saved record has none) keeps a name."""
    assert lifecycle.run_key({"_id": "3.vm", "run_count": "2"}) == "3.vm#2"
