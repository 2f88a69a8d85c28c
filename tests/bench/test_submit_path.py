"""The per-job submit path (docs/performance.md, throughput): ``qsub`` verifies a job without
loading ``re``, and the hand-made job-name check answers as the pattern it replaced."""
import re
import subprocess
import sys
from pathlib import Path

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


def test_plain_submission_verifies_without_re() -> None:
    """``qsub -- /bin/true`` (Job_Name ``true``, no -l) must not import ``re`` (~10 ms of
    every submit); only unusual values (select, place, times) may load it on use."""
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from fake_pbs.cli import qsub_verify\n"
            "qsub_verify.verify({'Job_Name': 'true'}, {},"
            " 'host', '/tmp')\n"
            "print('re' in sys.modules)" % str(REPO))
    done = subprocess.run([sys.executable, "-S", "-c", code], stdout=subprocess.PIPE, text=True,
                          check=True, timeout=60)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("name", ["true", "a.b-c_d+e", "x" * 230])
def test_ordinary_names_pass(name: str) -> None:
    """Job_Name rules (reference: qsub -N): letters, digits and ``_+.-``, up to 230 chars."""
    assert ecl.check_job_name(name) == name
