"""qdel, qhold, qrls, qsig, qrerun, qalter, qrun, qselect, qmove against golden transcripts."""
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

from fake_pbs.cli import qalter, qdel, qhold, qmove, qrerun, qrls, qrun, qselect, qsig
from fake_pbs.model import errors as e
from fake_pbs.model.errors import PbsError
from .test_qsub_harness import StubServer, case, matches, run, stub_fixture  # noqa: F401

Cap = pytest.CaptureFixture[str]
BODIES: Dict[str, Callable[[List[str]], int]] = {
    "qdel": qdel.body, "qhold": qhold.body, "qrls": qrls.body, "qsig": qsig.body,
    "qrerun": qrerun.body, "qalter": qalter.body, "qrun": qrun.body, "qselect": qselect.body,
    "qmove": qmove.body}


def refuse(code: int, text: Optional[str] = None) -> Callable[[str, Dict[str, Any]], Any]:
    def reply(op: str, args: Dict[str, Any]) -> Any:
        raise PbsError(code, text)
    return reply


def replay(name: str, stub: StubServer, capsys: Cap) -> None:
    import shlex
    argv = shlex.split(case(name)["command"])
    matches(name, run(BODIES[argv[0]], argv[1:], capsys))


@pytest.mark.parametrize("name, code, text", [
    ("c01_qdel_unknown", e.PBSE_UNKJOBID, None),
    ("c01b_qdel_unknown_short", e.PBSE_UNKJOBID, None),
    ("c02_qdel_finished", e.PBSE_HISTJOBID, None),
    ("c02b_qdel_force_finished", e.PBSE_HISTJOBID, None),
    ("c08_qdel_other_users_job", e.PBSE_PERM, None),
    ("k12k_qdel_array_bad_index", e.PBSE_HISTJOBID, None),
    ("j06e_qrls_not_held_finished", e.PBSE_HISTJOBID, None),
    ("j06f_qrls_unknown", e.PBSE_UNKJOBID, None),
    ("k01f_qhold_h_s_as_user", e.PBSE_PERM, None),
    ("k01j_qhold_unknown", e.PBSE_UNKJOBID, None),
    ("k02c_qrls_o_as_user", e.PBSE_PERM, None),
    ("k03b_qsig_unknown_signal", e.PBSE_UNKSIG, None),
    ("k03c_qsig_suspend_user", e.PBSE_PERM, None),
    ("k03l_qsig_finished", e.PBSE_HISTJOBID, None),
    ("k03r_qsig_suspend_again_root", e.PBSE_BADSTATE, None),
    ("k04_qrerun_as_user", e.PBSE_PERM, None),
    ("k04f_qrerun_rn_root", e.PBSE_NORERUN, None),
    ("k04k_qrerun_unknown_root", e.PBSE_UNKJOBID, None),
    ("k05h_qalter_unknown_job", e.PBSE_UNKJOBID, None),
    ("k05i_qalter_ncpus_running", e.PBSE_MODATRRUN,
     "Cannot modify attribute while job running  Resource_List.ncpus"),
    ("k05k_qalter_finished", e.PBSE_HISTJOBID, None),
    ("k05m_qalter_other_user", e.PBSE_PERM, None),
    ("k06b_qrun_as_user", e.PBSE_PERM, None),
    ("k06f_qrun_unknown_root", e.PBSE_UNKJOBID, None),
    ("k09c_qmove_running", e.PBSE_BADSTATE, None),
    ("k09d_qmove_unknown_queue", e.PBSE_UNKQUE, None),
    ("k09f_qmove_unknown_job", e.PBSE_UNKJOBID, None),
    ("k09g_qmove_finished", e.PBSE_HISTJOBID, None),
    ("k07m_qselect_q_unknown", e.PBSE_UNKQUE, None),
])
def test_server_refusals(stub: StubServer, capsys: Cap, name: str, code: int,
                         text: Optional[str]) -> None:
    """Per-id error lines `<cmd>: <text> <id>` (no id for `Job has finished` except qdel)."""
    stub.reply = refuse(code, text)
    replay(name, stub, capsys)


