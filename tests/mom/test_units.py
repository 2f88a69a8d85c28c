"""Pure pieces of the mom: no daemon started."""
import os
import signal
from typing import List, Tuple

from hypothesis import given, settings
from hypothesis import strategies as st

from fake_pbs.mom.environment import array_ids, nodefile_lines, parse_variable_list
from fake_pbs.mom.eventlog import EventLog
from fake_pbs.mom.launch import choose_shell, command_of, parse_umask
from fake_pbs.mom.layout import HostLayout
from fake_pbs.mom.momlog import format_line
from fake_pbs.mom.shepherd import exit_status
from fake_pbs.mom.signals import signal_number
from fake_pbs.mom.streams import deliveries, final_path, job_streams, strip_host
from fake_pbs.mom.usage import hhmmss, parse_duration, resources_used


def test_variable_list_escaped_comma() -> None:
    """Extra i04f: ``-v LIST="a,b"`` is stored as ``LIST=a\\,b`` and the job sees ``a,b``."""
    pairs = parse_variable_list("PBS_O_HOME=/home/u,LIST=a\\,b,FOO=bar,EMPTY=")
    assert pairs == [("PBS_O_HOME", "/home/u"), ("LIST", "a,b"), ("FOO", "bar"), ("EMPTY", "")]


def _decode_arst_bs(value: str) -> List[Tuple[str, str]]:
    """PBS's decode_arst_bs one character at a time (what parse_variable_list replaced)."""
    pairs: List[Tuple[str, str]] = []
    item: List[str] = []
    chars = iter(value)
    for char in chars:
        if char == "\\":
            nxt = next(chars, "")
            item.append(nxt if not nxt or nxt in "\"',\\" else char + nxt)
        elif char == ",":
            pairs.append(_pair("".join(item)))
            item = []
        else:
            item.append(char)
    if item:
        pairs.append(_pair("".join(item)))
    return [pair for pair in pairs if pair[0]]


def _pair(text: str) -> Tuple[str, str]:
    name, _, val = text.strip(" \t\n\v\f\r").partition("=")
    return name, val


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab=,\\ \"'\n\tx\u00e9", max_size=30))
def test_variable_list_matches_character_by_character_decoding(value: str) -> None:
    """Extra i04: the split by runs (and by commas when nothing is escaped) decodes every
    list exactly as decode_arst_bs's character loop does."""
    assert parse_variable_list(value) == _decode_arst_bs(value)


def test_nodefile_one_line_per_mpiproc() -> None:
    """Extra i02: select=1:ncpus=2:mpiprocs=2 gives the host twice in PBS_NODEFILE."""
    hosts = [{"host": "vm", "ncpus": 2, "mpiprocs": 2}, {"host": "n2", "ncpus": 1}]
    assert nodefile_lines(hosts) == ["vm", "vm", "n2"]


def test_array_subjob_ids() -> None:
    """PBS_ARRAY_ID / PBS_ARRAY_INDEX of subjob 12[3].vm."""
    assert array_ids("12[3].vm") == ("12[].vm", "3")
    assert array_ids("12.vm") is None


def test_exit_status_convention() -> None:
    """Reference §3.1: normal exit -> code, killed by signal N -> 256+N (qdel 271, force 265)."""
    assert exit_status(3 << 8) == 3
    assert exit_status(signal.SIGTERM) == 271
    assert exit_status(signal.SIGKILL) == 265


def test_signal_names() -> None:
    """qsig accepts SIGUSR1, USR1 and 10 (extra k03); SIGFOO is unknown."""
    assert signal_number("SIGUSR1") == signal_number("USR1") == signal_number("10") == 10
    assert signal_number("SIGFOO") is None
    assert signal_number("0") is None


def test_durations_and_usage() -> None:
    """resources_used.* as qstat -f shows them (i01c): HH:MM:SS and kb."""
    assert parse_duration("00:00:03") == 3
    assert parse_duration("1:30") == 90
    assert parse_duration("") is None
    assert hhmmss(3725) == "01:02:05"
    used = resources_used({"Resource_List.ncpus": "2"}, 1.2, 7144, 2.0)
    assert used == {"cpupercent": "60", "cput": "00:00:01", "mem": "7144kb", "ncpus": "2",
                    "vmem": "7144kb", "walltime": "00:00:02"}


