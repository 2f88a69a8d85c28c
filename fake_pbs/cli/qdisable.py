"""qdisable: see fake_pbs/cli/queuestate.py (src/cmds/qdisable.c)."""
from fake_pbs.cli import queuestate


def main() -> None:
    queuestate.run("qdisable")
