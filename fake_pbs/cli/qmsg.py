"""qmsg: write a message into running jobs' output files (OpenPBS 23.06 ``qmsg.c``).

``-E`` (the default) writes to the job's stderr file, ``-O`` to its stdout file, both when both
are given; the message is cut to 256 characters and the mom ends it with a newline
(requests.c ``message_job``).  One ``msgjob`` request per id; a failure prints
``qmsg: <text> <id>`` and the exit status is the last failure's code modulo 256.
"""
from __future__ import annotations

from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List

USAGE = "usage: qmsg [-O] [-E] msg_string job_identifier...\n       qmsg --version\n"
MAX_MSG_STRING_LEN = 256  # qmsg.c: the message is copied into a buffer this long


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, rest = strict(argv, "EO", "qmsg", permute=True)
    except OptionError as err:
        return jobctl.usage(USAGE, messages=[err.message])
    if len(rest) < 2:
        return jobctl.usage(USAGE)
    letters = {letter for letter, _ in opts}
    to_stdout = "O" in letters
    to_stderr = "E" in letters or not to_stdout  # MSG_ERR when neither is given
    text = rest[0][:MAX_MSG_STRING_LEN]
    return jobctl.each_job("qmsg", rest[1:], lambda jobid: common.request(
        "msgjob", id=jobid, text=text, stdout=to_stdout, stderr=to_stderr))


def main() -> None:
    common.run_main("qmsg", body)
