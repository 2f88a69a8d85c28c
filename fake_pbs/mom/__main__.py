"""``python3 -m fake_pbs.mom --home H --host NAME``: run the mom of one fake host (foreground).

Exits 1 when another mom already serves this host. SIGTERM/SIGINT stop the daemon; the job shells
keep running under their shepherds and a restarted mom re-adopts them.
"""
import argparse
import fcntl
import os
import signal
import sys
from typing import List, Optional

from fake_pbs import paths
from fake_pbs.mom import momconfig
from fake_pbs.mom.context import MomContext
from fake_pbs.mom.daemon import MomDaemon


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="fake_pbs.mom", description=__doc__)
    parser.add_argument("--home", help="the cluster directory (default: $FAKE_PBS_HOME)")
    parser.add_argument("--host", required=True, help="the fake host this mom serves")
    args = parser.parse_args(argv)
    ctx = MomContext(paths.cluster_home(args.home), args.host)
    ctx.layout.create()
    lock_fd = os.open(str(ctx.layout.lock), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.stderr.write("fake_pbs.mom: a mom already runs for host %s\n" % args.host)
        return 1
    ctx.layout.pidfile.write_text("%d\n" % os.getpid())
    if not read_config(ctx):
        sys.stderr.write("pbs_mom: config file(s) parsing failed\n")
        return 1
    daemon = MomDaemon(ctx)
    signal.signal(signal.SIGTERM, lambda *_: daemon.stop())
    signal.signal(signal.SIGINT, lambda *_: daemon.stop())
    daemon.bind()
    daemon.recover()
    daemon.serve_forever()
    return 0


def read_config(ctx: MomContext) -> bool:
    """``mom_priv/<host>/config`` into ``ctx.config``, logged as PBS's mom logs it (its
    handlers log each directive; an error is logged and the mom does not start)."""
    try:
        config, applied, errors = momconfig.load(ctx.layout.config)
    except momconfig.ConfigError as err:
        errors, applied, config = ["read_config, %s" % err], [], momconfig.MomConfig()
    for name, value in applied:
        ctx.log.write(0x0002, "Svr", name, value)
    for message in errors:
        ctx.log.server(message, 0x0001)
        sys.stderr.write("pbs_mom: %s\n" % message)
    ctx.config = config
    return not errors


if __name__ == "__main__":
    sys.exit(main())
