"""``python3 -m fake_pbs.server --home H``: run the fake pbs_server in the foreground."""
import argparse
import os
import signal
import sys
from types import FrameType
from typing import Callable, List, Optional

from fake_pbs import paths
from fake_pbs.server.daemon import run


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="fake_pbs.server", description=__doc__)
    parser.add_argument("--home", help="the cluster directory (default: $FAKE_PBS_HOME)")
    args = parser.parse_args(argv)
    home = paths.cluster_home(args.home)
    os.environ["FAKE_PBS_HOME"] = str(home)
    return run(home, install_signals=_install_signals)


def _install_signals(stop: Callable[[], None]) -> None:
    def handle(signum: int, frame: Optional[FrameType]) -> None:
        stop()
    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)


if __name__ == "__main__":
    sys.exit(main())
