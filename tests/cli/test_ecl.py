"""Value verification (ECL) against the values real OpenPBS 23.06.06 accepted, stored or refused."""
import time

import pytest

from fake_pbs.model import ecl, resources
from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_JOBNBIG, PbsError


@pytest.mark.parametrize("given, stored", [
    ("10:00", "00:10:00"), ("600", "00:10:00"), ("100:00:00", "100:00:00"),
    ("90.5", "00:01:31"), ("90.4", "00:01:30"), ("00:05:00", "00:05:00"), ("0", "00:00:00"),
])
def test_walltime_is_stored_as_hh_mm_ss(given: str, stored: str) -> None:
    """Extra transcripts j11/j11b/j11c/j11e: walltime forms and their stored value."""
    assert ecl.normalize_time(given) == stored


@pytest.mark.parametrize("given", ["abc", "1:00:00:00", "", "-5", "1:", ":5", "1.5.5"])
def test_bad_walltime_is_illegal(given: str) -> None:
    """Transcripts a06 (walltime=abc) and j11d (1:00:00:00): rc 166 = PBSE_BADATVAL."""
    with pytest.raises(PbsError) as info:
        ecl.normalize_time(given)
    assert info.value.code == PBSE_BADATVAL


@pytest.mark.parametrize("given, stored, nbytes", [
    ("1gb", "1gb", 1 << 30), ("512mb", "512mb", 512 << 20), ("1048576", "1048576b", 1048576),
    ("1024KB", "1024kb", 1 << 20), ("2w", "2w", 16), ("1kw", "1kw", 8192),
])
def test_sizes(given: str, stored: str, nbytes: int) -> None:
    """Extra j12/j12d: `mem=1gb` kept, `mem=1048576` stored `1048576b`."""
    assert ecl.normalize_size(given) == stored
    assert ecl.parse_size(given) == nbytes


@pytest.mark.parametrize("given", ["1xb", "gb", "1.5gb", "", "-1gb"])
def test_bad_size(given: str) -> None:
    """Extra j12c: `mem=1xb` -> Illegal attribute or resource value."""
    with pytest.raises(PbsError):
        ecl.parse_size(given)


def test_format_size_picks_the_largest_whole_unit() -> None:
    """Server sums show as PBS does: 4gb, 7416kb (b02 resources_used.mem)."""
    assert ecl.format_size(4 << 30) == "4gb"
    assert ecl.format_size(7416 * 1024) == "7416kb"
    assert ecl.format_size(1000) == "1000b"


def test_booleans_and_longs() -> None:
    """PBS boolean spellings all map to True/False; longs are decimal integers."""
    for word in ("true", "TRUE", "t", "y", "1", "True"):
        assert ecl.normalize_boolean(word) == "True"
    for word in ("false", "F", "n", "0"):
        assert ecl.normalize_boolean(word) == "False"
    with pytest.raises(PbsError):
        ecl.normalize_boolean("maybe")
    assert ecl.parse_long("+8") == 8
    with pytest.raises(PbsError):
        ecl.parse_long("8x")


def test_verify_resource_dispatches_on_type() -> None:
    """Built-in types: walltime time, mem size, ncpus long (a06, j12c)."""
    table = resources.default_resources()
    assert ecl.verify_resource(table["walltime"], "600") == "00:10:00"
    assert ecl.verify_resource(table["mem"], "1048576") == "1048576b"
    assert ecl.verify_resource(table["ncpus"], "2") == "2"
    with pytest.raises(PbsError):
        ecl.verify_resource(table["ncpus"], "two")
    with pytest.raises(PbsError):
        ecl.verify_resource(table["select"], "abc")


def test_ngpus_is_a_site_resource_not_builtin() -> None:
    """Extra n02: ngpus is not built into PBS (a stock server does not know it); a default
    fake cluster creates it as sites do, type=long, flag=nh, scheduled."""
    assert resources.lookup("ngpus") is None
    assert "ngpus" not in resources.default_resources()
    [ngpus] = [e for e in resources.SITE_DEFAULTS if e["name"] == "ngpus"]
    defn = resources.ResourceDef("ngpus", str(ngpus["type"]), str(ngpus["flag"]))
    assert (defn.type, defn.host_level, defn.consumable, ngpus["sched"]) == (
        "long", True, True, True)
    assert resources.BUILTIN["walltime"].host_level is False


@pytest.mark.parametrize("name, ok", [
    ("hello", True), ("1bad", True), ("a-b_c+d.e", True), ("bad name", False), ("=foo", False),
    ("", False), ("x" * 230, True),
])
def test_job_name_rules(name: str, ok: bool) -> None:
    """a02/a02b/a02c: digits first allowed at submission, spaces not; `=foo` (PSI/J template)."""
    if ok:
        assert ecl.check_job_name(name) == name
    else:
        with pytest.raises(PbsError) as info:
            ecl.check_job_name(name)
        assert info.value.code == PBSE_BADATVAL


