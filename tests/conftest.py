"""Shared pytest configuration.

``--executors`` works as in psij's own test suite: a comma-separated list of
``executor[:launcher[:url]]`` entries (default ``pbspro``); every test that takes the
``execparams`` fixture runs once per entry.

Markers (registered in pyproject.toml): ``cluster`` marks every test that starts a daemon (a fake
server, a mom, a hook runner's cluster), so that ``pytest -m "not cluster"`` is the fast loop.
A test is marked when it uses one of :data:`CLUSTER_FIXTURES` (directly or through another
fixture); a module that starts daemons by other means carries ``pytestmark = pytest.mark.cluster``.
``root`` marks tests that need root (other users, multi-user mode): they skip without it.

Parallel by default: with pytest-xdist (the ``test`` extra) and no ``-n`` given, the run is spread
over :data:`DEFAULT_WORKERS` workers by :class:`FileOrGroupScheduling`: a whole test file to a
worker (as ``--dist loadfile``: a module's cluster fixtures start once), except the fidelity
replay, whose chains (tests/fidelity/harness/chains.py), each a run of cases whose cluster state
carries from one to the next, go to a worker each, in order, side by side.  The chains are handed
out first, then the longest files (tests/scheduling.py).
Most of a cluster test's time is waiting for PBS's own timing (scheduler cycles, hook alarms, the
replay's pace), not CPU, so more workers than cores pay (docs/testing.md).  Each worker has its own
session cluster.  ``-n 0`` (or ``-p no:xdist``) runs everything in one process.
"""
import os
import re
from typing import Any, List, Optional

import pytest

from . import public_tree

# Before anything imports fake_pbs: a checkout other users cannot enter is replaced, for this run,
# by a public copy (tests/public_tree.py), so that tests acting as them can run its commands.
public_tree.install()

# The fake cluster's fixtures, as users are told to get them: one cluster for the whole run
# (``fake_cluster``), reset for each test that takes ``fake_pbs``.
pytest_plugins = ["fake_pbs.testing"]


class ExecutorTestParams:
    """One ``--executors`` entry: executor name, optional launcher and URL."""

    def __init__(self, spec: str) -> None:
        parts = re.split(':', spec, maxsplit=2)
        self.executor = parts[0]
        self.launcher: Optional[str] = parts[1] if len(parts) > 1 and parts[1] else None
        self.url: Optional[str] = parts[2] if len(parts) == 3 and parts[2] else None

    def __repr__(self) -> str:
        if self.url is not None:
            return '%s:%s:%s' % (self.executor, self.launcher or '', self.url)
        if self.launcher is not None:
            return '%s:%s' % (self.executor, self.launcher)
        return self.executor


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption('--executors', action='store', default='pbspro',
                     help='Comma-separated executor[:launcher[:url]] entries to run the '
                          'execparams tests with (default: pbspro).')
    parser.addoption('--real-pbs', action='store_true', default=False,
                     help="Run the executor's end-to-end tests (tests/executor) against the "
                          'PBS whose qsub/qstat/qdel are on PATH instead of a fake cluster '
                          '(psijpbs/README.md, "Validating on a real PBS").')


# Measured on the 2-core machine (docs/testing.md): with the replay's chains side by side the run
# ends when the workers' shares do; with 6 workers the cores idled a quarter of the run (the first
# minutes are waits at PBS's pace), with 8 a tenth.
DEFAULT_WORKERS = 8


# Set on the controller's config when it chose the distribution (no --dist given).
_OWN_SCHEDULER = "_psijpbs_file_or_group"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Without ``-n``: ``-n DEFAULT_WORKERS``; with workers and no ``--dist``:
    :class:`FileOrGroupScheduling` (``loadfile``, but the replay's chains apart).  An explicit
    ``--dist`` is kept (``loadfile`` replays the replay's chains one after the other on one
    worker; ``load`` would split them: do not use it).  Only where xdist is installed, and never in
    a worker (its controller decided), a collect-only run or under ``--pdb``."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.getoption("collectonly") or config.getoption("usepdb", False):
        return
    if config.getoption("numprocesses", None) is None:
        config.option.numprocesses = DEFAULT_WORKERS
    if config.option.numprocesses and config.getoption("dist", "no") == "no":
        config.option.dist = "loadfile"
        setattr(config, _OWN_SCHEDULER, True)
    if config.option.numprocesses:
        from .rewritecache import warm
        warm(config)  # the workers read the rewritten modules instead of each rewriting them


@pytest.hookimpl(optionalhook=True)  # a hook of xdist: unknown where xdist is not installed
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The default distribution (pytest_cmdline_main): :class:`FileOrGroupScheduling`."""
    if not getattr(config, _OWN_SCHEDULER, False):
        return None
    from .scheduling import FileOrGroupScheduling
    return FileOrGroupScheduling(config, log)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """An xdist controller collects nothing, so tests/fidelity/conftest.py is not loaded in it:
    print the replay's table from the workers' reports here."""
    if terminalreporter.config.pluginmanager.hasplugin("dsession"):
        from .fidelity.conftest import print_table
        print_table(terminalreporter)


def _executor_params(config: pytest.Config) -> List[ExecutorTestParams]:
    raw = str(config.getoption('executors'))
    return [ExecutorTestParams(s.strip()) for s in raw.split(',') if s.strip()]


# Fixtures that start fake daemons (their conftests: tests/server, tests/executor, tests/mom,
# tests/hooks, tests/preempt, tests/reliability, tests/fidelity; crig: test_crash_points).
CLUSTER_FIXTURES = frozenset((
    "fake_cluster", "fake_pbs", "node1", "hook_cluster", "hc", "preempt_cluster",
    "fidelity_replayer", "big", "quick", "pbs_session", "pbs", "crig"))
# A fixture named ``rig`` starts daemons (tests/mom, preempt, reliability, security...) except
# where these modules define their own.
QUIET_RIGS = frozenset(("tests/cli/test_wrapper_interpreter.py",))


def _starts_daemons(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    if CLUSTER_FIXTURES.intersection(names):
        return True
    if "rig" not in names:
        return False
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.get("rig", ()) if info is not None else ()
    return not defs or defs[-1].baseid not in QUIET_RIGS


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    is_root = os.geteuid() == 0
    skip_root = pytest.mark.skip(reason="needs root (runs jobs as other users)")
    for item in items:
        if _starts_daemons(item):
            item.add_marker(pytest.mark.cluster)
        if not is_root and item.get_closest_marker("root") is not None:
            item.add_marker(skip_root)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if 'execparams' in metafunc.fixturenames:
        params = _executor_params(metafunc.config)
        metafunc.parametrize('execparams', params, ids=[repr(p) for p in params])
