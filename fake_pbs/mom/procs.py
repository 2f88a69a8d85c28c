"""Process identity and signalling by session, read from /proc (Linux).

A pid alone may be reused after a crash; (pid, start ticks) names one process for its whole life,
which is how a restarted mom knows a recorded shepherd or job shell is still the same process.
"""
from __future__ import annotations

import os
import signal
import time

TYPE_CHECKING = False  # typing stays out of the per-job shepherd's start-up
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Set, Tuple


def _stat_fields(pid: int) -> Optional[List[bytes]]:
    """The fields of /proc/<pid>/stat after the command name, or None when it is gone.

    Plain ``os`` calls (``open()`` adds an fstat, an ioctl and two lseeks to each read): the
    mom and every shepherd read these a few times per job.  The command name (field 2) may
    hold spaces and parentheses: the split is after its last ')'."""
    try:
        fd = os.open("/proc/%d/stat" % pid, os.O_RDONLY)
    except OSError:
        return None
    try:
        stat = os.read(fd, 4096)  # one read: the line is well under 1 KB
    except OSError:
        return None
    finally:
        os.close(fd)
    return stat[stat.rfind(b")") + 2:].split()


def start_ticks(pid: int) -> Optional[int]:
    """The process's start time in clock ticks since boot (/proc/<pid>/stat field 22)."""
    fields = _stat_fields(pid)
    try:
        return None if fields is None else int(fields[19])
    except (IndexError, ValueError):
        return None


def same_process_alive(pid: int, ticks: Optional[int]) -> bool:
    """True when ``pid`` still runs and is the process that started at ``ticks`` (not a zombie)."""
    if pid <= 0:
        return False
    fields = _stat_fields(pid)  # one read for both the identity and the state
    try:
        current = None if fields is None else int(fields[19])
    except (IndexError, ValueError):
        current = None
    if fields is None or current is None or (ticks is not None and current != ticks):
        return False
    return fields[0].decode() not in ("Z", "X")


def _session_stats(sid: int) -> List[Tuple[int, List[bytes]]]:
    """(pid, stat fields) of every live process whose session id is ``sid``: one pass over
    /proc, each stat read once (the mom's poll samples a job's session every second)."""
    members: List[Tuple[int, List[bytes]]] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fields = _stat_fields(int(name))
        try:
            if fields is not None and int(fields[3]) == sid and fields[0] not in (b"Z", b"X"):
                members.append((int(name), fields))
        except (IndexError, ValueError):
            continue
    return members


def session_members(sid: int) -> List[int]:
    """Every live process whose session id is ``sid``."""
    return [pid for pid, _ in _session_stats(sid)]


def session_usage(sid: int) -> "Dict[str, int]":
    """What a resource poll samples of session ``sid``'s live processes (mom_mach.c
    mom_set_use): cpu seconds (user + system, with the waited-for children's: cput_sum),
    resident and virtual memory in kB."""
    tick = float(os.sysconf("SC_CLK_TCK"))
    page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
    ticks = rss = vsize = 0
    for _, fields in _session_stats(sid):
        try:
            ticks += int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
            vsize += int(fields[20])
            rss += int(fields[21])
        except (IndexError, ValueError):
            continue
    return {"cput": int(ticks / tick), "rss_kb": rss * page_kb, "vmem_kb": vsize // 1024}


# Signals that must reach the whole session: a process forked between the scan of the session
# and its parent's signal is in no scan, so these look again until no member is new (a stopped
# or killed process forks no more).  Others go out once, as PBS sends them.
_WHOLE_SESSION = frozenset((signal.SIGSTOP, signal.SIGKILL))
_MAX_SCANS = 5


def signal_session(sid: int, signum: int) -> int:
    """Send ``signum`` to every process of session ``sid``; return how many were signalled."""
    sent: Set[int] = set()
    count = 0
    for _ in range(_MAX_SCANS if signum in _WHOLE_SESSION else 1):
        new = [pid for pid in session_members(sid) if pid not in sent]
        if not new:
            break
        sent.update(new)
        count += _kill_each(new, signum)
    return count


def _kill_each(pids: List[int], signum: int) -> int:
    """``signum`` to each of ``pids``; how many were signalled (gone ones are skipped)."""
    count = 0
    for pid in pids:
        try:
            os.kill(pid, signum)
            count += 1
        except OSError:
            pass
    return count


def _parent(pid: int) -> int:
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
        return int(stat[stat.rfind(b")") + 2:].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def signal_session_bottom_up(sid: int, signum: int, gap: float) -> int:
    """``signum`` to session ``sid`` as PBS's kill_task sends it (mom_mach.c kill_ptree, post
    order): the deepest processes first, each level up ``gap`` seconds after the one below,
    the session leader (the job shell) last.  PBS sends them back to back; the gaps make the
    race it leaves (a parent sees its child die before its own signal comes) happen."""
    members = [pid for pid in session_members(sid) if pid != sid]
    parents = {pid: _parent(pid) for pid in members}

    def depth(pid: int) -> int:
        level = 0
        while pid in parents and level < len(parents):  # bounded: a chain has no loop
            pid, level = parents[pid], level + 1
        return level

    levels: Dict[int, List[int]] = {}
    for pid in members:
        levels.setdefault(depth(pid), []).append(pid)
    count = 0
    for level in sorted(levels, reverse=True):
        count += _kill_each(levels[level], signum)
        time.sleep(gap)
    return count + _kill_each([sid], signum)
