"""qstart: see fake_pbs/cli/queuestate.py (src/cmds/qstart.c)."""
from fake_pbs.cli import queuestate


def main() -> None:
    queuestate.run("qstart")
