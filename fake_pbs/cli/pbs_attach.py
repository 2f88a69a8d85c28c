"""pbs_attach: attach a process to a job (src/cmds/pbs_attach.c; transcripts D11, D24, D25).

The options, usage and the answer outside a job are PBS's.  Attaching itself (tm_attach) is
not done by this fake: inside a job it answers ``TM_ENOTIMPLEMENTED`` and exits 1 without
running anything (docs/differences.md).
"""
from __future__ import annotations

import sys

from fake_pbs import leanos
from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List

USAGE = ("usage: pbs_attach [-j jobid] [-m port] -p pid\n"
         "usage: pbs_attach [-j jobid] [-m port] [-P] [-s] cmd [arg1 ...]\n"
         "usage: pbs_attach --version\n")
TM_ENOTFOUND = 17006
TM_ENOTIMPLEMENTED = 17004


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, args = strict(argv, "+j:m:p:Ps", "pbs_attach")
    except OptionError as err:
        sys.stderr.write(err.message + "\n" + USAGE)
        return 2
    values = dict(opts)
    if "p" not in values and not args:
        sys.stderr.write("must specify pid or command\n" + USAGE)
        return 2
    jobid = values.get("j") or leanos.getenv("PBS_JOBID")
    if not jobid or leanos.getenv("PBS_JOBCOOKIE") is None:
        sys.stderr.write("pbs_attach: tm_attach: no matching job found (%d)\n" % TM_ENOTFOUND)
        return 1
    sys.stderr.write("pbs_attach: tm_attach: TM_ENOTIMPLEMENTED (%d)\n" % TM_ENOTIMPLEMENTED)
    return 1


def main() -> None:
    common.run_main("pbs_attach", body)
