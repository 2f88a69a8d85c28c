"""The stagein/stageout list as the mom reads it, and the copy rules of one request, without a
cluster (fake_pbs/mom/staging.py; OpenPBS src/server/job_func.c ``cpy_stage``,
src/resmom/stage_func.c ``stage_file``, ``copy_file``, ``sys_copy``, ``pbs_glob``)."""
import fnmatch
import os
from typing import Any, Dict
from pathlib import Path

from hypothesis import given, strategies as strat

from fake_pbs.mom import staging


def test_pairs_split_at_unescaped_commas_and_first_at() -> None:
    """cpy_stage: each item splits at its first ``@``; ``\\,`` is a comma of a name."""
    pairs = staging.stage_pairs(r"a\,b@vm:/x/y,c@h.d:rel/p")
    assert pairs == [staging.Pair("a,b", "vm", "/x/y"), staging.Pair("c", "h.d", "rel/p")]


NAMES = strat.text(alphabet="ab.x", min_size=0, max_size=6)
PATTERNS = strat.text(alphabet="ab.x*?", min_size=0, max_size=5)


@given(NAMES, PATTERNS)
def test_pbs_glob_is_fnmatch_without_brackets(name: str, pattern: str) -> None:
    """pbs_glob: ``*`` any run, ``?`` one character, other characters themselves (fnmatch
    agrees where no ``[`` appears)."""
    assert staging.pbs_glob(name, pattern) == fnmatch.fnmatchcase(name, pattern)


def _request(tmp: Path, direction: str, value: str) -> Dict[str, Any]:
    return {"direction": direction, "jobid": "1.vm", "owner": "u", "cwd": str(tmp),
            "sandbox": None, "pauses": False,
            "pairs": [list(p) for p in staging.stage_pairs(value)]}


def test_stage_out_wildcard_skips_dot_files_and_removes_what_it_copied(tmp_path: Path) -> None:
    """stage_file: a wildcard in the last component matches that directory's entries except
    those starting with ``.``; copy_file removes each staged-out source once copied."""
    (tmp_path / "dst").mkdir()
    for name in ("r1.dat", "r2.dat", ".r3.dat", "other"):
        (tmp_path / name).write_text(name)
    result = staging.perform(_request(tmp_path, "out", "*.dat@vm:%s/dst" % tmp_path))
    assert (result["done"], result["total"], result["bad"]) == (1, 1, [])
    assert sorted(os.listdir(tmp_path / "dst")) == ["r1.dat", "r2.dat"]
    assert sorted(os.listdir(tmp_path)) == [".r3.dat", "dst", "other"]


def test_stage_in_directory_is_copied_whole(tmp_path: Path) -> None:
    """sys_copy runs ``cp -rp``: a directory stages in with its contents."""
    (tmp_path / "src" / "sub").mkdir(parents=True)
    (tmp_path / "src" / "sub" / "f").write_text("x")
    result = staging.perform(_request(tmp_path, "in", "copy@vm:%s/src" % tmp_path))
    assert result["bad"] == [] and (tmp_path / "copy" / "sub" / "f").read_text() == "x"


def test_missing_stage_out_source_fails_untried_and_stops_the_request(tmp_path: Path) -> None:
    """sys_copy: a stage-out source that is not there fails at once (no ``try=`` lines, no cp
    words); req_cpyfile counts the files after it without trying them."""
    (tmp_path / "later").write_text("x")
    value = "gone@vm:%s/a,later@vm:%s/b" % (tmp_path, tmp_path)
    result = staging.perform(_request(tmp_path, "out", value))
    assert (result["done"], result["total"]) == (0, 2)
    assert result["bad"] == ["Unable to copy file gone to vm:%s/a" % tmp_path]
    assert not any("try=" in line[3] for line in result["log"])
    assert (tmp_path / "later").exists() and not (tmp_path / "b").exists()
    assert ("Job 1.vm: no wildcards:local stageout failed for u from gone to vm:%s/a"
            % tmp_path) in [line[3] for line in result["log"]]


def test_failed_stage_in_is_tried_four_times_and_undoes_earlier_files(tmp_path: Path) -> None:
    """sys_copy tries four times (``command: /bin/cp -rp ... status=1, try=N``); stage_file's
    error path removes the files this stage-in had already copied."""
    (tmp_path / "ok").write_text("x")
    value = "a@vm:%s/ok,b@vm:%s/missing" % (tmp_path, tmp_path)
    result = staging.perform(_request(tmp_path, "in", value))
    assert (result["done"], result["total"]) == (1, 2)
    assert not (tmp_path / "a").exists()
    tries = [line[3] for line in result["log"] if "try=" in line[3]]
    assert tries == ["command: /bin/cp -rp %s/missing b status=1, try=%d" % (tmp_path, n)
                     for n in range(1, 5)]
    assert result["bad"][:2] == ["Unable to copy file b from %s/missing" % tmp_path,
                                 ">>> error from copy"]
    assert "No such file or directory" in result["bad"][2]


def test_subjob_index_replaces_the_first_tag_of_each_name() -> None:
    """subst_array_index: ``^array_index^`` (first occurrence) becomes the subjob's index."""
    pairs = staging.stage_pairs("in.^array_index^@vm:/d/^array_index^/^array_index^")
    assert staging.for_subjob(pairs, "12[3].vm") == [
        staging.Pair("in.3", "vm", "/d/3/^array_index^")]
    assert staging.for_subjob(pairs, "12.vm") == pairs
