"""qrun: run jobs now (managers only; ``-H`` vnodes, ``-a`` asynchronous; extra k06, m03d).

Every failure prints ``qrun: <text> <id>`` and the exit status is 2, as PBS's qrun does.
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict
from fake_pbs.model.errors import PBSE_UNKNODE, PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional

USAGE = ("Usage: qrun [-a] [-H vnode_specification ] job_identifier_list\n"
         "       qrun [-a] [-H - ] job_identifier_list\n"
         "       qrun --version\n")


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, ids = strict(argv, "H:a", "qrun", permute=True)
    except OptionError as err:
        return jobctl.usage(USAGE, 1, [err.message])
    vnodes: Optional[str] = None
    errors = 0
    for letter, value in opts:
        if letter == "H":
            if not value:
                sys.stderr.write("qrun: illegal -H value\n")
                errors += 1
            vnodes = value
    if errors or not ids:
        return jobctl.usage(USAGE, 1)
    status = 0
    for raw in ids:
        if jobctl.foreign(raw):
            jobctl.illegal_id("qrun", raw)
            status = 1
            continue
        jobid = jobctl.qualify(raw)
        try:
            common.request("runjob", id=jobid, vnodes=vnodes)
        except PbsError as err:
            if err.code == PBSE_UNKNODE:
                sys.stderr.write("qrun: %s %s\n" % (err.text, vnodes))
            else:
                sys.stderr.write(jobctl.error_line("qrun", err, jobid) + "\n")
            status = 2
    return status


def main() -> None:
    common.run_main("qrun", body)