def test_log_line_format() -> None:
    """Reference §10.1: MM/DD/YYYY HH:MM:SS;%04x;pbs_mom;Job;<id>;<msg> (i06d mom log)."""
    line = format_line(0.0, 0x0008, "pbs_mom", "Job", "338.vm", "Started, pid = 21384")
    assert line.endswith(";0008;pbs_mom;Job;338.vm;Started, pid = 21384\n")
    assert len(line.split(";")[0]) == len("11/21/2026 20:58:15")


def test_output_paths() -> None:
    """Extra i05: host prefix dropped; ``-o dir/`` -> <dir>/<id>.OU; relative -> home."""
    assert strip_host("vm:/home/u/x.o1") == "/home/u/x.o1"
    assert strip_host("/a:b/c") == "/a:b/c"
    assert final_path("vm:/d/outdir/", "334.vm", ".OU", "/home/u") == "/d/outdir/334.vm.OU"
    assert final_path("rel.out", "1.vm", ".OU", "/home/u") == "/home/u/rel.out"


def _streams(tmp_path: "os.PathLike[str]", **attrs: str) -> dict:  # type: ignore[type-arg]
    layout = HostLayout(__import__("pathlib").Path(str(tmp_path)), "vm").job("5.vm")
    base = {"Output_Path": "vm:/sub/both.o5", "Error_Path": "vm:/sub/both.e5"}
    base.update(attrs)
    return job_streams(base, layout, "/home/u")


def test_join_oe_delivers_only_stdout(tmp_path: "os.PathLike[str]") -> None:
    """Extra i05c: -j oe -> only both.o<seq>, holding stdout then stderr lines."""
    streams = _streams(tmp_path, Join_Path="oe")
    assert streams["o"].write_to == streams["e"].write_to
    assert [s.deliver_to for s in deliveries(streams)] == ["/sub/both.o5"]


def test_join_eo_delivers_only_stderr(tmp_path: "os.PathLike[str]") -> None:
    """Extra i05f: -j eo -> only both.e<seq>."""
    streams = _streams(tmp_path, Join_Path="eo")
    assert [s.deliver_to for s in deliveries(streams)] == ["/sub/both.e5"]


def test_keep_files_in_home(tmp_path: "os.PathLike[str]") -> None:
    """Extra i05d: -k oe leaves both.o333/both.e333 in $HOME and delivers nothing."""
    streams = _streams(tmp_path, Keep_Files="oe")
    assert streams["o"].write_to == "/home/u/both.o5"
    assert streams["e"].write_to == "/home/u/both.e5"
    assert deliveries(streams) == []


def test_shell_choice() -> None:
    """Shell_Path_List (-S) wins, per-host entries first; else the login shell; nologin -> bash."""
    assert choose_shell({"Shell_Path_List": "/bin/sh@other,/bin/dash"}, "vm", "/bin/zsh") \
        == "/bin/dash"
    assert choose_shell({"Shell_Path_List": "/bin/sh@vm"}, "vm", None) == "/bin/sh"
    assert choose_shell({}, "vm", "/usr/sbin/nologin") == "/bin/bash"
    assert choose_shell({}, "vm", "/bin/sh") == "/bin/sh"


def test_command_jobs_and_umask() -> None:
    """b22e: ``qsub -- /bin/sleep 1`` stores executable/argument_list in JSDL tags."""
    attrs = {"executable": "<jsdl-hpcpa:Executable>/bin/sleep</jsdl-hpcpa:Executable>",
             "argument_list": "<jsdl-hpcpa:Argument>1</jsdl-hpcpa:Argument>"
                              "<jsdl-hpcpa:Argument>a&amp;b</jsdl-hpcpa:Argument>"}
    assert command_of(attrs) == ["/bin/sleep", "1", "a&b"]
    assert command_of({}) is None
    assert parse_umask({}) == 0o077
    assert parse_umask({"umask": "022"}) == 0o022


def test_event_log_survives_reload_and_torn_line(tmp_path: "os.PathLike[str]") -> None:
    """Events are numbered and durable; a torn last line (crash mid-append) is dropped."""
    path = __import__("pathlib").Path(str(tmp_path)) / "events.jsonl"
    log = EventLog(path, "1.vm", 1)
    log.append("start", session_id=5, pid=5)
    log.append("finish", status=0, resources_used={})
    with open(str(path), "ab") as handle:
        handle.write(b'{"ev": "rel')
    again = EventLog(path, "1.vm", 1)
    assert [e["seq"] for e in again.snapshot()] == [1, 2]
    assert again.wait_after(1, 0.01)[0]["ev"] == "finish"
    assert not again.complete
