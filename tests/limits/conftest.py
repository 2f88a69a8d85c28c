"""The limits tests leave jobs queued behind running ones: the next test's reset kills the
running ones, and a scheduler still on would start the queued ones while the reset waits for
the ends.  So each test's cluster stops scheduling when the test is over."""
from typing import Iterator

import pytest

from fake_pbs.testing import FakeCluster


@pytest.fixture
def pbs(fake_pbs: FakeCluster) -> Iterator[FakeCluster]:
    yield fake_pbs
    fake_pbs.qmgr("set server scheduling = False")
