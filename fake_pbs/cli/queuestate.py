"""qenable, qdisable, qstart, qstop: set a queue's ``enabled`` or ``started`` (src/cmds/qenable.c,
qdisable.c, qstart.c, qstop.c).

Each destination ``queue[@server]`` is one manager request ``set queue <queue> <attr> = TRUE``
(or FALSE).  No argument: the usage, exit 1.  A refusal: ``<cmd>: <server's message> <queue>``
(``@server`` after it when given) and exit 2, the other destinations still tried.  qstop's
error line says ``disabling`` where qstart's says ``starting``, as in PBS.
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl
from fake_pbs.model.errors import PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List

#: command -> (attribute, value sent)
SETTINGS = {"qenable": ("enabled", "TRUE"), "qdisable": ("enabled", "FALSE"),
            "qstart": ("started", "TRUE"), "qstop": ("started", "FALSE")}


def body(cmd: str, argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    if not argv:
        sys.stderr.write("Usage: %s [queue][@server] ...\n       %s --version\n" % (cmd, cmd))
        return 1
    attr, value = SETTINGS[cmd]
    status = 0
    for destination in argv:
        queue, at, server = destination.partition("@")
        if "@" in server or (at and not server):
            sys.stderr.write("%s: illegally formed destination: %s\n" % (cmd, destination))
            status = 1
            continue
        try:
            common.request("manager", command="set", objtype="queue", name=queue,
                           attrs=[[attr, "=", value]])
        except PbsError as err:
            sys.stderr.write("%s: %s %s%s\n" % (cmd, err.text, queue,
                                                "@" + server if server else ""))
            status = 2
    return status


def run(cmd: str) -> None:
    common.run_main(cmd, lambda argv: body(cmd, argv))
