"""The per-job submit path (docs/performance.md, throughput): ``qsub`` verifies a job without
loading ``re``, and the hand-made job-name check answers as the pattern it replaced."""
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_pbs.model import ecl
from fake_pbs.model.errors import PbsError

REPO = Path(__file__).resolve().parent.parent.parent
_OLD_NAME = re.compile(r"^[A-Za-z0-9_+.-]+$")


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="aZ09_+.-\n \t/@éx", max_size=8))
def test_job_name_check_is_the_former_pattern(name: str) -> None:
    """qsub -N (transcript a0x family: ``illegal -N value``): accepted names are exactly those
    of ``^[A-Za-z0-9_+.-]+$`` as Python's ``re`` matched it (``$`` allows one final newline)."""
    try:
        ecl.check_job_name(name)
        accepted = True
    except PbsError:
        accepted = False
    assert accepted == bool(_OLD_NAME.match(name))


@pytest.mark.parametrize("attrs, resources", [
    ({"Job_Name": "true"}, {}),
    ({"Job_Name": "psij"}, {"select": "1:ncpus=1:mpiprocs=1", "walltime": "00:10:00"}),
])
def test_ordinary_submissions_verify_without_re(attrs: Dict[str, str],
                                                resources: Dict[str, str]) -> None:
    """``qsub -- /bin/true`` (Job_Name ``true``, no -l) and psij's jobs (``-l
    select=1:ncpus=1:mpiprocs=1 -l walltime=00:10:00``) must not import ``re`` (~10 ms of every
    submit; docs/performance.md, figure 3b); only unusual values may load it on use."""
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from fake_pbs.cli import qsub_verify\n"
            "qsub_verify.verify(%r, %r, 'host', '/tmp')\n"
            "print('re' in sys.modules)" % (str(REPO), attrs, resources))
    done = subprocess.run([sys.executable, "-S", "-c", code], stdout=subprocess.PIPE, text=True,
                          check=True, timeout=60)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("name", ["true", "a.b-c_d+e", "x" * 230])
def test_ordinary_names_pass(name: str) -> None:
    """Job_Name rules (reference: qsub -N): letters, digits and ``_+.-``, up to 230 chars."""
    assert ecl.check_job_name(name) == name


_OLD_TIME = re.compile(r"^(?:(?:(\d+):)?(\d+):)?(\d+)(?:\.(\d*))?$")
_OLD_RES_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="0159:.\n a٣²", max_size=10))
def test_time_check_is_the_former_pattern(value: str) -> None:
    """-l walltime / cput values ([[HH:]MM:]SS[.ms], reference ECL): the hand parser accepts and
    computes exactly what the former pattern did (``\\d`` is any Unicode decimal digit)."""
    match = _OLD_TIME.match(value)
    try:
        seconds = ecl.parse_time(value)
    except PbsError:
        assert match is None
        return
    assert match is not None
    hours, minutes, secs, fraction = match.groups()
    expected = int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(secs)
    assert seconds == expected + (1 if fraction and fraction[0] >= "5" else 0)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="aZ_09.-\n =:é", max_size=8))
def test_resource_name_check_is_the_former_pattern(name: str) -> None:
    """-l select chunk resource names and place group=<res>: accepted exactly as the former
    pattern ``^[A-Za-z_][A-Za-z0-9_.-]*$`` did."""
    assert ecl._is_res_name(name) == bool(_OLD_RES_NAME.match(name))
    if "+" not in name and ":" not in name and "=" not in name:
        try:
            accepted = bool(ecl.select_chunks("%s=1" % name))
        except PbsError:
            accepted = False
        assert accepted == bool(_OLD_RES_NAME.match(name))


@pytest.mark.parametrize("argv, status, out, err", [
    (["--version"], 0, "pbs_version = 23.06.06\n", ""),
    (["-Z"], 2, "", "qsub: invalid option -- 'Z'\n"),
])
def test_fast_exit_keeps_status_and_output(argv: "list[str]", status: int, out: str,
                                           err: str) -> None:
    """qsub leaves without the interpreter's teardown (os._exit): what it printed is flushed
    and its exit status is PBS's (qsub --version: 0; an unknown option: 2 with the usage)."""
    done = subprocess.run([sys.executable, "-S", str(REPO / "fake_pbs" / "bin" / "qsub")] + argv,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "FAKE_PBS_AUTOSTART": "0",
                               "FAKE_PBS_HOME": "/nonexistent"})
    assert done.returncode == status
    assert done.stdout == out
    assert done.stderr.startswith(err)
