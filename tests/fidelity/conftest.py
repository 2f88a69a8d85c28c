"""Fixtures of the fidelity replay: one fake cluster per transcript set, stopped at session end.

Option ``--fake-pbs-fidelity=release|extra|resv|all|none`` (or ``FAKE_PBS_FIDELITY``): which
sets replay.  ``release`` (the default) replays the release set's prefixes a b c d e f g h v;
``extra`` only the extra set (483 cases with its log excerpts, opt-in; .ci/run's EXTRA_FIDELITY
switch); ``resv`` the resv set's group D (pbsdsh, pbs_tmrsh, pbs_attach: 29 cases, ~45 s,
opt-in; .ci/run replays it with the extra set); ``all`` every set; ``none`` skips the replay.
The option is registered here, so it is accepted on the command line when pytest is pointed at
tests/fidelity; otherwise use the environment variable.
"""
import os
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from .harness.cases import REPLAYED_SETS, Case
from .harness.chains import chain_plans
from .harness.replay import Outcome, Replayer
from .harness.report import format_table, tally, verdict
from .known_differences import KNOWN_DIFFERENCES, OPEN_GAPS, TIMING_SNAPSHOTS

OUTCOMES: List[Outcome] = []
# The report property carrying (set, case, status) from an xdist worker to its controller.
OUTCOME_PROPERTY = "fidelity_outcome"
# Each choice and the sets it replays.
SET_CHOICES = REPLAYED_SETS + ("all", "none")
_SELECTED: Dict[str, Tuple[str, ...]] = {
    **{name: (name,) for name in REPLAYED_SETS}, "all": REPLAYED_SETS, "none": ()}


def pytest_addoption(parser: pytest.Parser) -> None:
    try:
        parser.addoption("--fake-pbs-fidelity", default=None, choices=SET_CHOICES,
                         help="golden transcript sets to replay (default: release)")
    except ValueError:
        pass  # already registered by another conftest or plugin


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fidelity: replays a golden OpenPBS transcript case")


def fidelity_choice(config: pytest.Config) -> str:
    value = None
    try:
        value = config.getoption("--fake-pbs-fidelity")
    except ValueError:
        pass
    return str(value or os.environ.get("FAKE_PBS_FIDELITY") or "release")


def selected_sets(config: pytest.Config) -> Tuple[str, ...]:
    """The transcript sets this run replays (an unknown FAKE_PBS_FIDELITY: the release set)."""
    return _SELECTED.get(fidelity_choice(config), ("release",))


@pytest.fixture(scope="session")
def fidelity_replayer(
        request: pytest.FixtureRequest) -> Iterator[Callable[[str, Optional[str]], Replayer]]:
    """Replayer per chain of a set (harness/chains.py; ``None``: the set's first chain),
    created on first use; every cluster is stopped at the end."""
    replayers: Dict[str, Replayer] = {}

    def get(set_name: str, chain_name: Optional[str] = None) -> Replayer:
        name = chain_name or set_name
        if name not in replayers:
            chain = next(c for c in chain_plans(set_name) if c.name == name)
            replayers[name] = Replayer(
                set_name, dict(KNOWN_DIFFERENCES, **TIMING_SNAPSHOTS, **OPEN_GAPS), chain=chain)
        return replayers[name]

    try:
        yield get
    finally:
        for replayer in replayers.values():
            replayer.close()


def _reported_outcomes(terminalreporter: "pytest.TerminalReporter") -> List[Outcome]:
    """The outcomes the workers' reports carry (a run spread over xdist workers): what the
    table needs of each, its set, name and status."""
    found: List[Outcome] = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for key, value in getattr(report, "user_properties", ()):
                if key == OUTCOME_PROPERTY:
                    set_name, name, status = value
                    found.append(Outcome(Case(name, set_name, "", "", "", 0, "", "", ""),
                                         status))
    return found


def pytest_terminal_summary(terminalreporter: "pytest.TerminalReporter") -> None:
    print_table(terminalreporter)


def print_table(terminalreporter: "pytest.TerminalReporter") -> None:
    """The per-prefix table of this process's replay, or of the workers' (an xdist controller
    loads no conftest below tests/: tests/conftest.py calls this there)."""
    outcomes = OUTCOMES or _reported_outcomes(terminalreporter)
    if not outcomes:
        return
    terminalreporter.section("fidelity: matched/total per prefix")
    known = dict(KNOWN_DIFFERENCES, **TIMING_SNAPSHOTS)
    table = tally(outcomes, known, OPEN_GAPS)
    for line in format_table(table) + verdict(table)[1]:
        terminalreporter.write_line(line)
