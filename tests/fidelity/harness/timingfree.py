"""Log-excerpt scoring without the lines that only PBS's timing decides (``LogSpec.timing_free``).

g11's server excerpt runs from a mark to a fixed moment after the preemption victim's end, so two
things in it are timing, not behaviour (tests/fidelity/FINDINGS.md, g11):

* how many times the capture script's ``waitstate`` loop (and the replay's retried read-only
  cases) polled in between: one group of request lines (``Type 0``, ``95``, ``21``, ``19`` from
  one user) per poll.  The count is the seconds the victim took to end, which in PBS is a race
  (mom_start.c scan_for_terminated: the shell is reaped either with its session empty, and the
  obit leaves at once, or with the SIGTERM'd child still listed, and the task waits for a
  resource poll: transcript g11 caught the first branch, master g12 and release b05b the second);
* when the mom's replies to the server's hook-file copies arrive (``successfully sent hook file
  ...``): three copies sent 36 ms apart were answered at unequal delays in g11.

Both sides are treated alike: consecutive identical request groups collapse to one, so their
order relative to every other line is still compared, and the hook-file reply lines are
dropped; the ``pending copy hook`` warning they leave behind stays compared.
"""
import re
from typing import List, Optional

_REQUEST = re.compile(r";Req;;Type (\d+) request received from ([^,]+),")
_HOOK_REPLY = re.compile(r";Req;[^;]*;successfully (sent|deleted) hook file ")


def _groups(lines: List[str]) -> List[List[str]]:
    """Lines cut into polls (a ``Type 0`` request and the requests from the same user that
    follow it, up to the ``Type 19`` job status) and single other lines."""
    groups: List[List[str]] = []
    open_poll: List[str] = []
    poll_user: Optional[str] = None
    for line in lines:
        found = _REQUEST.search(line)
        if found and found.group(1) == "0":
            open_poll, poll_user = [line], found.group(2)
            groups.append(open_poll)
        elif found and open_poll and found.group(2) == poll_user:
            open_poll.append(line)
            if found.group(1) == "19":
                open_poll = []
        else:
            open_poll = []
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
    lines = [ln for ln in text.splitlines() if not _HOOK_REPLY.search(ln)]
    kept: List[List[str]] = []
    for group in _groups(lines):
        if kept and _is_poll(group) and _key(group) == _key(kept[-1]):
            continue
        kept.append(group)
    return "".join(line + "\n" for group in kept for line in group)
