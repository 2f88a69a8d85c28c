"""Fixtures of the reliability suite: a private cluster per test, always torn down."""
from typing import Iterator

import pytest

from .rig import Rig


@pytest.fixture
def rig() -> Iterator[Rig]:
    cluster = Rig()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()
