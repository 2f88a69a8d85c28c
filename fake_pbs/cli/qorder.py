"""qorder: swap the order of two jobs, and their queues when they differ (src/cmds/qorder.c;
the server's req_orderjob, server/handlers/jobctl.py)."""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl
from fake_pbs.model.errors import PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List

USAGE = "usage: qorder job_identifier job_identifier\n       qorder --version\n"


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    if len(argv) != 2:
        sys.stderr.write(USAGE)
        return 2
    for raw in argv:
        if jobctl.foreign(raw):
            sys.stderr.write("qorder: illegally formed job identifier: %s\n" % raw)
            return 1
    first, second = (jobctl.qualify(raw) for raw in argv)
    try:
        common.request("orderjob", id=first, other=second)
    except PbsError as err:
        # prt_job_err with "<id1> or <id2>"; the exit status is pbs_errno's
        sys.stderr.write("qorder: %s %s or %s\n" % (err.text, first, second))
        return err.exit_code
    return 0


def main() -> None:
    common.run_main("qorder", body)
