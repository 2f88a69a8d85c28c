"""pbs_rsub, pbs_rstat, pbs_rdel and pbs_ralter against a stand-in server (no daemons): what
each sends (the wire of docs/internals.md "Reservations") and what it prints, byte for byte
against the transcripts of group R (OpenPBS 23.06 src/cmds/pbs_r*.c)."""
import calendar
from typing import Any, Dict, Iterator, List

import pytest

from fake_pbs.cli import pbs_ralter, pbs_rdel, pbs_rstat, pbs_rsub, qsub_verify
from fake_pbs.model.errors import (PBSE_BAD_ICAL_TZ, PBSE_BAD_RRULE_MINUTELY,
                                   PBSE_BAD_RRULE_SYNTAX, PBSE_BADTSPEC, PBSE_UNKRESC, PbsError)

from . import cli_support
from .cli_support import StubServer, case, case_time, run, unknown_resv, wire_records


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The transcripts' environment: TZ=UTC, LOGNAME=pbsuser2, host vm, no MAIL/PBS_TZID."""
    monkeypatch.setenv("LOGNAME", "pbsuser2")
    monkeypatch.delenv("MAIL", raising=False)
    monkeypatch.delenv("PBS_TZID", raising=False)
    monkeypatch.setattr(qsub_verify, "submit_host", lambda: "vm")
    yield from cli_support.utc(monkeypatch)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> StubServer:
    return StubServer(monkeypatch)


def argv_of(name: str) -> List[str]:
    import shlex

    words = shlex.split(case(name)["command"])
    while "=" in words[0]:  # PBS_TZID=UTC pbs_rsub ...
        words.pop(0)
    return words


def replies(resv_id: str, state: str = "UNCONFIRMED") -> Any:
    return lambda **_: {"id": resv_id, "state": state}


def same(result: Any, name: str) -> None:
    """(rc, stdout, stderr) as the transcript has them."""
    want = case(name)
    assert result == (want["exit_code"], want["stdout"], want["stderr"])


def at(*fields: int) -> str:
    return str(calendar.timegm(fields + (0,) * (6 - len(fields))))


# --- pbs_rsub ----------------------------------------------------------------------------------

