"""The mom's hook call points and how their results change a job (reference §6.3-6.4), with a
mom running in this process so the hook functions can be replaced by recorders."""
import threading
from typing import Any, Iterator, List

import pytest

from fake_pbs.model.errors import PbsError
from fake_pbs.mom import hookpoints
from fake_pbs.mom.context import MomContext
from fake_pbs.mom.daemon import MomDaemon
from fake_pbs.mom.hookpoints import HookResult

from .momrig import MomRig, event, kinds

EVENTS = ("execjob_begin", "execjob_prologue", "execjob_launch", "execjob_preterm",
          "execjob_epilogue", "execjob_end", "execjob_abort")


class Recorder:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: List[str] = []
        self.results = {name: hookpoints.ACCEPT for name in EVENTS}
        for name in EVENTS:
            monkeypatch.setattr(hookpoints, name, self._hook(name))

    def _hook(self, name: str) -> Any:
        def hook(site: hookpoints.HookSite, job: Any, *args: Any) -> HookResult:
            self.calls.append("%s@%s" % (name, site.host))
            return self.results[name]
        return hook


@pytest.fixture
def inproc(rig: MomRig, monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    recorder = Recorder(monkeypatch)
    ctx = MomContext(rig.home, "node1")
    ctx.layout.create()
    daemon = MomDaemon(ctx)
    daemon.bind()
    thread = threading.Thread(target=daemon.serve_forever, daemon=True)
    thread.start()
    try:
        yield recorder
    finally:
        daemon.stop()
        thread.join(timeout=10)


def test_normal_job_calls_begin_prologue_launch_epilogue_then_end(
        rig: MomRig, inproc: Recorder) -> None:
    """m06d: epilogue runs before the obit, execjob_end when the server discards the job."""
    events = rig.run("node1", rig.spec("1.vm", "exit 3\n"))
    assert event(events, "finish")["status"] == 3
    rig.request("node1", "discard", job="1.vm")
    assert inproc.calls == ["execjob_begin@node1", "execjob_prologue@node1",
                            "execjob_launch@node1", "execjob_epilogue@node1",
                            "execjob_end@node1"]


def test_prologue_reject_requeues_and_aborts_before_end(rig: MomRig, inproc: Recorder) -> None:
    """f04d: prologue rejection -> "job not started, Failure -16", execjob_abort, and only
    later (discard) execjob_end; no job shell."""
    inproc.results["execjob_prologue"] = HookResult(accept=False, message="no")
    events = rig.run("node1", rig.spec("2.vm", "exit 0\n"))
    assert kinds(events) == ["exception", "finish", "release"]
    assert event(events, "finish")["status"] == -16
    rig.request("node1", "discard", job="2.vm")
    assert inproc.calls[-3:] == ["execjob_prologue@node1", "execjob_abort@node1",
                                 "execjob_end@node1"]


@pytest.mark.parametrize("result, status", [
    (HookResult(accept=False), -17),
    (HookResult(accept=False, rerun=True), -16),
])
def test_launch_reject_deletes_unless_rerun(rig: MomRig, inproc: Recorder,
                                            result: HookResult, status: int) -> None:
    """Reference §6.4: launch reject -> -17 (job deleted) unless job.rerun() -> -16."""
    inproc.results["execjob_launch"] = result
    events = rig.run("node1", rig.spec("3.vm", "exit 0\n"))
    assert event(events, "finish")["status"] == status
    assert "execjob_abort@node1" in inproc.calls


@pytest.mark.parametrize("result, code", [
    (HookResult(accept=False, message="no"), 15169),
    (HookResult(accept=False, delete=True), 15171),
    (HookResult(accept=False, rerun=True), 15170),
    (HookResult(accept=False, error=True), 15136),
])
def test_begin_reject_refuses_the_job_send(rig: MomRig, inproc: Recorder,
                                           result: HookResult, code: int) -> None:
    """m04 (extra set): an execjob_begin rejection on the primary is the mom's error reply to
    the job send: the job is never taken in (no start, obit or abort hook), and the server's
    later delete-job request runs no execjob_end and logs nothing."""
    inproc.results["execjob_begin"] = result
    events = rig.run("node1", rig.spec("4.vm", "exit 0\n"))
    assert [k for k in kinds(events) if k != "update"] == ["rejected", "release"]
    assert event(events, "rejected")["code"] == code
    rig.request("node1", "discard", job="4.vm")
    assert inproc.calls == ["execjob_begin@node1"]


def test_preterm_reject_refuses_the_delete(rig: MomRig, inproc: Recorder) -> None:
    """Reference §3: execjob_preterm rejection -> the TermJob fails with PBSE_HOOK_REJECT."""
    inproc.results["execjob_preterm"] = HookResult(accept=False)
    channel = rig.submit("node1", rig.spec("5.vm", "sleep 300\n"))
    rig.read_until(channel, "start")
    with pytest.raises(PbsError) as info:
        rig.request("node1", "signal", job="5.vm", signal="TermJob")
    assert info.value.code == 15169
    rig.request("node1", "signal", job="5.vm", signal="SIGKILL")
    assert rig.read_until(channel, "release")[0]["status"] == 265


def test_launch_hook_may_replace_progname_argv_and_env(rig: MomRig, inproc: Recorder) -> None:
    """execjob_launch may change progname, argv and env (pbs.event().progname/argv/env)."""
    inproc.results["execjob_launch"] = HookResult(
        progname="/bin/sh", argv=["mysh", "-c", "echo $0 $ONLY"],
        env={"ONLY": "from-hook", "PATH": "/bin"})
    events = rig.run("node1", rig.spec("6.vm", "exit 9\n"))
    assert event(events, "finish")["status"] == 0
    assert (rig.user_home / "job.o6").read_text() == "mysh from-hook\n"


def test_hook_requests_reach_the_server_as_update_events(rig: MomRig, inproc: Recorder) -> None:
    """Reference §6.3: job actions and attribute changes are sent to the server even when the
    hook accepts (an execjob_begin that calls job.delete() then accepts -> -19 on the server)."""
    inproc.results["execjob_begin"] = HookResult(delete=True, job_attrs={"comment": "x"})
    events = rig.run("node1", rig.spec("7.vm", "exit 0\n"))
    assert kinds(events) == ["update", "start", "finish", "release"]
    assert events[0]["hook_event"] == "execjob_begin"
    assert events[0]["delete"] is True and events[0]["attrs"] == {"comment": "x"}
