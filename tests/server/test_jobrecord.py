"""The job record's private fields are the ones model/jobrecord.py documents, no more, no fewer."""
import re
from pathlib import Path
from typing import Set

from fake_pbs.model.jobrecord import PRIVATE_FIELDS

_SERVER = Path(__file__).resolve().parents[2] / "fake_pbs" / "server"
_KEY = re.compile(r"""["'](_[a-z][a-z_]*)["']""")
# Private keys of other records, and values that look like keys.
_NOT_JOB_FIELDS = {
    "_slots", "_charged",     # node records (server/vnodeslots.py)
    "_down_since",            # node records (server/nodehealth.py)
    "_ran",                   # queue records (server/handlers/status.py)
    "_order",                 # hook records (server/handlers/qmgr.py)
    "_later", "_idle_since",  # reservation records (server/resv/)
    "_pbs_project_default",   # the value of ``project`` PBS gives a job without one
}


def _keys_in_server() -> Set[str]:
    found: Set[str] = set()
    for path in _SERVER.rglob("*.py"):
        found.update(_KEY.findall(path.read_text(encoding="utf-8")))
    return found


def test_every_private_key_the_server_uses_is_documented() -> None:
    undocumented = _keys_in_server() - set(PRIVATE_FIELDS) - _NOT_JOB_FIELDS
    assert not undocumented, "add these to fake_pbs/model/jobrecord.py: %s" % sorted(undocumented)


def test_every_documented_field_is_used() -> None:
    unused = set(PRIVATE_FIELDS) - _keys_in_server()
    assert not unused, "no server code uses these any more: %s" % sorted(unused)
