"""The timing-free scoring of log excerpts (harness/timingfree.py), on transcript g11's lines."""
from typing import List

from .harness.cases import load_set, log_case, LogSpec
from .harness.normalize import mask
from .harness.timingfree import timing_free

_STAMP = "11/21/2026 19:53:37;0100;Server@vm;Req;;"


def _poll(user: str, sock: int = 19) -> List[str]:
    return [_STAMP + "Type %d request received from %s@vm, sock=%d" % (n, user, sock)
            for n in (0, 95, 21, 19)]


def _g11_lines() -> List[str]:
    after = load_set("release")[0]
    case = log_case("release", "g11_server_logs_preempt_D.log", LogSpec("server"), after)
    return case.stdout.splitlines()


def _free(lines: List[str]) -> str:
    return timing_free(mask("".join(line + "\n" for line in lines)))


def _index(lines: List[str], text: str) -> int:
    return next(i for i, line in enumerate(lines) if text in line)


def test_polls_count_and_place_do_not_matter() -> None:
    """g11: replay.sh's waitstate loop polls once a second until the victim is F; more polls
    before the obit (PBS's orphaned-task branch, master g12), or one logged across the obit,
    score the same."""
    lines = _g11_lines()
    at = _index(lines, "Obit received")
    longer = lines[:at] + _poll("root", 20) * 6 + lines[at:]
    assert _free(longer) == _free(lines)
    poll = _poll("root")
    straddling = lines[:at] + poll[:2] + [lines[at]] + poll[2:] + lines[at + 1:]
    assert _free(straddling) == _free(lines)


def test_what_a_poll_asks_is_still_compared() -> None:
    """g11: each user's qstat asks Type 0, 95, 21, 19 (connect, authenticate, server and job
    status); a poll with other request types differs."""
    lines = _g11_lines()
    at = _index(lines, "Obit received")
    odd = [line.replace("Type 21 ", "Type 20 ") for line in _poll("root")]
    assert _free(lines[:at] + odd + lines[at:]) != _free(lines)


def test_job_and_scheduler_lines_stay_exact() -> None:
    """g11: the preemption's own lines -- the scheduler's Type 93 (preempt) request, the delete,
    the obit before the nodes are freed -- are compared in order."""
    lines = _g11_lines()
    free = _free(lines)
    assert "Type 93 request received from Scheduler@vm" in free
    without_obit = [line for line in lines if "Obit received" not in line]
    assert _free(without_obit) != free
    at = _index(lines, "Obit received")
    swapped = lines[:at] + [lines[at + 5], lines[at]] + lines[at + 1:at + 5] + lines[at + 6:]
    assert "set_vnode_state" in lines[at + 5]
    assert _free(swapped) != free


def test_hook_reply_and_pending_lines_dropped() -> None:
    """g11: 'successfully sent hook file' is the mom's reply time, and whether a copy is still
    pending as a job runs follows from it (tests/server/test_hook_sync.py pins the warning)."""
    lines = _g11_lines()
    reply = lines[_index(lines, "successfully sent hook file")]
    assert "end_log.HK" in reply
    timing = [line for line in lines if line != reply and "pending copy hook" not in line]
    assert _free(timing) == _free(lines)


def test_scheduler_requests_never_taken_for_polls() -> None:
    """Scheduler request runs (a scheduling cycle each, g11) are kept however many."""
    sched = [_STAMP + "Type %d request received from Scheduler@vm, sock=16" % n
             for n in (21, 71, 58, 20, 51, 51)]
    assert _free(sched + sched) != _free(sched)
    assert _free(_poll("root") + _poll("pbsuser")) != _free(_poll("root"))