def test_rsub_advance(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    """R01: ``-R 0359.21 -E 0401.21 -l select=1:ncpus=1`` -> epoch times of today, the select,
    PBS_O_LOGNAME/PBS_O_HOST (pbs_rsub.c set_resv_env); prints ``R875.vm UNCONFIRMED``."""
    server.on("resv_submit", replies("R875.vm"))
    same(run(pbs_rsub, argv_of("R01_rsub"), monkeypatch, capsys, case_time("R01_rsub")),
         "R01_rsub")
    assert server.sent("resv_submit") == [{"attrs": {
        "reserve_start": at(2026, 11, 27, 3, 59, 21), "reserve_end": at(2026, 11, 27, 4, 1, 21),
        "Resource_List.select": "1:ncpus=1",
        "Variable_List": "PBS_O_LOGNAME=pbsuser2,PBS_O_HOST=vm"}}]


def test_rsub_end_rolls_to_tomorrow(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """R14: an hhmm end before the hhmm start is tomorrow's (84600 s reservation)."""
    server.on("resv_submit", replies("R879.vm"))
    name = "R14_rsub_end_before_start"
    same(run(pbs_rsub, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    attrs = server.sent("resv_submit")[0]["attrs"]
    assert int(attrs["reserve_end"]) - int(attrs["reserve_start"]) == 84600


def test_rsub_duration_is_walltime(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """R15b: ``-R 0347 -D 00:10:00`` at 03:58 -> tomorrow 03:47; ``-D`` travels as
    Resource_List.walltime, as typed (pbs_rsub.c: set_resources("walltime=%s"))."""
    server.on("resv_submit", replies("R881.vm"))
    name = "R15b_rsub_start_past_hhmm"
    same(run(pbs_rsub, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    attrs = server.sent("resv_submit")[0]["attrs"]
    assert attrs["reserve_start"] == at(2026, 11, 28, 3, 47)
    assert attrs["Resource_List.walltime"] == "00:10:00" and "reserve_end" not in attrs


@pytest.mark.parametrize("name, error", [
    ("R15_rsub_start_past", PbsError(PBSE_BADTSPEC)),
    ("R17c_rsub_unknown_resource", PbsError(PBSE_UNKRESC, "Unknown resource: foo")),
    ("R17d_rsub_D_and_E_mismatch", PbsError(PBSE_BADTSPEC)),
    ("R18_rsub_D_only", PbsError(PBSE_BADTSPEC)),
    ("R41_rsub_rrule_bad_freq", PbsError(PBSE_BAD_RRULE_SYNTAX)),
    ("R41b_rsub_rrule_overlap", PbsError(PBSE_BAD_RRULE_MINUTELY)),
    ("R41c_rsub_rrule_bad_tzid", PbsError(PBSE_BAD_ICAL_TZ)),
])
def test_rsub_server_errors(name: str, error: PbsError, server: StubServer,
                            monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """What pbs_rsub.c leaves to the server comes back as ``pbs_rsub: <text>``, exit
    ``pbs_errno % 256`` (238, 187, 29, 27, 31)."""
    def refuse(**_: Any) -> Any:
        raise error

    server.on("resv_submit", refuse)
    env = case(name)["command"].split(" pbs_rsub")[0]
    if env.startswith("PBS_TZID="):
        monkeypatch.setenv("PBS_TZID", env.split("=", 1)[1])
    same(run(pbs_rsub, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    assert len(server.sent("resv_submit")) == 1


def test_rsub_illegal_times(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """R17b: ``-R 2561 -E 2562``: both messages, then the usage, exit 2; nothing sent."""
    name = "R17b_rsub_bad_time"
    same(run(pbs_rsub, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    assert server.calls == []


def test_rsub_rrule_needs_tzid(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """R19: ``-r`` without PBS_TZID: pbs_rsub.c's own message, exit 2, nothing sent."""
    name = "R19_rsub_rrule_no_tzid"
    same(run(pbs_rsub, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    assert server.calls == []


def test_rsub_standing(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    """R40: PBS_TZID=UTC: reserve_rrule, reserve_standing, reserve_timezone and
    ``PBS_TZID=UTC`` at the end of Variable_List (as R40b shows it)."""
    monkeypatch.setenv("PBS_TZID", "UTC")
    server.on("resv_submit", replies("S892.vm"))
    name = "R40_rsub_rrule"
    same(run(pbs_rsub, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    attrs = server.sent("resv_submit")[0]["attrs"]
    assert attrs["reserve_rrule"] == "FREQ=DAILY;COUNT=2"
    assert attrs["reserve_standing"] == "1" and attrs["reserve_timezone"] == "UTC"
    assert attrs["Variable_List"] == "PBS_O_LOGNAME=pbsuser2,PBS_O_HOST=vm,PBS_TZID=UTC"


def test_rsub_interactive(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    """R50/R50b: ``-I 10`` is sent; the server's answer (CONFIRMED or DENIED) is printed, rc 0."""
    for name, resv_id, state in (("R50_rsub_I_wait", "R905.vm", "CONFIRMED"),
                                 ("R50b_rsub_I_denied", "R906.vm", "DENIED")):
        server.on("resv_submit", replies(resv_id, state))
        same(run(pbs_rsub, argv_of(name), monkeypatch, capsys, case_time(name)), name)
        assert server.sent("resv_submit")[-1]["attrs"]["interactive"] == "10"


def _job(state: str) -> Any:
    attrs = [["job_state", state], ["Resource_List.ncpus", "2"], ["Resource_List.nodect", "1"],
             ["Resource_List.place", "free"], ["Resource_List.select", "1:ncpus=2"],
             ["Resource_List.walltime", "00:01:00"]]
    return lambda **_: [{"name": "890.vm", "attrs": attrs}]


def test_rsub_asap(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> None:
    """R25: ``-W qmove=890.vm``: the job's resources (not nodect), interactive -10, the
    placeholder start PBS_RESV_FUTURE_SCH (pbs_rsub.c cnvrt_proc_attrib)."""
    server.on("statjob", _job("Q"))
    server.on("resv_submit", replies("R891.vm", "CONFIRMED"))
    name = "R25_rsub_asap"
    same(run(pbs_rsub, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    assert server.sent("statjob") == [{"id": "890.vm", "extend": ""}]
    attrs = server.sent("resv_submit")[0]["attrs"]
    assert attrs == {"qmove": "890.vm", "Variable_List": "PBS_O_LOGNAME=pbsuser2,PBS_O_HOST=vm",
                     "interactive": "-10", "Resource_List.ncpus": "2",
                     "Resource_List.place": "free", "Resource_List.select": "1:ncpus=2",
                     "Resource_List.walltime": "00:01:00", "reserve_start": "1893488460"}


@pytest.mark.parametrize("argv, job, message", [
    (["-W", "qmove=890"], "R", "Job not in qmove state\n"),
    (["-W", "qmove=890"], None, "Job 890.vm does not exist\n"),
    (["-W", "qmove=890", "-I", "5"], "Q",
     "pbs_rsub: -I <timeout> value must be negative when used with -Wqmove option.\n"),
])
def test_rsub_asap_refusals(argv: List[str], job: Any, message: str, server: StubServer,
                            monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """pbs_rsub.c main/cnvrt_proc_attrib: exit 2 before anything is submitted."""
    server.on("statjob", _job(job) if job else (lambda **_: []))
    assert run(pbs_rsub, ["pbs_rsub"] + argv, monkeypatch, capsys) == (2, "", message)
    assert server.sent("resv_submit") == []


def test_rsub_maintenance(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    """``--hosts vm``: select and place built from the host's vnodes, confirmed by the server
    (extend ``m``; pbs_rsub.c prints ``<id> CONFIRMED``)."""
    vnodes = [{"name": "vm", "attrs": [["resources_available.host", "vm"],
                                       ["resources_available.ncpus", "2"]]},
              {"name": "other", "attrs": [["resources_available.host", "other"],
                                          ["resources_available.ncpus", "4"]]}]
    server.on("statnode", lambda **_: vnodes)
    server.on("resv_submit", replies("M900.vm", "CONFIRMED"))
    got = run(pbs_rsub, ["pbs_rsub", "-R", "1200", "-E", "1300", "--hosts", "vm"],
              monkeypatch, capsys, float(at(2026, 11, 27, 3)))
    assert got == (0, "M900.vm CONFIRMED\n", "")
    sent = server.sent("resv_submit")[0]
    assert sent["extend"] == "m" and sent["execvnodes"] == "(vm:ncpus=2)"
    assert sent["attrs"]["Resource_List.select"] == "host=vm:ncpus=2"
    assert sent["attrs"]["Resource_List.place"] == "exclhost"
    got = run(pbs_rsub, ["pbs_rsub", "--hosts", "nosuch"], monkeypatch, capsys)
    assert got == (2, "", "pbs_rsub: Host with resources not found: nosuch\n")


@pytest.mark.parametrize("argv, messages", [
    (["--hosts"], ["pbs_rsub: missing host(s)"]),
    (["--hosts", "vm", "vm"], ["pbs_rsub: Duplicate host: vm"]),
    (["-l", "ncpus=1", "--hosts", "vm"], ["pbs_rsub: can't use -l with --hosts"]),
    (["-I", "5", "--hosts", "vm"], ["pbs_rsub: can't use -I with --hosts"]),
    (["-R", "1200", "-W", "qmove=1"], ["pbs_rsub: -Wqmove is not compatible with -R or -E "
                                       "option"]),
    (["-R", "1200", "extra"], ["pbs_rsub: directive error: -R 1200 extra "]),
    (["-r", "FREQ=DAILY;COUNT=2;" + "X" * 60],
     ["pbs_rsub: illegal -r value (expression too long)"]),
    (["-I", "ten"], ["pbs_rsub: illegal -I time value"]),
    (["-W", ""], ["pbs_rsub: illegal -W value"]),
    (["-W", "=x"], ["pbs_rsub: illegal -W value"]),
    (["-l", "select=1,"], ["pbs_rsub: illegal -l value"]),
    (["-q", "workq"], ['pbs_rsub: illegal -q value: format "@server"']),
    (["-Z"], ["pbs_rsub: invalid option -- 'Z'"]),
    (["--bogus"], []),
    (["-R"], ["pbs_rsub: option requires an argument -- 'R'"]),
    (["--job", "1", "-R", "1200"], ["pbs_rsub: Start/End time cannot be used with --job "
                                    "option"]),
    ([], []),
])
def test_rsub_usage_errors(argv: List[str], messages: List[str], server: StubServer,
                           monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    """pbs_rsub.c process_opts' checks: the messages in order, then the usage, exit 2."""
    got = run(pbs_rsub, ["pbs_rsub"] + argv, monkeypatch, capsys, float(at(2026, 11, 27, 3)))
    assert got == (2, "", "".join(m + "\n" for m in messages) + pbs_rsub.USAGE)
    assert server.sent("resv_submit") == []


def test_rsub_options_to_attributes(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Each option's attribute (pbs_ifl.h names); ``-m`` loses its leading blanks; MAIL joins
    Variable_List; ``-W`` pairs go as given; ``--job``."""
    monkeypatch.setenv("MAIL", "/var/mail/pbsuser2")
    server.on("resv_submit", replies("R1.vm"))
    argv = ["pbs_rsub", "-D", "1:00:00", "-N", "rd", "-m", " ae", "-M", "a@b",
            "-u", "u1", "-U", "u1,u2", "-g", "g1", "-G", "g2", "-H", "h1", "-l",
            "select=2:ncpus=1,place=scatter", "-W", "delete_idle_time=600", "--job", "12.vm",
            "-q", "@vm"]
    assert run(pbs_rsub, argv, monkeypatch, capsys, float(at(2026, 11, 27, 3)))[0] == 0
    attrs: Dict[str, str] = server.sent("resv_submit")[0]["attrs"]
    assert attrs == {
        "reserve_job": "12.vm",
        "Resource_List.walltime": "1:00:00", "Reserve_Name": "rd", "Mail_Points": "ae",
        "Mail_Users": "a@b", "User_List": "u1", "Authorized_Users": "u1,u2",
        "group_list": "g1", "Authorized_Groups": "g2", "Authorized_Hosts": "h1",
        "Resource_List.select": "2:ncpus=1", "Resource_List.place": "scatter",
        "delete_idle_time": "600",
        "Variable_List": "PBS_O_LOGNAME=pbsuser2,PBS_O_HOST=vm,PBS_O_MAIL=/var/mail/pbsuser2"}


# --- pbs_rstat ---------------------------------------------------------------------------------

def test_rstat_table_and_full(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """R02/R03 (table), R04/R05 (-f/-F), R06 (-B) from the same record; all ids asked for."""
    records = wire_records(case("R04_rstat_f")["stdout"])
    server.on("resv_status", lambda **_: {"reservations": records})
    for name in ("R02_rstat", "R03_rstat_S", "R04_rstat_f", "R05_rstat_F", "R06_rstat_B"):
        same(run(pbs_rstat, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    assert server.sent("resv_status")[0] == {}
    assert server.sent("resv_status")[2] == {"ids": ["R875.vm"]}


def test_rstat_unknown_ids(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    """R16c: two unknown ids then a known one: two ``Unknown Reservation Id`` lines, the
    listing, exit 0 (pbs_rstat.c handle_resv prints and goes on); R44 alone."""
    known = wire_records(case("R16c_rstat_f_too_big")["stdout"])

    def status(ids: List[str]) -> Any:
        if ids == ["R881.vm"]:
            return {"reservations": known}
        raise PbsError(15084)

    server.on("resv_status", status)
    got = run(pbs_rstat, ["pbs_rstat", "-f", "R882.vm"], monkeypatch, capsys)
    got2 = run(pbs_rstat, ["pbs_rstat", "-f", "R883.vm"], monkeypatch, capsys)
    got3 = run(pbs_rstat, ["pbs_rstat", "-f", "R881.vm"], monkeypatch, capsys,
               case_time("R16c_rstat_f_too_big"))
    want = case("R16c_rstat_f_too_big")
    assert (got[0], got2[0], got3[0]) == (0, 0, 0)
    assert got[1] + got2[1] + got3[1] == want["stdout"]
    assert got[2] + got2[2] + got3[2] == want["stderr"]
    server.on("resv_status", unknown_resv)
    same(run(pbs_rstat, argv_of("R44_rstat_unknown"), monkeypatch, capsys), "R44_rstat_unknown")


def test_rstat_empty_and_errors(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    """R47: no reservations, no output, exit 0 for every form; a bad option: usage exit 1; an
    id of another server: ``illegally formed reservation identifier``, exit 1."""
    server.on("resv_status", lambda **_: {"reservations": []})
    for form in ([], ["-f"], ["-S"], ["-B"]):
        assert run(pbs_rstat, ["pbs_rstat"] + form, monkeypatch, capsys) == (0, "", "")
    assert run(pbs_rstat, ["pbs_rstat", "-x"], monkeypatch, capsys) == (
        1, "", "pbs_rstat: invalid option -- 'x'\n" + pbs_rstat.USAGE)
    for other in ("R1.elsewhere", "R1@elsewhere"):
        assert run(pbs_rstat, ["pbs_rstat", other], monkeypatch, capsys) == (
            1, "", "pbs_rstat: illegally formed reservation identifier: %s\n" % other)
    server.on("resv_status", unknown_resv)
    assert run(pbs_rstat, ["pbs_rstat", "R1@vm"], monkeypatch, capsys)[0] == 0
    assert server.sent("resv_status")[-1] == {"ids": ["R1.vm"]}


def test_rstat_wide_table(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    """pbs_rstat.c: ``max_job_sequence_id`` over 9999999 widens the columns (15/13)."""
    server.on("statsvr", lambda **_: {"name": "vm",
                                      "attrs": [["max_job_sequence_id", "99999999"]]})
    server.on("resv_status", lambda **_: {"reservations": [
        {"name": "R12345678.vm", "attrs": {"queue": "R12345678", "reserve_state": "2"}}]})
    out = run(pbs_rstat, ["pbs_rstat"], monkeypatch, capsys, 0.0)[1]
    assert out.split("\n")[2].startswith("R12345678.vm    R12345678     (null)   CO    ")


# --- pbs_rdel ----------------------------------------------------------------------------------

def test_rdel(server: StubServer, monkeypatch: pytest.MonkeyPatch,
              capsys: pytest.CaptureFixture[str]) -> None:
    """R21 silent; R45 two ids, two requests; R21c unknown: ``pbs_rdel: Unknown Reservation Id
    R99999.vm`` exit 236; R21d usage exit 2; ``-q`` is sent as destqueue."""
    server.on("resv_delete", lambda **_: {})
    same(run(pbs_rdel, argv_of("R21_rdel"), monkeypatch, capsys), "R21_rdel")
    same(run(pbs_rdel, argv_of("R45_rdel_two"), monkeypatch, capsys), "R45_rdel_two")
    assert server.sent("resv_delete") == [{"id": "R888.vm"}, {"id": "S896.vm"},
                                          {"id": "R897.vm"}]
    assert run(pbs_rdel, ["pbs_rdel", "-q", "workq", "R5"], monkeypatch, capsys) == (0, "", "")
    assert server.sent("resv_delete")[-1] == {"id": "R5.vm", "destqueue": "workq"}
    server.on("resv_delete", unknown_resv)
    same(run(pbs_rdel, argv_of("R21c_rdel_unknown"), monkeypatch, capsys), "R21c_rdel_unknown")
    same(run(pbs_rdel, ["pbs_rdel"], monkeypatch, capsys), "R21d_rdel_noargs")


def test_versions(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                  capsys: pytest.CaptureFixture[str]) -> None:
    """R21e: ``--version`` of the four commands."""
    out = ""
    for command, name in ((pbs_rdel, "pbs_rdel"), (pbs_rsub, "pbs_rsub"),
                          (pbs_rstat, "pbs_rstat"), (pbs_ralter, "pbs_ralter")):
        code, text, _ = run(command, [name, "--version"], monkeypatch, capsys)
        assert code == 0
        out += text
    assert out == case("R21e_rdel_version")["stdout"]
    assert server.calls == []


# --- pbs_ralter --------------------------------------------------------------------------------

def test_ralter(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str]) -> None:
    """R20b/R20c/R20g: ``pbs_ralter: R888.vm ALTER REQUESTED``; -E/-R as epoch times (no end
    roll-over), -D as typed in reserve_duration (pbs_ralter.c)."""
    server.on("resv_alter", lambda **_: {"text": "R888.vm ALTER REQUESTED"})
    for name in ("R20b_ralter_E", "R20c_ralter_R", "R20g_ralter_D"):
        same(run(pbs_ralter, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    assert server.sent("resv_alter") == [
        {"id": "R888.vm", "attrs": {"reserve_end": at(2026, 11, 27, 9, 17, 51)}, "force": False},
        {"id": "R888.vm", "attrs": {"reserve_start": at(2026, 11, 27, 9, 2, 51)},
         "force": False},
        {"id": "R888.vm", "attrs": {"reserve_duration": "00:15:00"}, "force": False}]
    argv = ["pbs_ralter", "-W", "force", "-N", "n", "-U", "+u", "-G", "g", "-m", "n", "-M", "m",
            "-I", "5", "-l", "select=2:ncpus=1", "-D", "600", "R888"]
    assert run(pbs_ralter, argv, monkeypatch, capsys)[0] == 0
    assert server.sent("resv_alter")[-1] == {"id": "R888.vm", "force": True, "attrs": {
        "Reserve_Name": "n", "Authorized_Users": "+u", "Authorized_Groups": "g",
        "Mail_Points": "n", "Mail_Users": "m", "interactive": "5",
        "Resource_List.select": "2:ncpus=1", "reserve_duration": "600"}}


def test_ralter_server_errors(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """R20e: end before start -> ``pbs_ralter: Bad time specification(s)`` 238; R20f unknown
    id -> ``pbs_ralter: Unknown Reservation Id`` 236."""
    def refuse(**_: Any) -> Any:
        raise PbsError(PBSE_BADTSPEC)

    server.on("resv_alter", refuse)
    name = "R20e_ralter_E_before_R"
    same(run(pbs_ralter, argv_of(name), monkeypatch, capsys, case_time(name)), name)
    server.on("resv_alter", unknown_resv)
    name = "R20f_ralter_unknown"
    same(run(pbs_ralter, argv_of(name), monkeypatch, capsys, case_time(name)), name)


@pytest.mark.parametrize("argv, messages", [
    (["-l", "walltime=10", "R1"], ["pbs_ralter -l only allows for select"]),
    (["-W", "force", "R1"], ["pbs_ralter: No support for requested service"]),
    (["-W", "nope", "R1"], ["pbs_ralter: illegal -W value"]),
    (["-I", "0", "R1"], ["pbs_ralter: illegal -I time value"]),
    (["-E", "2561", "R1"], ["pbs_ralter: illegal -E time value"]),
    (["-R", "x", "R1"], ["pbs_ralter: illegal -R time value"]),
    (["-q", "x", "R1"], ['pbs_ralter: illegal -q value: format "@server"']),
    (["-E", "1200"], []),
    (["-E", "1200", "R1", "R2"], []),
    ([], []),
])
def test_ralter_usage_errors(argv: List[str], messages: List[str], server: StubServer,
                             monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """pbs_ralter.c process_opts/main: messages, usage, exit 2, nothing sent."""
    got = run(pbs_ralter, ["pbs_ralter"] + argv, monkeypatch, capsys, float(at(2026, 11, 27)))
    assert got == (2, "", "".join(m + "\n" for m in messages) + pbs_ralter.USAGE)
    assert server.sent("resv_alter") == []


# --- client-side attribute checks (ECL) --------------------------------------------------------

@pytest.mark.parametrize("argv, stderr, code", [
    (["-m", "z"], "pbs_rsub: illegal -m value\n" + pbs_rsub.USAGE, 2),
    (["-M", ""], "pbs_rsub: illegal -M value\n" + pbs_rsub.USAGE, 2),
    (["-U", ""], "pbs_rsub: illegal -U value\n" + pbs_rsub.USAGE, 2),
    (["-u", "a@h,b@h"], "pbs_rsub: illegal -u value\n" + pbs_rsub.USAGE, 2),
    (["-N", "a b"], "pbs_rsub: illegal -N value\n" + pbs_rsub.USAGE, 2),
    (["-N", "n" * 231], "pbs_rsub: Reservation name is too long \n", 2),
    (["-l", "walltime=abc"],
     "pbs_rsub: Illegal attribute or resource value Resource_List.walltime\n", 166),
    (["-D", "1:xx"],
     "pbs_rsub: Illegal attribute or resource value Resource_List.walltime\n", 166),
])
def test_rsub_ecl(argv: List[str], stderr: str, code: int, server: StubServer,
                  monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """pbs_submit_resv's ECL (master_resv_attr_def.xml verify functions) as pbs_rsub.c
    handle_attribute_errors prints it: nothing reaches the server."""
    got = run(pbs_rsub, ["pbs_rsub", "-R", "1200"] + argv, monkeypatch, capsys,
              float(at(2026, 11, 27, 3)))
    assert got == (code, "", stderr)
    assert server.sent("resv_submit") == []


def test_ralter_ecl(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> None:
    """pbs_modify_resv's ECL: a bad -D (verify_datatype_time) or -m is ``illegal -D value`` +
    usage, exit 2 (pbs_ralter.c handle_attribute_errors); a reservation name may start with a
    digit."""
    for argv, letter in ((["-D", "1:xx"], "D"), (["-m", "q"], "m")):
        got = run(pbs_ralter, ["pbs_ralter"] + argv + ["R1"], monkeypatch, capsys)
        assert got == (2, "", "pbs_ralter: illegal -%s value\n" % letter + pbs_ralter.USAGE)
    server.on("resv_alter", lambda **_: {"text": "R1.vm ALTER REQUESTED"})
    assert run(pbs_ralter, ["pbs_ralter", "-N", "1st", "R1"], monkeypatch, capsys)[0] == 0


def test_other_server(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    """``-q @other``: pbs_rsub.c/pbs_ralter.c connect to that server; a fake cluster has one,
    so another name fails as an unreachable server would (docs/differences.md)."""
    msg = "%s: cannot connect to server other (errno=15008)\n"
    assert run(pbs_rsub, ["pbs_rsub", "-q", "@other", "-R", "1200"], monkeypatch, capsys,
               float(at(2026, 11, 27))) == (160, "", msg % "pbs_rsub")
    assert run(pbs_ralter, ["pbs_ralter", "-q", "@other", "-E", "1200", "R1"], monkeypatch,
               capsys) == (160, "", msg % "pbs_ralter")
    server.on("resv_submit", replies("R1.vm"))
    assert run(pbs_rsub, ["pbs_rsub", "-q", "@vm", "-R", "1200"], monkeypatch, capsys,
               float(at(2026, 11, 27)))[0] == 0
