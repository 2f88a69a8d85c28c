"""What pbsdsh and pbs_tmrsh share: the task manager calls (PBS's tm_spawn and tm_obit,
src/lib/Libpbs/tm.c) made as requests to the server (fake_pbs/server/handlers/tm.py), the
job's TM nodes and host matching (src/cmds/pbs_tmrsh.c host_match).

These commands are not run through the command runner: they live as long as their task.
"""
from __future__ import annotations

import socket
import time

from fake_pbs.cli import common
from fake_pbs.model.errors import PbsError
from fake_pbs.model.tmcodes import TM_ENOTCONNECTED, TM_ENOTFOUND, TM_ESYSTEM, ecname

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Tuple

OBIT_WAIT = 0.5  # seconds per obit request while several tasks are watched


class TmError(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code

    @property
    def name(self) -> str:
        """get_ecname's words for the code (fake_pbs/model/tmcodes.py)."""
        return ecname(self.code)


def node_lines(nodefile: str) -> List[str]:
    with open(nodefile, "r", encoding="utf-8", errors="replace") as handle:
        return [line.rstrip("\n") for line in handle]


def host_match(line: str, host: str) -> bool:
    """pbs_tmrsh's host_match: the same name, the same IPv4 address, or ``line`` plus this
    machine's domain."""
    if line == host:
        return True
    try:
        wanted = socket.inet_aton(host) if host.count(".") == 3 else None
    except OSError:
        wanted = None
    if wanted is not None:
        try:
            addresses = socket.gethostbyname_ex(line)[2]
        except OSError:
            return False
        return any(socket.inet_aton(a) == wanted for a in addresses)
    name = socket.gethostname()
    if "." not in name:
        return False
    return "%s.%s" % (line, name.split(".", 1)[1]) == host


def spawn(jobid: str, node: int, argv: List[str]) -> Tuple[str, int]:
    """Start ``argv`` on TM node ``node``: (host, task id)."""
    try:
        reply = common.request("tm_spawn", id=jobid, node=node, argv=argv)
    except PbsError as err:
        raise TmError(TM_ENOTFOUND if err.code == 15001 else TM_ESYSTEM) from None
    except OSError:
        raise TmError(TM_ENOTCONNECTED) from None
    return str(reply["host"]), int(reply["task"])


def obit(jobid: str, host: str, task: int, timeout: float) -> Optional[int]:
    """The task's exit status, or None if it still runs after ``timeout`` seconds."""
    try:
        reply = common.request("tm_obit", id=jobid, host=host, task=task, timeout=timeout)
    except PbsError:
        raise TmError(TM_ESYSTEM) from None
    except OSError:
        raise TmError(TM_ENOTCONNECTED) from None
    status = reply.get("status")
    return None if status is None else int(status)


def kill(jobid: str, host: str, task: int, signum: int) -> None:
    """tm_kill: ``signum`` to the task (errors ignored, as pbsdsh ignores them)."""
    common.drop_channel()  # a signal may have cut the previous request short
    try:
        common.request("tm_kill", id=jobid, host=host, task=task, signal=signum)
    except (PbsError, OSError):
        pass


def wait_any(jobid: str, pending: Dict[int, Tuple[str, int]]) -> Tuple[int, int]:
    """Wait until one of ``pending`` (index -> (host, task)) ends: (index, exit status)."""
    while True:
        alone = len(pending) == 1
        for index, (host, task) in sorted(pending.items()):
            status = obit(jobid, host, task, 10.0 if alone else 0.0)
            if status is not None:
                return index, status
        if not alone:
            time.sleep(OBIT_WAIT)


def attach(jobid: Optional[str], host: Optional[str], pid: int) -> int:
    """tm_attach: make the session of ``pid`` a task of the job on ``host``; 0 or a TM code."""
    try:
        reply = common.request("tm_attach", id=jobid, host=host, pid=pid)
    except PbsError:
        return TM_ESYSTEM
    except OSError:
        return TM_ENOTCONNECTED
    return int(reply.get("tm_error", 0))
