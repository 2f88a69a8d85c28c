"""Fixtures of the mom tests: a scratch cluster home and real mom daemons, always stopped."""
import sys
from pathlib import Path
from typing import Iterator

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:  # make the checkout importable when these tests run on their own
    sys.path.insert(0, _ROOT)

from .momrig import MomRig  # noqa: E402


@pytest.fixture
def rig() -> Iterator[MomRig]:
    """A scratch cluster home with no mom running yet; everything started is stopped after."""
    mom_rig = MomRig()
    try:
        yield mom_rig
    finally:
        mom_rig.close()


@pytest.fixture
def node1(rig: MomRig) -> MomRig:
    """The rig with the mom of host ``node1`` running."""
    rig.start("node1")
    return rig
