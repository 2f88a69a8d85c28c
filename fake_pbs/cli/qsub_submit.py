"""qsub's request, and what qsub says when the server dies after storing the job, before replying.

PBS's qsub sends Queue Job (the reply carries the new id), the script, then Commit, at which the
server saves the job and replies (req_quejob.c).  When the Commit's reply is lost (the server
died), ``pbs_submit`` still returns the id it had from the Queue Job reply, so qsub prints the
job id and exits 0: the user is not told the job was refused (pbsD_submit.c, qsub.c do_submit).
When the connection breaks before any reply, qsub prints the DIS error text, ``qsub: End of
File``, and exits with PBSE_PROTOCOL (15031) % 256 = 183.

The fake sends one request that stores the job before replying, so a broken reply alone does not
tell qsub whether its job was stored: each submission carries a one-off token, and after a lost
reply qsub asks the server, once it answers again (at most ``LOST_REPLY_WAIT`` seconds), for the
job stored under that token.  Found: its id on stdout, exit 0 (PBS's commit-reply case); not
stored: ``qsub: End of File``, 183 (PBS's case of a connection lost before the job was queued).
docs/reliability.md, "qsub and a lost reply".
"""
from __future__ import annotations

import posix
import time

from fake_pbs import paths, protocol
from fake_pbs.cli import common
from fake_pbs.model.errors import PBSE_PROTOCOL, PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Optional

LOST_REPLY_WAIT = 30.0  # seconds to wait for a crashed server to answer again
_RETRY = 0.25
EOF_TEXT = "End of File"  # dis_emsg[DIS_EOF]: the reply's read met the closed connection


def submit(request: Dict[str, Any]) -> str:
    """Send the ``queuejob`` request; the new job's id, or :class:`PbsError`."""
    token = "%x.%x" % (posix.getpid(), time.time_ns())
    try:
        reply = common.request("queuejob", token=token, **request)
    except (protocol.ReplyLost, BrokenPipeError, ConnectionResetError):
        # Sent, and the server went away before its reply: was the job stored?
        common.drop_channel()
        jobid = stored_under(token, LOST_REPLY_WAIT)
        if jobid is None:
            raise PbsError(PBSE_PROTOCOL, EOF_TEXT) from None
        return jobid
    return str(reply["jobid"])


def stored_under(token: str, wait: float) -> Optional[str]:
    """The id of the job the server stored under ``token``; None when it has none, or did
    not answer within ``wait`` seconds."""
    sock = paths.server_socket_path(paths.cluster_home_path())
    deadline = time.monotonic() + wait
    while True:
        try:
            reply = protocol.call_once(sock, "submitted", 10.0, token=token)
            return str(reply["jobid"])
        except PbsError:
            return None  # Unknown Job Id: nothing was stored under the token
        except (OSError, ValueError):
            pass  # not answering yet: the server is restarting
        if time.monotonic() >= deadline:
            return None
        time.sleep(_RETRY)
