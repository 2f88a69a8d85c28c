"""pbs_rstat: show reservations (OpenPBS 23.06 ``src/cmds/pbs_rstat.c``; transcripts R02-R06,
R18b/R18c, R44, R47).

``-S`` (default) a table, ``-f``/``-F`` the full listing, ``-B`` ids only; the last of them wins.
An unknown id prints ``pbs_rstat: Unknown Reservation Id`` and the command still exits 0 (R44);
only an ill-formed id makes it exit 1.  No reservations: no output at all (R47).
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl, resvcmd
from fake_pbs.cli.posix_getopt import getopt
from fake_pbs.model.errors import PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional

USAGE = "Usage:\n\tpbs_rstat [-fFBS] [reservation-id]\n\tpbs_rstat --version\n"


def _wide() -> bool:
    """pbs_rstat widens its table as qstat does (``max_job_sequence_id`` over 7 digits)."""
    try:
        return common.wide_ids(common.request("statsvr"))
    except PbsError:
        return False


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    result = getopt("pbs_rstat", argv, "fFBS")
    how = "S"
    for letter, _value, message in resvcmd.options_in_order(result):
        if message is not None:
            sys.stderr.write(message + "\n")
        elif letter in "fF":
            how = "F"
        elif letter in "BS":
            how = letter
    if result.errors:
        return jobctl.usage(USAGE, 1)
    import time

    from fake_pbs.cli.render import resv

    now = time.time()
    wide = _wide()
    status = 0
    header = True
    targets: List[Optional[str]] = list(result.operands) or [None]
    for operand in targets:
        resv_id = None
        if operand is not None:
            resv_id = resvcmd.qualify(operand)
            if resv_id is None:
                sys.stderr.write("pbs_rstat: illegally formed reservation identifier: %s\n"
                                 % operand)
                status = 1
                continue
        try:
            reply = common.request("resv_status", **({} if resv_id is None else
                                                     {"ids": [resv_id]}))
            found = list(reply.get("reservations", [])) if isinstance(reply, dict) else []
        except PbsError as err:
            sys.stderr.write("pbs_rstat: %s\n" % err.text)
            continue
        sys.stdout.write(resv.listing(found, how, now, wide, header))
        header = header and not found
    return status


def main() -> None:
    common.run_main("pbs_rstat", body)
