"""Fixtures of the security suite: a root-started cluster that real local users share.

Every test here acts as ``pbsuser`` / ``pbsuser2`` (tools/make_fidelity_users.sh) against a
cluster started by root, as a CI runner or shared lab machine would; without root or without
those users each test skips.  The cluster is torn down even when a test fails.
"""
import json
from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

from ..reliability.rig import Rig, need_users


@pytest.fixture
def rig() -> Iterator[Rig]:
    need_users()
    cluster = Rig()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()


_RAW = r"""
import json, sys
from fake_pbs import protocol
from fake_pbs.model.errors import PbsError
request = json.loads(sys.stdin.read())
try:
    data = protocol.call_once(request.pop("socket"), request.pop("op"), 30.0, **request)
    print(json.dumps({"ok": True, "data": data}))
except PbsError as err:
    print(json.dumps({"ok": False, "code": err.code, "msg": err.text}))
"""


def raw_as(rig: Rig, user: str, op: str, **args: Any) -> Dict[str, Any]:
    """Send one raw request to the server as ``user`` (what a hand-made client could send):
    ``{"ok": True, "data": ...}`` or ``{"ok": False, "code": ..., "msg": ...}``."""
    from fake_pbs import paths
    from ..reliability.rig import USER_PYTHON

    env = dict(rig.env, PYTHONPATH=str(Path(paths.__file__).resolve().parent.parent))
    request = dict(args, op=op, socket=str(paths.server_socket(rig.home)))
    done = rig.run([USER_PYTHON, "-S", "-c", _RAW], input=json.dumps(request), user=user,
                   env=env)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))
