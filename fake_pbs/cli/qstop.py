"""qstop: see fake_pbs/cli/queuestate.py (src/cmds/qstop.c)."""
from fake_pbs.cli import queuestate


def main() -> None:
    queuestate.run("qstop")
