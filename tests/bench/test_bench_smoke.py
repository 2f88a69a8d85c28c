"""``make bench`` still runs: every benchmark at its tiny size (figures are not checked)."""
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.cluster  # the benchmarks start their clusters

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.mark.bench
@pytest.mark.timeout(180)
def test_run_all_tiny_runs_every_benchmark() -> None:
    """bench/run_all.py --tiny starts and stops its clusters and prints each section's figures."""
    done = subprocess.run([sys.executable, str(REPO / "bench" / "run_all.py"), "--tiny"],
                          cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=170)
    assert done.returncode == 0, "run_all --tiny failed:\n%s\n%s" % (done.stdout, done.stderr)
    for section in ("== 1.", "== 2.", "== 3.", "== 4.", "== 5."):
        assert section in done.stdout, done.stdout
    for figure in ("python3 -c pass (baseline)", "qstat -f -F json -x <id>", "submit -> F",
                   "x qsub /bin/true -> all F", "server peak RSS", "parse_status_output"):
        assert figure in done.stdout, done.stdout
