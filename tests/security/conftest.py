"""Fixtures of the security suite: a root-started cluster that real local users share.

Every test here acts as ``pbsuser`` / ``pbsuser2`` (tools/make_fidelity_users.sh) against a
cluster started by root, as a CI runner or shared lab machine would; without root or without
those users each test skips.  The cluster is torn down even when a test fails.
"""
import os
import pwd
from typing import Iterator

import pytest

from reliability.rig import Rig


def need_users() -> None:
    """Skip unless this process is root and both test users exist."""
    if os.geteuid() != 0:
        pytest.skip("needs root to start a shared cluster and act as pbsuser and pbsuser2")
    for name in ("pbsuser", "pbsuser2"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            pytest.skip("user %s does not exist (tools/make_fidelity_users.sh)" % name)


@pytest.fixture
def rig() -> Iterator[Rig]:
    need_users()
    cluster = Rig()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()
