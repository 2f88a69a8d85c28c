"""docs/coverage.md: every attribute of OpenPBS 23.06's tables and of the fake's own has a state,
each "behaves" names tests that exist, each "not modelled" is in docs/differences.md and is
refused (or flagged) by the fake, and the page is what the map generates (issue 22)."""
import ast
import re
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from fake_pbs.model import hooks, job_attrs, qmgr_attrs, unmodelled
from fake_pbs.model import resources as rdefs
from fake_pbs.model import resv as rmodel
from fake_pbs.model.errors import PbsError
from fake_pbs.server import manager, valuecheck
from tools.coverage import generate, probe, sources, vendor_pbs
from tools.coverage.rows import BEHAVES, NOT_MODELLED, STATES, Row
from tools.coverage.states import TABLES

ROOT = Path(__file__).resolve().parents[2]
OPENPBS = Path("/work/openpbs-src")
_WRITERS = job_attrs.USWR | job_attrs.OPWR | job_attrs.MGWR | job_attrs.CREAT


def _rows() -> List[Tuple[str, str, Row]]:
    return [(obj, name, row) for obj, table in TABLES.items() for name, row in table.items()]


def test_every_attribute_has_a_state_and_every_row_an_attribute() -> None:
    pbs = sources.pbs_attributes()
    fake = sources.fake_attributes()
    for obj, _ in sources.OBJECTS:
        wanted = set(probe.names_of(obj))
        have = set(TABLES.get(obj, {}))
        assert not wanted - have, "%s attributes without a state: %s" % (obj, wanted - have)
        assert not have - wanted, "%s rows for no attribute: %s" % (obj, have - wanted)
    assert {obj for obj, _, _ in pbs} <= {obj for obj, _ in sources.OBJECTS}
    assert set(fake) <= {obj for obj, _ in sources.OBJECTS}


def test_rows_are_complete() -> None:
    for obj, name, row in _rows():
        assert row.state in STATES, (obj, name)
        if row.state == BEHAVES:
            assert row.tests and row.source, "%s %s behaves without tests or source" % (obj, name)
        else:
            assert row.reason and not row.tests, (obj, name)
        assert not row.in_progress or row.state == NOT_MODELLED, (obj, name)


