"""qenable: see fake_pbs/cli/queuestate.py (src/cmds/qenable.c)."""
from fake_pbs.cli import queuestate


def main() -> None:
    queuestate.run("qenable")
