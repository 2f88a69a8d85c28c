"""Resource definitions as data: a stock server knows PBS's built-ins only, a site adds its own
(extra case n02), and the scheduler schedules what sched_config's ``resources:`` line names."""
import json
from pathlib import Path
from typing import Any, Dict

import pytest

from fake_pbs import paths
from fake_pbs.model import sched_config
from fake_pbs.server import manager
from fake_pbs.server.app import ServerApp
from fake_pbs.server.sched.resources import consumables_of
from tests.cli.test_qmgr_golden import EXTRA, FakeServer, run_qmgr, server  # noqa: F401


def _case(name: str) -> Dict[str, Any]:
    return dict(json.loads((EXTRA / (name + ".json")).read_text()))


def _qmgr_part(case: Dict[str, Any]) -> str:
    return str(case["command"]).split(" && ")[0]


def test_ngpus_is_unknown_until_the_site_creates_it(server: FakeServer) -> None:  # noqa: F811
    """n02: `set node vm resources_available.ngpus=2` -> 187 and PBS's two lines; n02i/n02j:
    after `create resource ngpus type=long, flag=nh` the same set works."""
    case = _case("n02_set_ngpus")
    assert run_qmgr(server, _qmgr_part(case)) == (187, "", case["stderr"])
    assert "resources_available.ngpus" not in server.managed.nodes["vm"]
    assert run_qmgr(server, _case("n02i_create_resource_ngpus")["command"])[0] == 0
    assert run_qmgr(server, _qmgr_part(_case("n02j_set_ngpus_after_create")))[0] == 0
    assert server.managed.nodes["vm"]["resources_available.ngpus"] == "2"


def test_delete_resource_held_by_a_job_is_busy(server: FakeServer) -> None:  # noqa: F811
    """n02w: `delete resource ngpus` while (history) jobs use it -> rc 70, `Resource busy on
    job` and 15174; n02x/n02y: once no job holds it, it goes, and so does the node's value."""
    run_qmgr(server, "qmgr -c 'create resource ngpus type=long, flag=nh'")
    run_qmgr(server, "qmgr -c 'set node vm resources_available.ngpus=2'")
    holders = {"ngpus"}
    server.managed.resource_in_use = lambda name: name in holders
    case = _case("n02w_delete_resource_in_use")
    assert run_qmgr(server, case["command"]) == (70, "", case["stderr"])
    holders.clear()
    assert run_qmgr(server, _case("n02x_delete_resource_after_purge")["command"]) == (0, "", "")
    assert not [key for key in server.managed.nodes["vm"] if key.endswith(".ngpus")]
    assert "ngpus" not in server.managed.resources


def test_deleting_a_builtin_resource_is_an_invalid_request(server: FakeServer) -> None:  # noqa
    """mgr_resource_delete: a built-in resource is not custom -> 15004, an unknown one 15035."""
    assert run_qmgr(server, "qmgr -c 'delete resource ncpus'")[0] == 15004 % 256
    assert run_qmgr(server, "qmgr -c 'delete resource nosuch'")[0] == 15035 % 256


def _outcome(command: str, objtype: str, name: str, attrs: Any) -> manager.Outcome:
    managed = FakeServer().managed
    managed.scheds["default"] = manager.default_sched("vm")
    caller = manager.Caller("root", "vm", True)
    return manager.handle(managed, caller, "manager", {
        "command": command, "objtype": objtype, "name": name, "attrs": attrs})


def test_what_starts_a_cycle_and_what_rereads_sched_config() -> None:
    """n01i/n01j/n01n: `pbsnodes -r` (a node set) starts no cycle, the queued job waits;
    n01o: `set server scheduling=true` does (even when it was true); n02p: a `set sched`
    makes the scheduler re-read sched_config (SCH_CONFIGURE) without a cycle."""
    node = _outcome("set", "node", "vm", [["state", "-=", "offline"]])
    assert (node.kick_scheduler, node.reconfigure) == (False, False)
    svr = _outcome("set", "server", "", [["scheduling", "=", "true"]])
    assert (svr.kick_scheduler, svr.reconfigure) == (True, False)
    off = _outcome("set", "server", "", [["scheduling", "=", "false"]])
    assert off.kick_scheduler is False
    sched = _outcome("set", "sched", "default", [["log_events", "=", "767"]])
    assert (sched.kick_scheduler, sched.reconfigure) == (False, True)
    queue = _outcome("set", "queue", "workq", [["started", "=", "True"]])
    assert queue.kick_scheduler is True
    resc = _outcome("create", "resource", "ngpus", [["type", "=", "long"]])
    assert (resc.kick_scheduler, resc.reconfigure) == (False, True)


def test_sched_config_resources_line() -> None:
    """n02p: a fresh line is PBS's `ncpus, mem, arch, host, vnode, aoe, eoe`; the site's
    scheduled resources follow; only consumable, defined names are counted."""
    text = sched_config.default_text(["ngpus"])
    assert 'resources: "ncpus, mem, arch, host, vnode, aoe, eoe, ngpus"\n' in text
    assert sched_config.scheduled(text)[-1] == "ngpus"
    assert sched_config.scheduled(None) == sched_config.DEFAULT_RESOURCES
    assert sched_config.scheduled('resources: "mem"\n') == ("ncpus", "mem")
    assert consumables_of(sched_config.scheduled(text)) == ("ncpus", "mem")
    custom = {"ngpus": {"type": "long", "flag": "nh"}}
    assert consumables_of(sched_config.scheduled(text), custom) == ("ncpus", "mem", "ngpus")


@pytest.mark.parametrize("site, ngpus", [(None, True), ([], False)])
def test_install_creates_the_site_resources(tmp_path: Path, site: Any, ngpus: bool) -> None:
    """A default cluster creates ngpus as a site does (resource + resources line); a cluster
    with `site_resources: []` (the fidelity replay) has PBS's built-ins only (n02)."""
    config: Dict[str, Any] = {"server_name": "vm", "hosts": [{"name": "vm", "ncpus": 2}]}
    if site is not None:
        config["site_resources"] = site
    (tmp_path / "server_priv").mkdir()
    paths.config_file(tmp_path).write_text(json.dumps(config))
    app = ServerApp(tmp_path)
    app.install_defaults()
    assert ("ngpus" in app.state.objects.get("resource", {})) is ngpus
    line = sched_config.scheduled(paths.sched_config(tmp_path).read_text())
    assert ("ngpus" in line) is ngpus
    assert ("ngpus" in app.sched_consumables()) is ngpus


def test_a_home_from_before_site_resources_gets_them(tmp_path: Path) -> None:
    """A cluster home installed before sched_config existed (an older fake) gets the site's
    resources and the file on its next start, so its GPU jobs keep working."""
    config: Dict[str, Any] = {"server_name": "vm", "hosts": [{"name": "vm", "ncpus": 2}]}
    (tmp_path / "server_priv").mkdir()
    paths.config_file(tmp_path).write_text(json.dumps(config))
    app = ServerApp(tmp_path)
    app.bootstrap()
    del app.state.objects["resource"]["ngpus"]
    app.state.save_object("resource", "ngpus")
    paths.sched_config(tmp_path).unlink()
    again = ServerApp(tmp_path)
    again.bootstrap()
    assert "ngpus" in again.state.objects["resource"]
    assert "ngpus" in sched_config.scheduled(paths.sched_config(tmp_path).read_text())
