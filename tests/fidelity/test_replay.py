"""Replays the golden OpenPBS 23.06.06 transcripts against fake_pbs, one test per case."""
from typing import Callable, List, Optional, Tuple

import pytest

from .conftest import OUTCOME_PROPERTY, OUTCOMES, selected_sets
from .harness.cases import REPLAYED_SETS, Case, covered
from .harness.chains import chain_plans
from .harness.replay import Replayer
from .known_differences import KNOWN_DIFFERENCES, OPEN_GAPS, TIMING_SNAPSHOTS


def _params(cases: List[Tuple[str, Case]]) -> List["pytest.param"]:  # type: ignore[valid-type]
    params = []
    for chain_name, case in cases:
        # one worker replays a chain (harness/chains.py), in order: tests/conftest.py's
        # scheduler keeps an xdist_group on one worker, and gives each chain its own
        marks = [pytest.mark.fidelity, pytest.mark.xdist_group("fidelity-" + chain_name)]
        if case.name in KNOWN_DIFFERENCES:
            marks.append(pytest.mark.xfail(reason=KNOWN_DIFFERENCES[case.name], strict=True))
        elif case.name in OPEN_GAPS:
            marks.append(pytest.mark.xfail(reason=OPEN_GAPS[case.name], strict=False))
        params.append(pytest.param(case.set_name, chain_name, case.name, id=case.name,
                                   marks=marks))
    return params


CASES = [(chain.name, c) for set_name in REPLAYED_SETS
         for chain in chain_plans(set_name) for c in chain.cases() if covered(c)]


@pytest.mark.parametrize(("set_name", "chain", "name"), _params(CASES))
def test_golden_case(set_name: str, chain: str, name: str, request: pytest.FixtureRequest,
                     fidelity_replayer: Callable[[str, Optional[str]], Replayer]) -> None:
    """The fake reproduces the transcript named by the test id (its command, user and cwd),
    byte for byte after the normalization of docs/fidelity.md: stdout, stderr and exit code,
    or the lines of a daemon log excerpt."""
    if set_name not in selected_sets(request.config):
        pytest.skip("fidelity set %s not selected (--fake-pbs-fidelity=%s or "
                    "FAKE_PBS_FIDELITY=%s replays it)" % (set_name, set_name, set_name))
    outcome = fidelity_replayer(set_name, chain).outcome(name)
    OUTCOMES.append(outcome)
    # under xdist the controller prints the table from the reports (conftest.py)
    request.node.user_properties.append((OUTCOME_PROPERTY, (set_name, name, outcome.status)))
    if name in TIMING_SNAPSHOTS:
        pytest.skip(TIMING_SNAPSHOTS[name])
    if outcome.status == "skip":
        pytest.skip(outcome.detail)
    if outcome.status != "match":
        pytest.fail(outcome.explain(), pytrace=False)