@pytest.mark.parametrize("name", [
    "c06_qdel_noargs", "k01i_qhold_bad_type", "k05g_qalter_bad_name",
    "k07k_qselect_bad_state",
])
def test_usage_errors_send_nothing(stub: StubServer, capsys: Cap, name: str) -> None:
    """Usage texts byte for byte, exit 2, no request."""
    replay(name, stub, capsys)
    assert [op for op, _ in stub.requests if op != "ping"] == []


def test_qalter_bad_walltime_names_the_job(stub: StubServer, capsys: Cap) -> None:
    """k05l: client-side ECL error with the job id, exit 166."""
    replay("k05l_qalter_bad_walltime", stub, capsys)
    assert stub.ops("alterjob") == []


def test_successes_send_the_right_requests(stub: StubServer, capsys: Cap) -> None:
    """c03/c04/c02c, k01/k01g, k02, k03h/k03j, k04h, k05a/k05d, k06c, k09a/k09i requests."""
    commands: List[Tuple[str, Tuple[str, Dict[str, Any]]]] = [
        ("qdel 13.vm", ("deljob", {"id": "13.vm", "force": False, "purge": False})),
        ("qdel -W force 14.vm", ("deljob", {"id": "14.vm", "force": True})),
        ("qdel -x 0.vm", ("deljob", {"purge": True})),
        ("qhold 384.vm", ("holdjob", {"id": "384.vm", "types": "u"})),
        ("qhold -h o 385", ("holdjob", {"id": "385.vm", "types": "o"})),
        ("qrls 384.vm", ("rlsjob", {"types": "u"})),
        ("qsig -s USR1 387.vm", ("sigjob", {"signal": "USR1"})),
        ("qsig 387.vm", ("sigjob", {"signal": "SIGTERM"})),
        ("qrerun -W force 390.vm", ("rerunjob", {"force": True})),
        ("qalter -l walltime=20:00 -N newname 392.vm",
         ("alterjob", {"attrs": {"Resource_List.walltime": "00:20:00", "Job_Name": "newname"}})),
        ("qrun -H (vm:ncpus=1) 393.vm", ("runjob", {"id": "393.vm", "vnodes": "(vm:ncpus=1)"})),
        ("qmove q2@vm 394.vm", ("movejob", {"id": "394.vm", "dest": "q2@vm"})),
    ]
    for command, (op, expected) in commands:
        stub.requests.clear()
        argv = command.split()
        assert run(BODIES[argv[0]], argv[1:], capsys) == (0, "", ""), command
        (args,) = stub.ops(op)
        assert {k: args[k] for k in expected} == expected, command


def test_qselect_lists_ids_and_builds_criteria(stub: StubServer, capsys: Cap) -> None:
    """k07c/k07d/k07f/k07h/k07p: one id per line; no match prints nothing, exit 0."""
    stub.reply = lambda op, args: ["389.vm", "390.vm"]
    assert run(qselect.body, ["-s", "R"], capsys) == (0, "389.vm\n390.vm\n", "")
    assert stub.ops("selectjob")[0]["criteria"] == [["job_state", "eq", "R"]]
    stub.requests.clear()
    stub.reply = lambda op, args: []
    argv = ["-x", "-u", "nobodyxyz", "-l", "walltime.gt.00:01:00", "-N", "selq", "-h", "u"]
    assert run(qselect.body, argv, capsys) == (0, "", "")
    (args,) = stub.ops("selectjob")
    assert args["extend"] == "x"
    assert args["criteria"] == [["Job_Owner", "eq", "nobodyxyz"],
                                ["Resource_List.walltime", "gt", "00:01:00"],
                                ["Job_Name", "eq", "selq"], ["Hold_Types", "eq", "u"]]


def test_version_everywhere(stub: StubServer, capsys: Cap) -> None:
    """Every command answers `--version` with `pbs_version = 23.06.06`."""
    for body in BODIES.values():
        assert run(body, ["--version"], capsys) == (0, "pbs_version = 23.06.06\n", "")
