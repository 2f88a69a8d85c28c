"""qrls: release holds (``-h u`` by default; extra transcripts k02, j06c/e/f)."""
from __future__ import annotations


from fake_pbs.cli import common, hold_list

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List


def body(argv: List[str]) -> int:
    return hold_list.run("qrls", "rlsjob", argv)


def main() -> None:
    common.run_main("qrls", body)
