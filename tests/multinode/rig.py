"""The multi-node tests' clusters: started in a fresh home, stopped when the test ends."""
from typing import Iterator, Sequence

import pytest

from fake_pbs.testing import FakeCluster


def started_cluster(tmp_path_factory: pytest.TempPathFactory, name: str,
                    hosts: Sequence[str] = ("node1", "node2")) -> Iterator[FakeCluster]:
    """A cluster of ``hosts`` (2 cpus each) for a fixture to yield; stopped afterwards."""
    home = tmp_path_factory.mktemp(name)
    home.chmod(0o755)
    rig = FakeCluster(home, "vm", [{"name": h, "ncpus": 2, "mem": "1gb", "ngpus": 0}
                                   for h in hosts])
    rig.start()
    try:
        yield rig
    finally:
        rig.stop()
