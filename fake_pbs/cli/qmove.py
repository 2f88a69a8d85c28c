"""qmove: move jobs to another queue (``qmove destination job...``; extra transcripts k09)."""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List

USAGE = "usage: qmove destination job_identifier...\n       qmove --version\n"


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        _, operands = strict(argv, "", "qmove", permute=True)
    except OptionError as err:
        return jobctl.usage(USAGE, messages=[err.message])
    if len(operands) < 2:
        return jobctl.usage(USAGE)
    dest, ids = operands[0], operands[1:]
    _, at, server = dest.partition("@")
    if (at and not server) or "@" in server:
        sys.stderr.write("qmove: illegally formed destination: %s\n" % dest)
        return 2
    return jobctl.each_job("qmove", ids, lambda jobid: common.request(
        "movejob", id=jobid, dest=dest))


def main() -> None:
    common.run_main("qmove", body)
