"""pbs_rstat's listings (fake_pbs/cli/render/resv.py) against the transcripts of group R:
each listing is rebuilt from the wire records its own ``-f`` output implies, byte for byte
(OpenPBS pbs_rstat.c ``display_single_reservation``, cvtdate.c ``convert_time``)."""
import calendar
from typing import Iterator

import pytest

from fake_pbs.cli.render import resv

from . import cli_support
from .cli_support import case, case_time, wire_records


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from cli_support.utc(monkeypatch)


@pytest.mark.parametrize("name", ["R04_rstat_f", "R05_rstat_F", "R20d_rstat_f_altered",
                                  "R22b_rstat_f_running", "R25b_rstat_f_asap",
                                  "R29b_rstat_f_asap_running", "R40b_rstat_f_rrule",
                                  "R42b_rstat_f_hourly", "R43b_rstat_f_R_and_D",
                                  "R52e_rstat_after_rdel_running", "R53g_rstat_f_same_minute",
                                  "R18b_rstat_f_noid"])
def test_full_listing(name: str) -> None:
    """-f/-F: ``Resv ID:`` then ``name = value`` in the server's order, long state names,
    dates as ``%a %b %d %H:%M:%S %Y``, a blank line after each reservation."""
    out = case(name)["stdout"]
    assert resv.listing(wire_records(out), "F", case_time(name), False, True) == out


def test_full_listing_hides_what_pbs_rstat_hides() -> None:
    """pbs_rstat.c skips reserve_execvnodes, reserve_standing and reserve_timezone."""
    record = {"name": "S1.vm", "attrs": {"reserve_standing": "1", "reserve_timezone": "UTC",
                                         "reserve_execvnodes": "(vm:ncpus=1)", "queue": "S1"}}
    assert resv.listing([record], "F", 0, False, True) == "Resv ID: S1.vm\nqueue = S1\n\n"
    pairs = {"name": "S1.vm", "attrs": [["queue", "S1"]]}  # the other reply shape: pairs
    assert resv.listing([pairs], "F", 0, False, True) == "Resv ID: S1.vm\nqueue = S1\n\n"


@pytest.mark.parametrize("table, full", [
    ("R02_rstat", "R04_rstat_f"), ("R03_rstat_S", "R04_rstat_f"),
    ("R18c_rstat_multi", "R18b_rstat_f_noid"),
    ("R22_rstat_running", "R18b_rstat_f_noid"),
])
def test_table(table: str, full: str) -> None:
    """The default table: header, ``%-10.10s %-8.8s %-8.8s %-5.5s`` columns, ``Today 03:59``
    and ``Sat 03:47`` day names, ``84600`` pushing the end column (R18c)."""
    records = wire_records(case(full)["stdout"])
    if table == "R22_rstat_running":
        records[0]["attrs"]["reserve_state"] = "5"
    want = case(table)["stdout"]
    got = resv.listing(records, "S", case_time(table), False, True)
    assert got == want


def test_table_after_end_and_brief() -> None:
    """R28b's table (``BD`` being deleted, ``RN``) from the ids and times it shows; R06 ``-B``."""
    out = case("R28b_rstat_after_end")["stdout"]
    table, _, full = out.partition("Resv ID: ")
    records = wire_records("Resv ID: " + full)
    assert resv.table_row(records[0]["name"], records[0]["attrs"],
                          case_time("R28b_rstat_after_end"), False) == table.split("\n")[2] + "\n"
    assert resv.listing([{"name": "R875.vm", "attrs": {}}], "B", 0, False, True) \
        == case("R06_rstat_B")["stdout"]


def test_header_once_and_nothing_when_empty() -> None:
    """R47: no reservations, no output (not even the header); the header once per command."""
    assert resv.listing([], "S", 0, False, True) == ""
    row = {"name": "R1.vm", "attrs": {"queue": "R1", "reserve_state": "2"}}
    assert resv.listing([row], "S", 0, False, False).count("Resv ID") == 0


def at(*fields: int) -> int:
    return calendar.timegm(fields + (0,))


def test_short_time_forms() -> None:
    """convert_time: today, this week (Sunday to Saturday), this year, another year; and the
    17-column cut of the table's start column."""
    now = calendar.timegm((2026, 11, 27, 4, 0, 0))  # a Friday
    assert resv.short_time(at(2026, 11, 27, 23, 59), now) == "Today 23:59"
    assert resv.short_time(at(2026, 11, 28, 3, 47), now) == "Sat 03:47"
    assert resv.short_time(at(2026, 11, 22, 10, 0), now) == "Sun 10:00"
    assert resv.short_time(at(2026, 11, 29, 10, 0), now) == "Sun Nov 29 10:00"
    assert resv.short_time(at(2027, 1, 1, 4, 27), now) == "Fri Jan 01 2027 04:27"
    row = resv.table_row("R1.vm", {"reserve_start": str(at(2027, 1, 1, 4, 27)),
                                   "reserve_end": str(at(2027, 1, 1, 4, 37)),
                                   "reserve_duration": "600"}, now, False)
    assert " Fri Jan 01 2027 0 / 600 / Fri Jan 01 2027 0\n" in row


def test_states_and_wide_table() -> None:
    """convert_resv_state's 13 names; an unknown code prints as sent; the wide header (79
    dashes) when max_job_sequence_id has more than 7 digits."""
    assert [resv.state_name(str(i), False) for i in range(13)] == list(resv.SHORT_STATES)
    assert resv.state_name("11", True) == "RESV_BEING_ALTERED"
    assert resv.state_name("42", True) == "42"
    assert resv.table_header(True).split("\n")[1] == "-" * 79
    assert resv.table_header(False) == case("R02_rstat")["stdout"].split("R875")[0]
