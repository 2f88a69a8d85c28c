"""Fixtures for the executor's tests.

``executor``: a unit-test executor (no PBS). ``pbs``: the PBS the end-to-end tests submit to:
a fake cluster started once per session and reset for each test (PATH and FAKE_PBS_HOME set),
or with ``--real-pbs`` the PBS on PATH (see pbs_site.py and psijpbs/README.md).
"""
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from .pbs_site import PbsSite, real_site
from psijpbs.config import PBSProExecutorConfig
from psijpbs.executor import PBSProJobExecutor


@pytest.fixture
def executor(tmp_path: Path) -> Iterator[PBSProJobExecutor]:
    """An executor whose work directory is a temp dir; its poll thread has no jobs."""
    config = PBSProExecutorConfig(work_directory=tmp_path / 'work')
    ex = PBSProJobExecutor(config=config)
    ex.work_directory.mkdir(parents=True, exist_ok=True)  # psij > 0.9.11 makes it
    yield ex
    ex._poller.done = True
    ex._poller.note_activity()


@pytest.fixture(scope='session')
def pbs_session(request: pytest.FixtureRequest) -> Iterator[PbsSite]:
    """One PBS for the session: the real one on PATH, or a fake cluster stopped at the end."""
    if request.config.getoption('real_pbs'):
        yield real_site()
        return
    if request.config.pluginmanager.has_plugin('fake_pbs.testing'):
        # The fake's pytest plugin is loaded: share its session cluster with the other tests.
        shared = request.getfixturevalue('fake_cluster')
        yield PbsSite(shared.server_name, [int(h['ncpus']) for h in shared.hosts], shared)
        return
    from fake_pbs.testing import FakeCluster
    home = Path(tempfile.mkdtemp(prefix='fpbs-'))
    cluster = FakeCluster(home)
    try:
        cluster.start()
        yield PbsSite(cluster.server_name, [int(h['ncpus']) for h in cluster.hosts], cluster)
    finally:
        cluster.stop()
        shutil.rmtree(str(home), ignore_errors=True)


@pytest.fixture
def pbs(pbs_session: PbsSite, monkeypatch: pytest.MonkeyPatch) -> Iterator[PbsSite]:
    """The session's PBS; a fake one is reset (no jobs, default settings) and put on PATH."""
    fake = pbs_session.fake
    if fake is not None:
        fake.reset()
        monkeypatch.setenv('FAKE_PBS_HOME', str(fake.home))
        monkeypatch.setenv('PATH', fake.env['PATH'])
        monkeypatch.setenv('FAKE_PBS_AUTOSTART', '0')
    yield pbs_session
