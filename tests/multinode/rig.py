"""The multi-node tests' clusters: started in a fresh home, stopped when the test ends."""
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

import pytest

from fake_pbs.testing import FakeCluster


def started_cluster(tmp_path_factory: pytest.TempPathFactory, name: str,
                    hosts: Sequence[str] = ("node1", "node2"),
                    before_start: Optional[Callable[[Path], None]] = None
                    ) -> Iterator[FakeCluster]:
    """A cluster of ``hosts`` (2 cpus each) for a fixture to yield; stopped afterwards.
    ``before_start`` prepares the home (a mom's config file, say) before the daemons start."""
    home = tmp_path_factory.mktemp(name)
    home.chmod(0o755)
    if before_start is not None:
        before_start(home)
    rig = FakeCluster(home, "vm", [{"name": h, "ncpus": 2, "mem": "1gb", "ngpus": 0}
                                   for h in hosts])
    rig.start()
    try:
        yield rig
    finally:
        rig.stop()
