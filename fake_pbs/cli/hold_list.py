"""qhold and qrls share their option: ``-h hold_list`` (letters ``u o s p``, or ``n`` alone)."""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List


def _valid(types: str) -> bool:
    if not types or any(c not in "uospn" for c in types):
        return False
    return not ("n" in types and len(types) > 1)


def run(cmd: str, op: str, argv: List[str]) -> int:
    """``qhold``/``qrls`` (extra k01/k02, j06): ``op`` is ``holdjob`` or ``rlsjob``."""
    usage = "usage: %s [-h hold_list] job_identifier...\n       %s --version\n" % (cmd, cmd)
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, ids = strict(argv, "h:", cmd, permute=True)
    except OptionError as err:
        return jobctl.usage(usage, messages=[err.message])
    types = "u"
    for _, value in opts:
        value = value.lstrip()
        if not _valid(value):
            sys.stderr.write("%s: illegal -h value\n" % cmd)
            return jobctl.usage(usage)
        types = value
    if not ids:
        return jobctl.usage(usage)
    return jobctl.each_job(cmd, ids, lambda jobid: common.request(op, id=jobid, types=types))
