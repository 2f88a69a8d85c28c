"""``-W umask``: stored as PBS's decode_l stores a long (decimal: ``022`` is ``22``,
src/lib/Libattr/attr_fn_l.c ``decode_l``, ECL ``verify_datatype_long``), and applied by the mom
as start_exec.c ``finish_exec`` does: the long printed with ``%ld`` and read back with ``%o``,
for the job's shell and the files it creates (its output files included)."""
import os
from pathlib import Path

from hypothesis import given, strategies as strat

from fake_pbs.mom.launch import parse_umask
from fake_pbs.testing import FakeCluster


@given(strat.integers(min_value=0, max_value=0o777))
def test_every_octal_umask_round_trips_through_its_decimal_text(mask: int) -> None:
    """What ``-W umask=0NNN`` stores (``NNN`` in decimal digits) is applied as octal ``NNN``."""
    stored = str(int("%o" % mask, 10))
    assert parse_umask({"umask": stored}) == mask


def test_umask_digits_beyond_octal_and_absent() -> None:
    """``%o`` stops at the first non-octal digit; nothing read (or no umask) leaves 077."""
    assert parse_umask({"umask": "78"}) == 0o7
    assert parse_umask({"umask": "9"}) == 0o77
    assert parse_umask({}) == 0o77


def test_umask_is_stored_decimal_and_applied(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """``qsub -W umask=022``: ``qstat -f`` shows ``umask = 22``; the job runs under 0022 and
    its output file is -rw-r--r--; ``-W umask=0o7`` is refused as a bad long."""
    tmp_path.chmod(0o777)
    jobid = fake_pbs.qsub("umask; touch %s/made" % tmp_path, "-W", "umask=022",
                          "-o", "%s/out" % tmp_path, cwd=str(tmp_path))
    fake_pbs.wait(jobid)
    assert "    umask = 22\n" in fake_pbs.sh("qstat", "-fx", jobid)
    assert (tmp_path / "out").read_text() == "0022\n"
    assert os.stat(tmp_path / "made").st_mode & 0o777 == 0o644
    assert os.stat(tmp_path / "out").st_mode & 0o777 == 0o644
    done = fake_pbs.run(["qsub", "-W", "umask=0o7"], input="true\n")
    assert done.returncode != 0
