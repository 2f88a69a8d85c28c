"""qrerun: requeue running jobs (``-W force``; extra transcripts k04)."""
from __future__ import annotations


from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List

USAGE = "usage: qrerun [-W force] job_identifier...\n       qrerun --version\n"


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, ids = strict(argv, "W:", "qrerun", permute=True)
    except OptionError as err:
        return jobctl.usage(USAGE, messages=[err.message])
    if any(value != "force" for _, value in opts) or not ids:
        return jobctl.usage(USAGE)
    force = bool(opts)
    return jobctl.each_job("qrerun", ids, lambda jobid: common.request(
        "rerunjob", id=jobid, force=force))


def main() -> None:
    common.run_main("qrerun", body)
