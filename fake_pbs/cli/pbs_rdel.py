"""pbs_rdel: delete reservations (OpenPBS 23.06 ``src/cmds/pbs_rdel.c``; transcripts R21,
R21c, R21d, R45).

One ``resv_delete`` per id, silent on success; a failure prints ``pbs_rdel: <text> <id>`` and
the exit status is the last failure's code modulo 256 (``Unknown Reservation Id`` 236).
``-q dest`` is sent along (PBS's ``destqueue=`` extension).
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl, resvcmd
from fake_pbs.cli.posix_getopt import getopt
from fake_pbs.model.errors import PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List

USAGE = "usage:\tpbs_rdel [-q dest] resv_identifier...\n      \tpbs_rdel --version\n"


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    result = getopt("pbs_rdel", argv, "q:")
    errors = 0
    extra: Dict[str, str] = {}
    for letter, value, message in resvcmd.options_in_order(result):
        if message is not None:
            sys.stderr.write(message + "\n")
            errors += 1
        elif not value:
            sys.stderr.write("pbs_rdel: illegal -q value\n")
            errors += 1
        else:
            extra["destqueue"] = value
    if errors or not result.operands:
        return jobctl.usage(USAGE)
    status = 0
    for operand in result.operands:
        resv_id = resvcmd.qualify(operand)
        if resv_id is None:
            sys.stderr.write("pbs_rdel: illegally formed reservation identifier: %s\n" % operand)
            status = 1
            continue
        try:
            common.request("resv_delete", id=resv_id, **extra)
        except PbsError as err:
            sys.stderr.write("pbs_rdel: %s %s\n" % (err.text, resv_id))
            status = err.exit_code
    return status


def main() -> None:
    common.run_main("pbs_rdel", body)
