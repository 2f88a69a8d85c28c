"""qrls: release holds (``-h u`` by default; extra transcripts k02, j06c/e/f)."""
from typing import List

from fake_pbs.cli import common, qsub_holds


def body(argv: List[str]) -> int:
    return qsub_holds.run("qrls", "rlsjob", argv)


def main() -> None:
    common.run_main("qrls", body)
