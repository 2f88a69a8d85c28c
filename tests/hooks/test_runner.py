"""The hook runner and the ``pbs`` module: one hook per python3 subprocess (reference §6.1-6.3,
hook sources of the golden f* and m* cases)."""
from pathlib import Path
from typing import Any, Dict, List

from fake_pbs.hooks.runner import run_hook
from fake_pbs.model.hooks import Hook

SCENARIO = Path("/work/shared/fidelity/scenario/hooks")
EXTRA = Path("/work/shared/fidelity/openpbs-23.06.06-extra/hooks")


def make_hook(name: str, source: str, alarm: int = 30, config: Any = None) -> Hook:
    hook = Hook(name)
    hook.script = source
    hook.alarm = alarm
    hook.config = config
    return hook


def context(tmp_path: Path, **extra: Any) -> Dict[str, Any]:
    base: Dict[str, Any] = {"job": {"id": "21.vm", "Job_Name": "abortme",
                                    "Resource_List.ncpus": "1"},
                            "side": "mom", "daemon": "pbs_python",
                            "log_file": str(tmp_path / "log"), "local_node": "node1"}
    base.update(extra)
    return base


def log_lines(tmp_path: Path) -> List[str]:
    path = tmp_path / "log"
    return [line.split(";", 2)[2] for line in path.read_text().splitlines()] if path.exists() \
        else []


def test_reject_with_message_is_logged_at_0006(tmp_path: Path) -> None:
    """pro_reject.py (case f04): logmsg(LOG_DEBUG) -> 0006;pbs_python;Hook;pbs_python."""
    hook = make_hook("pro_reject", (SCENARIO / "pro_reject.py").read_text())
    run = run_hook(hook, "execjob_prologue", context(tmp_path))
    assert (run.result, run.message) == ("reject", "no")
    assert "pbs_python;Hook;pbs_python;ran execjob_prologue for 21.vm (rejecting)" in \
        log_lines(tmp_path)


def test_exception_logs_like_pbs_python(tmp_path: Path) -> None:
    """abort_raise.py (case f13): the exception lines pbs_python writes, exit 254."""
    hook = make_hook("abort_raise", (SCENARIO / "abort_raise.py").read_text())
    run = run_hook(hook, "execjob_abort", context(tmp_path))
    assert (run.result, run.exit_status) == ("exception", 254)
    lines = log_lines(tmp_path)
    assert "pbs_python;Svr;pbs_python;PBS server internal error (15011) in Error evaluating " \
        "Python script, <class 'RuntimeError'>" in lines
    assert "pbs_python;Hook;abort_raise;execjob_abort hook 'abort_raise' encountered an " \
        "exception, request rejected" in lines


def test_alarm_kills_the_hook_and_keeps_earlier_messages(tmp_path: Path) -> None:
    """abort_sleep.py with alarm=1 (case f23: alarm=3, message logged before the kill)."""
    hook = make_hook("abort_sleep", (SCENARIO / "abort_sleep.py").read_text(), alarm=1)
    run = run_hook(hook, "execjob_abort", context(tmp_path))
    assert run.result == "alarm"
    lines = log_lines(tmp_path)
    assert any("ran execjob_abort (sleeping 10s) for 21.vm" in line for line in lines)
    assert not any("sleeper woke up" in line for line in lines)


def test_job_actions_and_attribute_changes(tmp_path: Path) -> None:
    """job.delete()/job.rerun() and attribute writes reach the runner (reference §6.2)."""
    source = ("import pbs\ne = pbs.event()\ne.job.delete()\ne.job.rerun()\n"
              "e.job.Resource_List['walltime'] = pbs.duration('00:42:00')\n"
              "assert e.type == pbs.EXECJOB_BEGIN == 64 and e.job.in_ms_mom()\n"
              "assert e.job.Resource_List['ncpus'] == 1\n"
              "assert pbs.get_local_nodename() == 'node1'\ne.accept()\n")
    run = run_hook(make_hook("act", source), "execjob_begin", context(tmp_path))
    assert run.result == "accept", run
    assert run.delete and run.rerun
    assert run.job_changes == {"Resource_List.walltime": "00:42:00"}


def test_server_hook_cannot_rerun_and_sees_config(tmp_path: Path) -> None:
    """rerun() is mom-only (NotImplementedError); hook_config_filename holds the config (m11)."""
    source = ("import pbs\ne = pbs.event()\ntxt = open(pbs.hook_config_filename).read()\n"
              "try:\n    e.job.rerun()\nexcept NotImplementedError as exc:\n"
              "    e.reject('%s %s' % (txt.strip(), exc))\n")
    hook = make_hook("cfg", source, config="greeting=hello-from-config\n")
    run = run_hook(hook, "queuejob", context(tmp_path, side="server", daemon="Server@vm"))
    assert run.result == "reject"
    assert run.message == "greeting=hello-from-config rerun(): only for mom hooks"


def test_bad_log_level_raises_type_error(tmp_path: Path) -> None:
    """pbs.logmsg with an unknown level: TypeError (reference §6.2) -> exception outcome."""
    source = "import pbs\npbs.logmsg(0x10000, 'x')\n"
    run = run_hook(make_hook("lvl", source), "queuejob", context(tmp_path, side="server"))
    assert run.result == "exception"
    assert "Invalid severity or eventtype value 65536" in run.message


def test_no_accept_call_means_accept(tmp_path: Path) -> None:
    """A hook that ends without accept() or reject() is accepted, as in PBS."""
    run = run_hook(make_hook("quiet", "import pbs\n"), "execjob_end", context(tmp_path))
    assert run.result == "accept"
