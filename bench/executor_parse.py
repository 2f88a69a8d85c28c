"""5. Executor: ``parse_status_output`` on an N-job ``qstat -f -F json -x`` document (target
under 200 ms for 10,000 jobs).

The document repeats a real finished-job record from OpenPBS 23.06.06 (transcript b04) under N ids,
in the release's own layout, so the parser sees what it meets on a busy cluster.
"""
import argparse
import json
import time
from pathlib import Path
from typing import Any, Dict

from bench._stats import report

_SAMPLE = (Path(__file__).resolve().parent.parent / "tests" / "data" / "qstat"
           / "b04_qstat_fxjson_exit0.json")


def document(count: int) -> str:
    """A 23.06-style JSON document (4-space indent, ``"key":value``) with ``count`` jobs."""
    sample: Dict[str, Any] = json.loads(json.loads(_SAMPLE.read_text())["stdout"])
    record = next(iter(sample["Jobs"].values()))
    jobs = {"%d.vm" % i: record for i in range(count)}
    body = {"timestamp": sample["timestamp"], "pbs_version": sample["pbs_version"],
            "pbs_server": sample["pbs_server"], "Jobs": jobs}
    return json.dumps(body, indent=4, separators=(",", ":")) + "\n"


def run(count: int, repeat: int = 5) -> bool:
    from psij import JobExecutor

    executor = JobExecutor.get_instance("pbspro")
    text = document(count)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        statuses = executor.parse_status_output(0, text)  # type: ignore[attr-defined]
        best = min(best, time.perf_counter() - start)
    assert len(statuses) == count, "parser lost jobs: %d of %d" % (len(statuses), count)
    ms = best * 1000.0
    return report("parse_status_output, %d jobs (%.1f MB)" % (count, len(text) / 1e6),
                  "%.0f ms" % ms, "< 200 ms", ms < 200)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jobs", type=int, default=10000)
    raise SystemExit(0 if run(parser.parse_args().jobs) else 1)