@lru_cache(maxsize=None)
def _test_names(path: Path) -> Set[str]:
    """``func`` and ``Class::func`` of the tests a file defines."""
    names: Set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.update("%s::%s" % (node.name, item.name) for item in node.body
                         if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return names


def _exists(node_id: str) -> bool:
    """Whether a test node id names a test that is there (parsed, not collected: fast).

    A parameter (``test_golden_case[m08a]``) must appear in the test's module or name a file
    under tests/data."""
    path, _, rest = node_id.partition("::")
    test, _, param = rest.partition("[")
    file = ROOT / path
    if not file.is_file() or test not in _test_names(file):
        return False
    if not param:
        return True
    param = param.rstrip("]")
    return param in file.read_text() or any((ROOT / "tests" / "data").rglob(param + "*"))


def test_behaves_rows_name_tests_that_exist() -> None:
    missing = ["%s %s: %s" % (obj, name, test) for obj, name, row in _rows()
               for test in row.tests if not _exists(test)]
    assert not missing, "tests that do not exist:\n" + "\n".join(missing)


def _differences_section() -> str:
    text = (ROOT / "docs" / "differences.md").read_text()
    start = text.index("## Attributes not modelled")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_not_modelled_rows_are_listed_in_differences() -> None:
    section = _differences_section()
    unlisted = []
    for obj, name, row in _rows():
        if row.state != NOT_MODELLED:
            continue
        mention = row.in_progress if row.in_progress else name
        if not re.search(r"`%s`" % re.escape(mention), section):
            unlisted.append("%s %s" % (obj, name))
    assert not unlisted, "not modelled but not in docs/differences.md: %s" % unlisted


def _probe_value(taken: frozenset) -> str:  # type: ignore[type-arg]
    return "True" if "False" in taken else "1"


def _refused_by_fake(obj: str, name: str) -> bool:
    """Whether the fake refuses (or flags) setting ``name`` of ``obj`` to a value PBS acts on."""
    if name in unmodelled.FLAGGED.get(obj, frozenset()):
        return True
    taken = unmodelled.REFUSED.get(obj, {}).get(name)
    if taken is not None:
        return unmodelled.refusal(obj, name, _probe_value(taken)) is not None
    if obj in ("server", "queue", "node", "sched"):
        attr = qmgr_attrs.find(obj, name + (".x" if name.startswith("resources_") else ""))
        return attr is None or qmgr_attrs.RO in attr[2]
    if obj == "job":
        row = job_attrs.find(name + (".x" if name.startswith("Resource") else ""))
        return row is None or not row[1] & _WRITERS
    if obj == "resource":
        return rdefs.lookup(name) is None
    if obj == "hook":
        return name not in hooks.HOOK_ATTRS
    if obj == "resv":
        return name not in rmodel.SETTABLE
    return False


def test_not_modelled_attributes_are_refused_or_flagged() -> None:
    accepted = ["%s %s" % (obj, name) for obj, name, row in _rows()
                if row.state == NOT_MODELLED and not row.in_progress
                and not _refused_by_fake(obj, name)]
    assert not accepted, "not modelled yet accepted by the fake: %s" % accepted


def _set(managed: manager.Managed, objtype: str, name: str, attr: str, value: str) -> None:
    manager.handle(managed, manager.Caller("root", "vm", True), "manager",
                   {"command": "set", "objtype": objtype, "name": name,
                    "attrs": [(attr, "=", value)]})


@pytest.mark.parametrize(("objtype", "name", "attr", "acts", "default"), [
    ("server", "", "eligible_time_enable", "true", "false"),
    ("server", "", "show_hidden_attribs", "true", "false"),
    ("queue", "workq", "backfill_depth", "3", None),
    ("node", "vm", "vnode_pool", "2", None),
    ("node", "vm", "provision_enable", "True", "False"),
    ("sched", "default", "sched_preempt_enforce_resumption", "t", "f"),
])
def test_qmgr_refuses_what_the_fake_would_ignore(objtype: str, name: str, attr: str, acts: str,
                                                 default: object) -> None:
    """A value PBS acts on is 15029 naming the attribute; PBS's default is taken."""
    managed = manager.Managed("vm")
    managed.queues["workq"] = {"queue_type": "Execution"}
    managed.nodes["vm"] = {"Mom": "vm"}
    with pytest.raises(PbsError) as err:
        _set(managed, objtype, name, attr, acts)
    assert err.value.code == 15029
    assert attr in err.value.text and "docs/differences.md" in err.value.text
    if default is not None:
        _set(managed, objtype, name, attr, str(default))


@pytest.mark.parametrize(("attr", "value"), [("Resource_List.min_walltime", "00:10:00"),
                                             ("Resource_List.aoe", "rhel"),
                                             ("release_nodes_on_stageout", "true"),
                                             ("create_resv_from_job", "true"),
                                             ("tolerate_node_failures", "job_start"),
                                             ("depend", "afterok:1.vm,syncwith:2.vm"),
                                             ("depend", "synccount:2"),
                                             ("depend", "runone:3.vm")])
def test_job_requests_refuse_what_the_mom_would_ignore(attr: str, value: str) -> None:
    """qsub/qalter attributes PBS acts on and the fake does not: 15029 at the server."""
    with pytest.raises(PbsError) as err:
        valuecheck.check({attr: value})
    assert err.value.code == 15029
    valuecheck.check({"Resource_List.walltime": "00:10:00", "Remove_Files": "oe",
                      "create_resv_from_job": "FALSE", "tolerate_node_failures": "none",
                      "depend": "afterok:1.vm:2.vm,before:3.vm"})
    # the limits the mom sets on the job's processes are taken (tests/mom/test_resource_limits)
    valuecheck.check({"Resource_List.cput": "00:10:00", "Resource_List.pvmem": "1gb"})


def test_hook_fail_action_is_flagged_in_the_server_log() -> None:
    managed = manager.Managed("vm")
    root = manager.Caller("root", "vm", True)
    outcome = manager.handle(managed, root, "manager", {
        "command": "create", "objtype": "hook", "name": "h1",
        "attrs": [("event", "=", "execjob_begin"), ("fail_action", "=", "offline_vnodes")]})
    flagged = [log for log in outcome.logs if "fail_action" in log[3]]
    assert flagged and "h1" not in flagged[0][3]


def test_the_page_is_what_the_map_generates() -> None:
    """Regenerate with ``python3 -m tools.coverage.generate`` after changing the map."""
    assert (ROOT / "docs" / "coverage.md").read_text() == generate.render()
    counts: Dict[str, int] = {}
    for _, figures in probe.figures():
        counts["no state"] = counts.get("no state", 0) + figures["no state"]
    assert counts["no state"] == 0


@pytest.mark.skipif(not (OPENPBS / "src" / "lib" / "Libattr").is_dir(),
                    reason="no OpenPBS checkout at /work/openpbs-src")
def test_the_vendored_list_is_openpbs_own() -> None:
    """pbs_attributes.tsv is what vendor_pbs.py reads from the OpenPBS tables."""
    vendored = [tuple(row) for row in sources.pbs_attributes()]
    assert vendored == list(vendor_pbs.rows(OPENPBS))
