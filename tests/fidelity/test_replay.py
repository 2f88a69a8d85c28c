"""Replays the golden OpenPBS 23.06.06 transcripts against fake_pbs, one test per case."""
from typing import Callable, List

import pytest

from .conftest import OUTCOME_PROPERTY, OUTCOMES, selected_sets
from .harness.cases import Case, covered
from .harness.plan import plan_cases
from .harness.replay import Replayer
from .known_differences import KNOWN_DIFFERENCES, OPEN_GAPS, TIMING_SNAPSHOTS


def _params(cases: List[Case]) -> List["pytest.param"]:  # type: ignore[valid-type]
    params = []
    for case in cases:
        # one worker replays the whole chain, in order (--dist loadfile or loadgroup)
        marks = [pytest.mark.fidelity, pytest.mark.xdist_group("fidelity-replay")]
        if case.name in KNOWN_DIFFERENCES:
            marks.append(pytest.mark.xfail(reason=KNOWN_DIFFERENCES[case.name], strict=True))
        elif case.name in OPEN_GAPS:
            marks.append(pytest.mark.xfail(reason=OPEN_GAPS[case.name], strict=False))
        params.append(pytest.param(case.set_name, case.name, id=case.name, marks=marks))
    return params


CASES = [c for set_name in ("release", "extra", "resv") for c in plan_cases(set_name)
         if covered(c)]


@pytest.mark.parametrize(("set_name", "name"), _params(CASES))
def test_golden_case(set_name: str, name: str, request: pytest.FixtureRequest,
                     fidelity_replayer: Callable[[str], Replayer]) -> None:
    """The fake reproduces the transcript named by the test id (its command, user and cwd),
    byte for byte after the normalization of docs/fidelity.md: stdout, stderr and exit code,
    or the lines of a daemon log excerpt."""
    if set_name not in selected_sets(request.config):
        pytest.skip("fidelity set %s not selected (--fake-pbs-fidelity=%s or "
                    "FAKE_PBS_FIDELITY=%s replays it)" % (set_name, set_name, set_name))
    outcome = fidelity_replayer(set_name).outcome(name)
    OUTCOMES.append(outcome)
    # under xdist the controller prints the table from the reports (conftest.py)
    request.node.user_properties.append((OUTCOME_PROPERTY, (set_name, name, outcome.status)))
    if name in TIMING_SNAPSHOTS:
        pytest.skip(TIMING_SNAPSHOTS[name])
    if outcome.status == "skip":
        pytest.skip(outcome.detail)
    if outcome.status != "match":
        pytest.fail(outcome.explain(), pytrace=False)
