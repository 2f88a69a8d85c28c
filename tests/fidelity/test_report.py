"""The replay's verdict, figures and time profile (harness/report.py), on made-up outcomes.

No cluster: these pin the pass/fail rule that tools/fidelity_report.py and .ci/run's
extra_fidelity switch apply (every replayed case matches or is listed; with a goal, a share).
"""
from typing import Dict, List

from .harness.cases import Case, LogSpec
from .harness.replay import Outcome
from .harness.report import tally, time_profile, verdict


def _outcome(name: str, status: str, command: str = "qstat", seconds: float = 0.0,
             log: bool = False) -> Outcome:
    case = Case(name, "extra", "pbsuser", "/home/pbsuser", command, 0, "", "", "t",
                LogSpec("server") if log else None)
    return Outcome(case, status, attempts=1, seconds=seconds)


def _set(differ: int = 0, known: int = 0, gap: int = 0, error: int = 0,
         match: int = 10) -> List[Outcome]:
    outcomes = [_outcome("i%02d_m" % n, "match") for n in range(match)]
    outcomes += [_outcome("j%02d_d" % n, "differ") for n in range(differ)]
    outcomes += [_outcome("k%02d_k" % n, "differ") for n in range(known)]
    outcomes += [_outcome("m%02d_g" % n, "differ") for n in range(gap)]
    outcomes += [_outcome("n%02d_e" % n, "error") for n in range(error)]
    return outcomes


def _known(count: int) -> Dict[str, str]:
    return {"k%02d_k" % n: "intended" for n in range(count)}


def _gaps(count: int) -> Dict[str, str]:
    return {"m%02d_g" % n: "open" for n in range(count)}


def test_every_case_matching_or_listed_passes() -> None:
    table = tally(_set(known=1, gap=1), _known(1), _gaps(1))
    passed, lines = verdict(table)
    assert passed
    assert lines == ["extra: PASS: every replayed case matches or is listed (1 intended, "
                     "1 open gap(s))"]


def test_an_unlisted_difference_or_error_fails() -> None:
    passed, lines = verdict(tally(_set(differ=2, error=1), {}, {}))
    assert not passed
    assert lines == ["extra: FAIL: 2 case(s) differ and are not listed; 1 case(s) could not "
                     "be replayed"]


def test_goal_counts_matches_and_intended_differences_not_gaps() -> None:
    """10 match + 1 intended of 12 replayed is 91.7%: under a 95% goal even when the 12th
    case is a listed open gap; with it matching (11 + 1 of 12) the goal is met."""
    passed, lines = verdict(tally(_set(known=1, gap=1), _known(1), _gaps(1)), goal=95)
    assert not passed
    assert lines == ["extra: FAIL: 91.7% match or differ as intended, below the goal of 95%"]
    passed, _ = verdict(tally(_set(known=1, match=19), _known(1), {}), goal=95)
    assert passed


def test_goal_only_lets_unlisted_differences_pass_above_the_goal() -> None:
    """Issue 13's rule for the extra set: at least 95% match or differ as intended; the
    unlisted differing cases are counted in the line but do not fail the run; errors do."""
    passed, lines = verdict(tally(_set(differ=1, match=19), {}, {}), goal=95, goal_only=True)
    assert passed
    assert lines == ["extra: PASS: 95.0% match or differ as intended (1 unlisted differ, "
                     "0 intended, 0 open gap(s), goal 95% met)"]
    passed, lines = verdict(tally(_set(differ=2, match=18), {}, {}), goal=95, goal_only=True)
    assert not passed
    assert lines == ["extra: FAIL: 90.0% match or differ as intended, below the goal of 95%"]
    passed, _ = verdict(tally(_set(error=1, match=30), {}, {}), goal=95, goal_only=True)
    assert not passed


def test_time_profile_sums_by_kind_and_lists_the_slowest() -> None:
    outcomes = [_outcome("i01_read", "differ", "qstat -f 1.vm", 4.5),
                _outcome("i02_run", "match", "qsub hello.sh", 0.5),
                _outcome("i03_log", "differ", "<log>", 15.0, log=True)]
    lines = time_profile(outcomes, slowest=2)
    assert lines[1] == "time: 20 s in 3 cases (each with the steps before it)"
    assert lines[2:5] == ["  log/differ        1 cases    15.0 s",
                          "  read/differ       1 cases     4.5 s",
                          "  once/match        1 cases     0.5 s"]
    assert lines[5:] == ["slowest:", "    15.0 s   1 attempt(s) differ  i03_log",
                         "     4.5 s   1 attempt(s) differ  i01_read"]
