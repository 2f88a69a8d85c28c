"""The mom's log (fake_pbs/mom/momlog.py): each line carries its own local time to the second
and goes to its own day's file under ``mom_logs/<host>/YYYYMMDD`` (reference §10.1), although
the stamp is formatted once per second and the day's file stays open; lines appended by another
writer (a hook shepherd's own MomLog) interleave whole."""
import time
from pathlib import Path
from typing import List

from fake_pbs.mom.momlog import MomLog


def test_lines_follow_their_second_and_day(tmp_path: Path) -> None:
    """Lines within one second, the next second (next day), and back (clock injected)."""
    base = time.mktime((2026, 11, 21, 23, 59, 59, 0, 0, -1))
    moments: List[float] = [base + 0.1, base + 0.9, base + 1.0, base + 0.5]
    clock = iter(moments)
    log = MomLog(tmp_path, "node1", clock=lambda: next(clock))
    other = MomLog(tmp_path, "node1", clock=lambda: base)
    for index in range(len(moments)):
        log.job("%d.vm" % index, "line %d" % index)
        other.job("x.vm", "other %d" % index)
    first = (tmp_path / "mom_logs" / "node1" / "20261121").read_text().splitlines()
    second = (tmp_path / "mom_logs" / "node1" / "20261122").read_text().splitlines()
    assert [line.split(";")[0] for line in first] == ["11/21/2026 23:59:59"] * 7
    assert [line.split(";")[4] for line in first] == \
        ["0.vm", "x.vm", "1.vm", "x.vm", "x.vm", "3.vm", "x.vm"]
    assert second == ["11/22/2026 00:00:00;0008;pbs_mom;Job;2.vm;line 2"]


def test_a_value_with_line_breaks_stays_one_record(tmp_path: Path) -> None:
    """A user's value (a path, a job name a hook logs) cannot forge a mom log record: control
    characters and Unicode line separators are shown, as in the server's logs (issue 21; PBS
    writes them raw, log_event in src/lib/Liblog/pbs_log.c)."""
    log = MomLog(tmp_path, "node1", clock=lambda: time.mktime((2026, 11, 21, 12, 0, 0, 0, 0, -1)))
    log.job("1.vm\n", "open /tmp/x\n11/21/2026 12:00:00;0008;pbs_mom;Job;2.vm;forged\u2028\x7f")
    lines = (tmp_path / "mom_logs" / "node1" / "20261121").read_text().split("\n")
    assert lines[1:] == [""]
    assert lines[0].endswith(";1.vm^J;open /tmp/x^J11/21/2026 12:00:00;0008;pbs_mom;Job;2.vm;"
                             "forged<U+2028>^?")
