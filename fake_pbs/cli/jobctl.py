"""What qdel, qhold, qrls, qsig, qrerun, qalter, qrun and qmove share: one request per job id,
PBS's per-id error lines, ``--version`` and usage exits.

Error lines follow OpenPBS's ``prt_job_err``: ``<cmd>: <server text> <jobid>``; for a finished
job the text stands alone (``qrls: Job has finished``, extra j06e).  Ids are qualified with the
server name as PBS's ``get_server`` does (``qhold 9999`` reports ``9999.vm``); qdel prints them
as typed (transcript c01b).
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common
from fake_pbs.model.errors import PBSE_HISTJOBID, PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, List, Optional

VERSION = "pbs_version = 23.06.06"
_server_name: Optional[str] = None


def wants_version(argv: List[str]) -> bool:
    """PBS's PRINT_VERSION_AND_EXIT: exactly one argument, ``--version``."""
    if len(argv) == 1 and argv[0].lower() == "--version":
        print(VERSION)
        return True
    return False


def usage(text: str, code: int = 2, messages: Optional[List[str]] = None) -> int:
    """Print ``messages`` then the usage ``text`` on stderr; return the exit code."""
    sys.stderr.write("".join(m + "\n" for m in messages or []) + text)
    return code


def server_name() -> str:
    global _server_name
    if _server_name is None:
        _server_name = str(common.request("ping").get("server_name", ""))
    return _server_name


def forget_server_name() -> None:
    """Forget the cached server name (a runner worker between two commands)."""
    global _server_name
    _server_name = None


def foreign(jobid: str) -> bool:
    """True when ``jobid`` names another server (``12.othersrv``): PBS's get_server cannot
    resolve it and the command prints ``illegally formed job identifier`` (transcript b18).
    The server's name comes from the cluster's configuration file, as qstat's does, so ids
    without a suffix cost nothing."""
    seq, dot, suffix = jobid.strip(" ").partition(".")
    if not dot:
        return False
    suffix = suffix.split("@", 1)[0].lower()
    server = _configured_name().lower()
    return not (suffix == server or suffix.startswith(server + "."))


def _configured_name() -> str:
    """The server name from cluster.json (no request), else from the server."""
    global _server_name
    if _server_name is None:
        from fake_pbs import paths
        from fake_pbs.jsonwire import loads

        try:
            with open(paths.config_file_path(paths.cluster_home_path()), "r") as handle:
                name = loads(handle.read()).get("server_name")
            if isinstance(name, str) and name:
                _server_name = name
        except (OSError, ValueError):
            pass
    return server_name()


def illegal_id(cmd: str, jobid: str) -> None:
    sys.stderr.write("%s: illegally formed job identifier: %s\n" % (cmd, jobid))


def qualify(jobid: str) -> str:
    """``12`` -> ``12.<server>``; ``12[3]`` -> ``12[3].<server>``; others unchanged."""
    if "." in jobid:
        return jobid
    return "%s.%s" % (jobid, server_name())


def error_line(cmd: str, err: PbsError, jobid: str) -> str:
    if err.code == PBSE_HISTJOBID and cmd != "qdel":
        return "%s: %s" % (cmd, err.text)
    return "%s: %s %s" % (cmd, err.text, jobid)


def each_job(cmd: str, ids: List[str], send: Callable[[str], Any], qualify_ids: bool = True,
             failed_code: Optional[int] = None) -> int:
    """Call ``send(jobid)`` for every id; print PBS's line for each failure.

    Returns the exit status: the last failure's ``code % 256`` (or ``failed_code``), else 0.
    """
    status = 0
    for raw in ids:
        if foreign(raw):
            illegal_id(cmd, raw)
            status = 1
            continue
        jobid = qualify(raw) if qualify_ids else raw
        try:
            send(jobid)
        except PbsError as err:
            sys.stderr.write(error_line(cmd, err, jobid) + "\n")
            status = err.exit_code if failed_code is None else failed_code
    return status
