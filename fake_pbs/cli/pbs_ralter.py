"""pbs_ralter: change a reservation (OpenPBS 23.06 ``src/cmds/pbs_ralter.c``; transcripts
R20b-R20h, R42c).

``-R``/``-E`` go through cvtdate (no end roll-over, unlike pbs_rsub), ``-D`` travels as typed in
``reserve_duration``, ``-l`` takes only ``select=``, ``-W force`` only with ``-R``/``-E``/``-D``.
Success prints ``pbs_ralter: <server's text>`` (``R888.vm ALTER REQUESTED``); a server error
prints ``pbs_ralter: <text>`` and exits with its code modulo 256 (``Bad time
specification(s)`` 238, ``Unknown Reservation Id`` 236).
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl, resvcmd
from fake_pbs.cli.posix_getopt import getopt
from fake_pbs.model.cvtdate import cvtdate
from fake_pbs.model.errors import PBSE_BADHOST

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List

USAGE = ("usage: pbs_ralter [-I seconds] [-m mail_points] [-M mail_list]\n"
         "                [-N reservation_name] [-R start_time] [-E end_time]\n"
         "                [-U (+/-)username[,(+/-)username]...]\n"
         "                [-G [(+/-)group[,(+/-)group]...]]\n"
         "                [-D duration]\n"
         "                [-W force]\n"
         "                resv_id\n"
         "       pbs_ralter --version\n")
_PLAIN = {"m": "Mail_Points", "M": "Mail_Users", "N": "Reserve_Name", "U": "Authorized_Users",
          "G": "Authorized_Groups"}


#: handle_attribute_errors' option letters
LETTERS = {"reserve_duration": "D", "reserve_end": "E", "Authorized_Groups": "G",
           "interactive": "I", "Mail_Points": "m", "Mail_Users": "M", "Reserve_Name": "N",
           "reserve_start": "R", "Authorized_Users": "U"}


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    import time

    now = time.time()
    result = getopt("pbs_ralter", argv, "E:I:m:M:N:R:q:U:G:D:l:W:")
    attrs: Dict[str, str] = {}
    messages: List[str] = []
    errors = 0
    force = times = False
    dest = None
    for letter, value, message in resvcmd.options_in_order(result):
        bad = None
        if message is not None:
            bad = message
        elif letter in "RE":
            when = cvtdate(value, now)
            if when is None:
                bad = "pbs_ralter: illegal -%s time value" % letter
            else:
                attrs["reserve_start" if letter == "R" else "reserve_end"] = str(when)
                times = True
        elif letter == "I":
            if (resvcmd.strtol(value) or 0) > 0:
                attrs["interactive"] = value
            else:
                bad = "pbs_ralter: illegal -I time value"
        elif letter == "q":
            if not value.startswith("@"):
                bad = 'pbs_ralter: illegal -q value: format "@server"'
            else:
                dest = value[1:]
        elif letter == "D":
            attrs["reserve_duration"] = value
            times = True
        elif letter == "l":
            if value.startswith("select="):
                attrs["Resource_List.select"] = value[7:]
            else:
                bad = "pbs_ralter -l only allows for select"
        elif letter == "W":
            if value == "force":
                force = True
            else:
                bad = "pbs_ralter: illegal -W value"
        else:
            attrs[_PLAIN[letter]] = value
        if bad is not None:
            messages.append(bad)
            errors += 1
    if force and not times:
        messages.append("pbs_ralter: No support for requested service")
        errors += 1
    if errors or len(result.operands) != 1:
        return jobctl.usage(USAGE, 2, messages)
    elsewhere = resvcmd.other_server("pbs_ralter", dest)
    if elsewhere is not None:
        sys.stderr.write(elsewhere)
        return PBSE_BADHOST % 256
    operand = result.operands[0]
    resv_id = resvcmd.qualify(operand)
    if resv_id is None:
        sys.stderr.write("pbs_ralter: illegally formed reservation identifier: %s\n" % operand)
        return 2
    from fake_pbs.cli.resv_verify import report

    failure = report("pbs_ralter", attrs, LETTERS, USAGE, long_name=False)
    if failure is not None:
        sys.stderr.write(failure[0])
        return failure[1]
    reply = common.request("resv_alter", id=resv_id, attrs=attrs, force=force)
    text = reply.get("text", "") if isinstance(reply, dict) else ""
    sys.stdout.write("pbs_ralter: %s\n" % text)
    return 0


def main() -> None:
    common.run_main("pbs_ralter", body)
