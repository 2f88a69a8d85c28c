"""qterm: shut the server down (OpenPBS 23.06 ``qterm.c``, server ``req_shutdown.c``).

``-t quick`` (the default) stops the server and leaves running jobs running; ``-m`` also
stops the moms once the server is down (their jobs run on, re-adopted at the next start:
``fake-pbs start`` brings back what is missing); ``-s`` names the scheduler, which is part of
the fake's server.  ``-t immediate|delay`` and the failover options ``-f``, ``-F`` and ``-i``
are refused by the server (15029).  Managers only; no cluster is started to be stopped.
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict
from fake_pbs.model.errors import PBSE_BADHOST, PBSE_NOSERVER, PbsError
from fake_pbs.protocol import call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Set

USAGE = ("Usage: qterm [-t immediate|delay|[quick]] [-m] [-s] [-f|-i] [server ...]\n"
         "       qterm --version\n")
MANNERS = ("quick", "immediate", "delay")
# qterm.c's getopt loop: an option is an error after any of these
NOT_AFTER = {"f": {"i", "F"}, "F": {"i", "f", "m"}, "i": {"f", "F"}}


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, servers = strict(argv, "t:smfFi", "qterm", permute=True)
    except OptionError:
        return jobctl.usage(USAGE, code=1)
    letters: Set[str] = set()
    clash = False
    for letter, _ in opts:
        clash = clash or bool(NOT_AFTER.get(letter, set()) & letters)
        letters.add(letter)
    manner = dict(opts).get("t", "quick")  # the last -t counts
    if clash or manner not in MANNERS:
        return jobctl.usage(USAGE, code=1)
    status = 0
    for server in servers or [""]:
        try:
            channel = common.server_channel(autostart=False)  # none started to be stopped
            if server and server.split(":")[0] != jobctl.server_name():
                raise PbsError(PBSE_BADHOST, "")
            call(channel, "shutdown", manner=manner, moms="m" in letters,
                 secondary=bool({"f", "F", "i"} & letters))
        except PbsError as err:
            if err.code in (PBSE_BADHOST, PBSE_NOSERVER):  # qterm.c: cnt2server failed
                sys.stderr.write("qterm: could not connect to server %s (%d)\n"
                                 % (server, err.code))
            else:
                sys.stderr.write("qterm: %s %s\n" % (err.text, server))
            status = 2
    return status


def main() -> None:
    common.run_main("qterm", body)
