"""PBS's hook-file sync to the moms (hook_func.c) and its log lines.

Transcripts: g11_server_logs_preempt_D (``vnode vm's parent mom vm:15002 has a pending copy hook
or delete hook request`` before the Job Run of a job started just after qmgr disabled mom hooks,
``successfully sent hook file .../end_log.HK to vm:15002`` after it), extra m04f/m06d
(``created``, ``mgr_hook_import``, then ``NAME.HK`` and ``NAME.PY`` sent, hook by hook).
"""
import json
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

from fake_pbs.server import hooksync
from fake_pbs.testing import FakeCluster


class _Log:
    def __init__(self) -> None:
        self.lines: List[Tuple[int, str, str, str]] = []

    def write(self, event: int, cls: str, obj: str, message: str) -> None:
        self.lines.append((event, cls, obj, message))


class _State:
    def __init__(self) -> None:
        self.nodes: Dict[str, Dict[str, str]] = {"vm": {"Mom": "vm", "Port": "15002"}}
        self.objects: Dict[str, Dict[str, Dict[str, Any]]] = {"hook": {}}


class _App:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.server_name = "vm"
        self.state = _State()
        self.log = _Log()
        self.stopping = threading.Event()


def _sync(tmp_path: Path) -> Tuple[_App, hooksync.HookSync]:
    app = _App(tmp_path)
    return app, hooksync.HookSync(app, reply_delay=0.01)


def _settle(sync: hooksync.HookSync) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and sync.pending_count("vm:15002"):
        time.sleep(0.01)
    time.sleep(0.05)


def test_actions_follow_the_qmgr_command() -> None:
    """mgr_hook_create/import/set/delete: which actions a change of a mom hook adds."""
    mom = {"events": ["execjob_end"]}
    server = {"events": ["queuejob"]}
    assert hooksync.change_actions(None, mom, "create") == hooksync.SEND_ATTRS
    assert hooksync.change_actions(None, {"events": []}, "create") == 0
    assert hooksync.change_actions(mom, mom, "import-script") == hooksync.SEND_SCRIPT
    assert hooksync.change_actions(mom, mom, "import-config") == hooksync.SEND_CONFIG
    assert hooksync.change_actions(mom, mom, "set") == hooksync.SEND_ATTRS
    assert hooksync.change_actions(server, mom, "set") == (
        hooksync.SEND_ATTRS | hooksync.SEND_SCRIPT | hooksync.SEND_CONFIG)
    assert hooksync.change_actions(mom, server, "set") == hooksync.DELETE
    assert hooksync.change_actions(server, server, "set") == 0
    assert hooksync.change_actions(mom, None, "delete") == hooksync.DELETE


def test_pending_warning_then_sent_lines(tmp_path: Path) -> None:
    """g11: a run while the mom awaits end_log.HK warns (0x0080 Node, object the job); the
    reply logs ``successfully sent hook file <server_priv>/hooks/end_log.HK to vm:15002``."""
    app, sync = _sync(tmp_path)
    app.state.objects["hook"]["end_log"] = {"events": ["execjob_end"], "script": "x=1"}
    sync.reply_delay = 5.0  # the first batch stays out while the job runs
    sync.add("end_log", hooksync.SEND_ATTRS)
    sync.note_run("19.vm", ["vm"])
    assert app.log.lines == [(0x0080, "Node", "19.vm", "vnode vm's parent mom vm:15002 has a "
                              "pending copy hook or delete hook request")]
    batch = [("vm:15002", a, hooksync.SEND_ATTRS, a.serials[hooksync.SEND_ATTRS])
             for a in sync._pending["vm:15002"]]  # answer it now rather than in 5 s
    sync._replies(batch)
    assert app.log.lines[-1] == (0x0080, "Req", "Server@vm", "successfully sent hook file "
                                 "%s/server_priv/hooks/end_log.HK to vm:15002" % tmp_path)
    assert sync.pending_count("vm:15002") == 0
    del app.log.lines[:]
    sync.note_run("20.vm", ["vm"])
    assert app.log.lines == []


def test_batches_send_hk_before_py_hook_by_hook(tmp_path: Path) -> None:
    """m06d: changes made while a batch is out go in the next one, each hook's .HK then .PY;
    a file the hook lacks (no config imported) is not sent."""
    app, sync = _sync(tmp_path)
    hooks = app.state.objects["hook"]
    hooks["epi_log"] = {"events": ["execjob_epilogue"], "script": "a", "config": None}
    hooks["end_log2"] = {"events": ["execjob_end"], "script": "b", "config": None}
    sync.add("epi_log", hooksync.SEND_ATTRS)
    sync.add("epi_log", hooksync.SEND_SCRIPT | hooksync.SEND_CONFIG)
    sync.add("end_log2", hooksync.SEND_ATTRS)
    sync.add("end_log2", hooksync.SEND_SCRIPT)
    _settle(sync)
    sent = [m.rsplit("/", 1)[-1] for _, _, _, m in app.log.lines]
    assert sent == ["epi_log.HK to vm:15002", "epi_log.PY to vm:15002",
                    "end_log2.HK to vm:15002", "end_log2.PY to vm:15002"]


def test_delete_line(tmp_path: Path) -> None:
    """post_sendhookTPP: ``successfully deleted hook file NAME.HK from vm:15002``."""
    app, sync = _sync(tmp_path)
    sync.add("gone", hooksync.DELETE)
    _settle(sync)
    assert [m for _, _, _, m in app.log.lines] == [
        "successfully deleted hook file gone.HK from vm:15002"]


def _server_log(cluster: FakeCluster) -> List[str]:
    lines: List[str] = []
    for path in sorted((cluster.home / "server_logs").glob("*")):
        lines.extend(path.read_text().splitlines())
    return [ln.split(";", 1)[1] for ln in lines]


def _nodes(cluster: FakeCluster) -> List[str]:
    out = cluster.run(["pbsnodes", "-a", "-F", "json"]).stdout
    return sorted(json.loads(out)["nodes"])


def test_qmgr_mom_hook_is_synced(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """m04f: ``created``, ``mgr_hook_import``, then ``eb_x.HK`` and ``eb_x.PY`` sent (0x0080
    Req, object Server@vm); a server hook (queuejob) is never sent to the moms."""
    script = tmp_path / "h.py"
    script.write_text("import pbs\npbs.event().accept()\n")
    start = len(_server_log(fake_pbs))
    try:
        for command in ("create hook eb_x event=execjob_begin",
                        "import hook eb_x application/x-python default %s" % script,
                        "create hook qj_x event=queuejob",
                        "import hook qj_x application/x-python default %s" % script):
            assert fake_pbs.run(["qmgr", "-c", command]).returncode == 0
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(
                "eb_x.PY" in ln for ln in _server_log(fake_pbs)[start:]):
            time.sleep(0.05)
        time.sleep(0.3)
        got = [ln for ln in _server_log(fake_pbs)[start:] if ";Req;Server@vm;" in ln]
        hooks = str(fake_pbs.home / "server_priv" / "hooks")
        assert got == ["0080;Server@vm;Req;Server@vm;successfully sent hook file %s/eb_x.%s "
                       "to %s:15002" % (hooks, suffix, mom) for suffix in ("HK", "PY")
                       for mom in _nodes(fake_pbs)]  # create's batch, then import's
    finally:
        for name in ("eb_x", "qj_x"):
            fake_pbs.run(["qmgr", "-c", "delete hook %s" % name])
