"""Server log lines (fake_pbs/server/logs.py): each line carries its own local time to the
second and goes to the file of its own local day (reference §10.1: ``MM/DD/YYYY HH:MM:SS;...``,
``server_logs/YYYYMMDD``), although stamps are formatted once per second."""
import time
from pathlib import Path
from typing import List

from fake_pbs.server.logs import DaemonLog


def test_each_line_has_its_second_and_day(tmp_path: Path) -> None:
    """Lines within one second, the next second, and the next day (clock injected)."""
    base = time.mktime((2026, 11, 21, 23, 59, 59, 0, 0, -1))
    moments: List[float] = [base + 0.1, base + 0.9, base + 1.0, base + 1.5, base + 0.2]
    clock = iter(moments)
    log = DaemonLog(tmp_path, "Server@vm", clock=lambda: next(clock))
    for index in range(len(moments)):
        log.job("%d.vm" % index, "line %d" % index)
    first = (tmp_path / "20261121").read_text().splitlines()
    second = (tmp_path / "20261122").read_text().splitlines()
    assert [line.split(";")[0] for line in first] == ["11/21/2026 23:59:59"] * 3
    assert [line.split(";")[4] for line in first] == ["0.vm", "1.vm", "4.vm"]
    assert [line.split(";")[0] for line in second] == ["11/22/2026 00:00:00"] * 2
    assert [line.split(";")[4] for line in second] == ["2.vm", "3.vm"]
