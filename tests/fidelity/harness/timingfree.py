"""Log-excerpt scoring without the lines that only PBS's timing decides (``LogSpec.timing_free``).

g11's server excerpt runs from a mark to a fixed moment after the preemption victim's end, and
three things in it are timing, not behaviour (tests/fidelity/FINDINGS.md, g11):

* the client polls: replay.sh's once-a-second ``waitstate`` loops and the qstat cases (one group
  of request lines per command: ``Type 0``, ``95``, ``21``, ``19`` from one user).  How many fall
  between two job lines is the seconds the job took, which in PBS is a race (mom_start.c
  scan_for_terminated: the shell is reaped either with its session empty, and the obit leaves
  at once, or with the SIGTERM'd child still listed, and the task waits for a resource poll:
  transcript g11 caught the first branch, master g12 and release b05b the second); where one
  falls against a job's state change is a race of the client with the daemons on any machine;
* when the mom answers the server's hook-file copies (``successfully sent hook file ...``):
  three copies sent 36 ms apart were answered at unequal delays in g11;
* hence whether a copy is still unanswered when a job runs (``... has a pending copy hook or
  delete hook request``; tests/server/test_hook_sync.py pins when the fake logs it).

Both sides are treated alike: those lines are left out, and the distinct client polls (each
user's request types) are listed once at the end, so what a qstat asks of the server is still
compared.  Everything else -- the qsub and scheduler requests, the job and node lines, their
order -- stays exact.
"""
import re
from typing import Dict, List

_REQUEST = re.compile(r";Req;;Type (\d+) request received from ([^,]+),")
_HOOK_REPLY = re.compile(r";Req;[^;]*;successfully (sent|deleted) hook file ")
_PENDING_HOOK = re.compile(r";Node;[^;]*;vnode .* has a pending copy hook or delete hook request$")


def _groups(lines: List[str]) -> List[List[str]]:
    """Lines cut into polls (a ``Type 0`` request and the requests from the same user that
    follow it, up to the ``Type 19`` job status, even with daemon lines logged in between) and
    single other lines."""
    groups: List[List[str]] = []
    open_polls: Dict[str, List[str]] = {}
    for line in lines:
        found = _REQUEST.search(line)
        user = found.group(2) if found else ""
        if found and found.group(1) == "0":
            open_polls[user] = [line]
            groups.append(open_polls[user])
        elif found and user in open_polls:
            open_polls[user].append(line)
            if found.group(1) == "19":
                del open_polls[user]
        else:
            groups.append([line])
    return groups


def _is_poll(group: List[str]) -> bool:
    found = _REQUEST.search(group[0])
    return found is not None and found.group(1) == "0"


def _key(group: List[str]) -> List[str]:
    """What identifies a group: its lines without the time stamp and socket number."""
    return [re.sub(r"^[^;]*;|sock=\S+", "", line) for line in group]


def timing_free(text: str) -> str:
    """``text`` (a normalized log excerpt) without the lines that only timing decides."""
    lines = [ln for ln in text.splitlines()
             if not _HOOK_REPLY.search(ln) and not _PENDING_HOOK.search(ln)]
    kept: List[str] = []
    polls: List[str] = []
    for group in _groups(lines):
        if _is_poll(group):
            key = " ".join(_key(group))
            if key not in polls:
                polls.append(key)
        else:
            kept.extend(group)
    kept.extend("<client poll: %s>" % key for key in sorted(polls))
    return "".join(line + "\n" for line in kept)
