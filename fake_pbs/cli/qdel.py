"""qdel: delete jobs (OpenPBS 23.06 ``qdel.c``; transcripts c01-c10, extra k12/k13).

One ``deljob`` request per id; failures print ``qdel: <text> <id as typed>`` and the exit status
is the last failure's code modulo 256 (``Unknown Job Id`` 153, ``Job has finished`` 35).
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, List

USAGE = ("usage:\n"
         "\tqdel [-W force|suppress_email=X] [-x] job_identifier...\n"
         "\tqdel --version\n")


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, ids = strict(argv, "W:x", "qdel", permute=True)
    except OptionError as err:
        return jobctl.usage(USAGE, messages=[err.message])
    force = purge = False
    suppress = None
    errors: List[str] = []
    for letter, value in opts:
        if letter == "x":
            purge = True
        elif value == "force":
            force = True
        elif value.startswith("suppress_email="):
            suppress = value.split("=", 1)[1]
        elif not value or not value.isdigit():
            errors.append("qdel: illegal -W value")
    if errors or not ids:
        sys.stderr.write("".join(m + "\n" for m in errors))
        return jobctl.usage(USAGE)
    sent = [0]

    def send(jobid: str) -> Any:
        # qdel.c sends its first suppress_email ids with mail and the rest with "nomail":
        # the server tells them apart by each id's place in the command
        sent[0] += 1
        return common.request("deljob", id=jobid, force=force, purge=purge,
                              suppress_mail=suppress, mail_index=sent[0] - 1)
    return jobctl.each_job("qdel", ids, send, qualify_ids=False)


def main() -> None:
    common.run_main("qdel", body)
