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


def test_repeated_waitstate_polls_count_once() -> None:
    """g11: replay.sh's waitstate loop polls once a second until the victim is F; more polls
    before the obit (PBS's orphaned-task branch, master g12) score the same."""
    lines = _g11_lines()
    at = _index(lines, "Obit received")
    longer = lines[:at] + _poll("root", 20) * 6 + lines[at:]
    assert _free(longer) == _free(lines)


def test_a_poll_in_a_new_place_still_differs() -> None:
    """g11: the order of polls against the job's lines stays compared (a poll between the
    Exit_status line and the next run is not in the transcript)."""
    lines = _g11_lines()
    at = _index(lines, "Exit_status=271")
    moved = lines[:at + 1] + _poll("root") + lines[at + 1:]
    assert _free(moved) != _free(lines)


def test_hook_file_replies_dropped_but_pending_warning_kept() -> None:
    """g11: 'successfully sent hook file' is the mom's reply time; the warning PBS logs when a
    job runs with a copy outstanding is behaviour and stays."""
    lines = _g11_lines()
    reply = lines[_index(lines, "successfully sent hook file")]
    assert "end_log.HK" in reply
    without_reply = [line for line in lines if line != reply]
    assert _free(without_reply) == _free(lines)
    without_warning = [line for line in lines if "pending copy hook" not in line]
    assert _free(without_warning) != _free(lines)


def test_other_users_and_scheduler_requests_not_merged() -> None:
    """Polls by different users stay apart, and scheduler request runs (a scheduling cycle
    each, g11) are never collapsed."""
    sched = [_STAMP + "Type %d request received from Scheduler@vm, sock=16" % n
             for n in (21, 71, 58, 20, 51, 51)]
    assert _free(_poll("root") + _poll("pbsuser")) != _free(_poll("root"))
    assert _free(sched + sched) != _free(sched)
