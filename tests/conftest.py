"""Shared pytest configuration.

``--executors`` works as in psij's own test suite: a comma-separated list of
``executor[:launcher[:url]]`` entries (default ``pbspro``); every test that takes the
``execparams`` fixture runs once per entry.
"""
import re
from typing import List, Optional

import pytest

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


def _executor_params(config: pytest.Config) -> List[ExecutorTestParams]:
    raw = str(config.getoption('executors'))
    return [ExecutorTestParams(s.strip()) for s in raw.split(',') if s.strip()]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if 'execparams' in metafunc.fixturenames:
        params = _executor_params(metafunc.config)
        metafunc.parametrize('execparams', params, ids=[repr(p) for p in params])