def test_job_name_too_long() -> None:
    """Reference 1.4: over 230 chars -> PBSE_JOBNBIG `name is too long`."""
    with pytest.raises(PbsError) as info:
        ecl.check_job_name("x" * 231)
    assert info.value.code == PBSE_JOBNBIG


def test_select_syntax() -> None:
    """a14: `select=abc` is illegal; counts and res=value chunks parse."""
    assert ecl.select_chunks("2:ncpus=1+1:mem=2gb") == [
        (2, [("ncpus", "1")]), (1, [("mem", "2gb")])]
    assert ecl.select_chunks("ncpus=2") == [(1, [("ncpus", "2")])]
    assert ecl.select_chunks("3") == [(3, [])]
    for bad in ("abc", "0:ncpus=1", "1:ncpus", "1:ncpus=", "", "1:=2", "1:ncpus=1+"):
        with pytest.raises(PbsError):
            ecl.select_chunks(bad)


def test_place() -> None:
    """Place words: arrangement, sharing, group=."""
    for good in ("scatter", "pack", "scatter:excl", "free:shared:group=host", "exclhost"):
        assert ecl.check_place(good) == good
    for bad in ("scatter:pack", "nowhere", "", "excl:shared"):
        with pytest.raises(PbsError):
            ecl.check_place(bad)


def test_depend() -> None:
    """j05*/j05t: known types accepted (even unknown job ids), `afterfoo` refused."""
    assert ecl.parse_depend("afterok:343.vm:342.vm,afterany:345.vm") == [
        ("afterok", ["343.vm", "342.vm"]), ("afterany", ["345.vm"])]
    assert ecl.parse_depend("on:2") == [("on", ["2"])]
    for bad in ("afterfoo:343.vm", "afterok", "afterok:", "on:x", "afterok:abc"):
        with pytest.raises(PbsError):
            ecl.parse_depend(bad)
    assert ecl.qualify_depend("afterok:343:342.vm", "vm") == "afterok:343.vm@vm:342.vm@vm"


def test_array_ranges() -> None:
    """j01/j04/j04d accepted, j04b `3-1` and j04c `1` refused."""
    assert ecl.parse_array_range("1-3").indices() == [1, 2, 3]
    step = ecl.parse_array_range("1-5:2")
    assert step.indices() == [1, 3, 5] and step.submitted == "1-5:2"
    pct = ecl.parse_array_range("1-4%2")
    assert (pct.max_run, pct.submitted) == (2, "1-4")
    for bad in ("3-1", "1", "1-1", "a-b", "1-4%0", "1-4:0"):
        with pytest.raises(PbsError):
            ecl.parse_array_range(bad)


def test_exec_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """j07 (`-a 2100` at 20:59 -> today 21:00), j07e (full date with seconds), j07d refused."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        now = 1795294740  # Sat Nov 21 20:59:00 2026 UTC
        assert time.strftime("%H:%M", time.gmtime(now)) == "20:59"
        assert ecl.parse_exec_time("2100", now) == now + 60
        assert ecl.parse_exec_time("2000", now) == now + 23 * 3600 + 60
        full = ecl.parse_exec_time("203001011200.30", now)
        assert time.strftime("%c", time.gmtime(full)) == "Tue Jan  1 12:00:30 2030"
        for bad in ("99999999", "2460", "12", "1200.75", "02301200"):
            with pytest.raises(PbsError):
                ecl.parse_exec_time(bad, now)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_small_option_values() -> None:
    """j08 (-m n, -m abe ok; -m z bad), j08d/e (-p 2000 bad, -1024 ok), -r y|n, -j, -k, -h."""
    assert ecl.check_mail_points("abe") == "abe"
    assert ecl.check_mail_points("n") == "n"
    for bad in ("z", "an", "", "aa"):
        with pytest.raises(PbsError):
            ecl.check_mail_points(bad)
    assert ecl.check_priority("-1024") == "-1024"
    with pytest.raises(PbsError):
        ecl.check_priority("2000")
    assert ecl.rerunable_value("n") == "False"
    with pytest.raises(PbsError):
        ecl.rerunable_value("yes")
    assert ecl.check_join("oe") == "oe"
    with pytest.raises(PbsError):
        ecl.check_join("x")
    assert ecl.check_keep("oe") == "oe"
    assert ecl.check_hold_types("uo") == "uo"
    with pytest.raises(PbsError):
        ecl.check_hold_types("x")
    with pytest.raises(PbsError):
        ecl.check_checkpoint("u")
    assert ecl.check_sandbox("PRIVATE") == "PRIVATE"
    with pytest.raises(PbsError):
        ecl.check_sandbox("FOO")
