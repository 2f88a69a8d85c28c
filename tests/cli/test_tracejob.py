"""tracejob against OpenPBS 23.06.06 transcripts h01, k11d, k11e.  The log files are rebuilt from
the transcript's own lines, each file in the order the daemons write them (the mom's order is the
one of the extra set's i06d_wt_mom.log excerpt), under a temporary FAKE_PBS_HOME; tracejob must
print them back in PBS's exact, sort-permuted order."""
import time
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from fake_pbs.cli import tracejob
from fake_pbs.cli.render import tracelog
from .test_render_cases import case, use_utc

DIRS = {"S": "server_logs", "L": "sched_logs", "A": "server_priv/accounting",
        "M": "mom_logs/vm"}
DAEMONS = {"S": "Server@vm", "L": "pbs_sched", "M": "pbs_mom"}


MOM_ORDER = ["execvnode", "schedselect", "exechost2", "Adding mom", "Found!", "SID is",
             "Started", "task 00000001 terminated", "Terminated", "task 00000001 cput",
             "kill_job", "vm cput", "Obit sent", "copy file", "Staged", "no active",
             "delete job"]
SERVER_ORDER = ["enqueuing", "Job Queued", "Holds", "Job Run", "Obit received", "Exit_status"]


def _file_order(line: str, deletions: Set[str]) -> Tuple[str, int]:
    """Where a line sits in its daemon's log: by second, then by the daemon's own sequence
    (the mom's last kill_job follows its "delete job request received")."""
    msg = line[26:]
    if line[21] == "M" and msg.startswith("kill_job") and line[:19] in deletions:
        return line[:19], len(MOM_ORDER)
    order = MOM_ORDER if line[21] == "M" else SERVER_ORDER
    ranks = [i for i, prefix in enumerate(order) if msg.startswith(prefix)]
    return line[:19], ranks[0] if ranks else 99


def _write_logs(home: Path, stdout: str, job: str) -> str:
    """Rebuild the four logs of the day from tracejob's output; returns the YYYYMMDD used."""
    files: Dict[str, List[str]] = {}
    day = ""
    shown = [line for line in stdout.split("\n")[3:] if line]
    deletions = {line[:19] for line in shown if "delete job request" in line}
    for line in sorted(shown, key=lambda text: _file_order(text, deletions)):
        if not line:
            continue
        date, source, msg = line[:19], line[21], line[26:]
        day = time.strftime("%Y%m%d", time.strptime(date, "%m/%d/%Y %H:%M:%S"))
        if source == "A":
            files.setdefault(source, []).append("%s;E;%s;%s" % (date, job, msg))
        else:
            files.setdefault(source, []).append(
                "%s;0008;%s;Job;%s;%s" % (date, DAEMONS[source], job, msg))
    for source, lines in files.items():
        folder = home / DIRS[source]
        folder.mkdir(parents=True, exist_ok=True)
        noise = "%s;0002;Server@vm;Svr;Server@vm;unrelated line\n" % lines[0][:19]
        (folder / day).write_text(noise + "\n".join(lines) + "\n")
    return day


@pytest.fixture
def frozen_day(monkeypatch: pytest.MonkeyPatch) -> None:
    use_utc()
    monkeypatch.setattr(time, "time", lambda: 1795294790.0)


@pytest.mark.parametrize("name,argv,job", [
    ("h01_tracejob_exit3", ["16.vm"], "16.vm"),
    ("k11d_tracejob_l_filter", ["-l", "-m", "-s", "353.vm"], "353.vm"),
])
def test_replays_pbs_order(name: str, argv: List[str], job: str, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch, frozen_day: None,
                           capsys: pytest.CaptureFixture[str]) -> None:
    """Lines of different logs within one second keep the order of PBS's message sort
    (glibc merge sort, tracejob.c filter_excess + sort_by_date)."""
    expected = case(name)
    day = _write_logs(tmp_path, case("k11_tracejob_n2" if name.startswith("k11")
                                     else name)["stdout"], job)
    monkeypatch.setattr(time, "time",
                        lambda: time.mktime(time.strptime(day, "%Y%m%d")) + 3600.0)
    monkeypatch.setenv("FAKE_PBS_HOME", str(tmp_path))
    assert tracejob.body(["-w", "0"] + argv) == 0
    assert capsys.readouterr().out == expected["stdout"]


def test_not_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> None:
    """tracejob.c: `Couldn't find Job Id <id>.<server> in logs of past 1 day`, exit 1."""
    monkeypatch.setenv("FAKE_PBS_HOME", str(tmp_path))
    (tmp_path / "cluster.json").write_text('{"server_name": "vm"}')
    assert tracejob.body(["999"]) == 1
    assert capsys.readouterr().err == \
        "\ntracejob: Couldn't find Job Id 999.vm in logs of past 1 day\n\n"


def test_bad_option_prints_usage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    """k11e: `tracejob -Z` -> glibc's message on stderr, the usage on stdout, exit 1."""
    monkeypatch.setenv("FAKE_PBS_HOME", "/var/spool/pbs")
    expected = case("k11e_tracejob_bad_option")
    assert tracejob.body(["-Z", "353.vm"]) == 1
    captured = capsys.readouterr()
    assert captured.out == expected["stdout"] and captured.err == expected["stderr"]


def test_line_wrap() -> None:
    """tracejob.c line_wrap: break at the last blank before the width, indent 26."""
    text = tracelog.line_wrap("aaaa bbbb cccc", 26, 36)
    assert text == "aaaa bbbb\n" + " " * 26 + "cccc\n"


def test_short_id_matches_only_whole_sequence() -> None:
    """tracejob.c parse_log: `35` does not match `353.vm`; `353` does."""
    line = "11/21/2026 20:59:41;0008;Server@vm;Job;353.vm;hello"
    assert tracelog.parse_line(line, tracelog.SERVER, 1, "35") is None
    assert tracelog.parse_line(line, tracelog.SERVER, 1, "353") is not None
