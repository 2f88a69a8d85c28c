"""qsig: send a signal to jobs (``-s`` name or number, default SIGTERM; extra transcripts k03).

The signal travels as typed; the server resolves names (``USR1``, ``SIGUSR1``, ``10``,
``suspend``, ``resume``, ``admin-suspend``...) and answers ``Unknown/illegal signal name``.
"""
from __future__ import annotations


from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List

USAGE = "usage: qsig [-s signal] job_identifier...\n       qsig --version\n"


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, ids = strict(argv, "s:", "qsig", permute=True)
    except OptionError as err:
        return jobctl.usage(USAGE, messages=[err.message])
    if not ids:
        return jobctl.usage(USAGE)
    signal = "SIGTERM"
    for _, value in opts:
        signal = value
    return jobctl.each_job("qsig", ids, lambda jobid: common.request(
        "sigjob", id=jobid, signal=signal))


def main() -> None:
    common.run_main("qsig", body)
