"""qhold: put holds on jobs (``-h u`` by default; extra transcripts k01)."""
from typing import List

from fake_pbs.cli import common, qsub_holds


def body(argv: List[str]) -> int:
    return qsub_holds.run("qhold", "holdjob", argv)


def main() -> None:
    common.run_main("qhold", body)
