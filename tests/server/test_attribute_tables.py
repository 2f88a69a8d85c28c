"""The attribute tables (fake_pbs/model/job_attrs.py, qmgr_attrs.py) and the rules they drive.

Facts from OpenPBS 23.06's master_job_attr_def.xml / master_queue_attr_def.xml and Libecl
(docs/fidelity.md, "Attribute tables"); error texts as reply_badattr words them.
"""
from typing import Dict

import pytest

from fake_pbs.model import job_attrs as ja
from fake_pbs.model import qmgr_attrs
from fake_pbs.model.errors import PbsError
from fake_pbs.server.handlers.submit import check_array_size, parse_array


def code_of(fn: object, *args: object) -> int:
    with pytest.raises(PbsError) as err:
        fn(*args)  # type: ignore[operator]
    return err.value.code


@pytest.mark.parametrize(("attrs", "code", "text"), [
    ({"_uid": "0"}, 15002, "Undefined attribute  _uid"),
    ({"Resource_List": "x"}, 15002, "Undefined attribute  Resource_List"),
    ({"Job_Name.x": "x"}, 15002, "Undefined attribute  Job_Name.x"),
    ({"job_state": "R"}, 15003,
     "Cannot set attribute, read only or insufficient permission  job_state"),
    ({"comment": "x"}, 15003,
     "Cannot set attribute, read only or insufficient permission  comment"),
    ({"Priority": "high"}, 15014, "Illegal attribute or resource value Priority"),
    ({"Rerunable": "maybe"}, 15014, "Illegal attribute or resource value Rerunable"),
])
def test_submit_refusals(attrs: Dict[str, str], code: int, text: str) -> None:
    """req_quejob: undefined names 15002, no write right and no Creat 15003, a value its type
    cannot decode 15014; the message is reply_badattr's (text, space, name)."""
    with pytest.raises(PbsError) as err:
        ja.check_submit(attrs, ja.USER)
    assert (err.value.code, err.value.text) == (code, text)


def test_submit_accepts_what_qsub_sends() -> None:
    """Everything the fake's qsub sends passes, Creat attributes (block, array ranges)
    included, and booleans are stored as True/False."""
    sent = {"Job_Name": "a", "Checkpoint": "u", "Hold_Types": "n", "Join_Path": "n",
            "Keep_Files": "n", "Mail_Points": "a", "Priority": "0", "Rerunable": "y",
            "Resource_List.ncpus": "1", "Variable_List": "A=1", "Submit_arguments": "-h",
            "block": "true", "array_indices_submitted": "1-3", "max_run_subjobs": "2",
            "executable": "x", "argument_list": "y", "umask": "022", "run_count": "2"}
    out = ja.check_submit(sent, ja.USER)
    assert out["Rerunable"] == "True" and out["block"] == "True" and out["umask"] == "22"


def test_manager_may_set_comment() -> None:
    """comment is NO_USER_SET: operators and managers write it."""
    assert ja.check_alter({"comment": "c"}, ja.MANAGER, running=True) == {"comment": "c"}


@pytest.mark.parametrize(("name", "running", "code"), [
    ("Resource_List.select", True, 15015), ("Resource_List.ncpus", True, 15015),
    ("Join_Path", True, 15015), ("exec_vnode", True, 15015), ("exec_vnode", False, 15003),
    ("array_indices_submitted", False, 15003), ("_user", False, 15002),
    ("run_count", True, 15015),  # the fake's one difference (docs/differences.md)
])
def test_alter_refusals(name: str, running: bool, code: int) -> None:
    """req_modifyjob: undefined 15002, then not ALTRUN while running 15015 (for resources, the
    resource's own ALTRUN: walltime yes, select no; extra k05i/k05j), then write rights 15003
    (Creat grants nothing after submission)."""
    assert code_of(ja.check_alter, {name: "1"}, ja.USER, running) == code


@pytest.mark.parametrize("name", ["Resource_List.walltime", "Resource_List.cput", "Job_Name",
                                  "Priority", "Hold_Types", "Execution_Time"])
def test_alter_while_running_allowed(name: str) -> None:
    value = "00:10:00" if name.startswith("Resource_List") else "1"
    assert name in ja.check_alter({name: value}, ja.USER, running=True)


@pytest.mark.parametrize(("name", "op", "code"), [
    ("_uid", "eq", 15002), ("euser", "eq", 15007), ("Job_Name", "lt", 15004),
])
def test_select_refusals(name: str, op: str, code: int) -> None:
    """req_selectjob: known names the caller may read; SELEQ attributes take = and != only."""
    assert code_of(ja.check_select, [(name, op, "x")], ja.USER) == code


def test_select_readable() -> None:
    ja.check_select([("job_state", "eq", "R"), ("Resource_List.ncpus", "gt", "1"),
                     ("Execution_Time", "lt", "5")], ja.USER)
    ja.check_select([("euser", "eq", "x")], ja.MANAGER)


def test_subjob_copy_list() -> None:
    """A subjob shows no Checkpoint, Hold_Types or Submit_arguments (extra j02g) but keeps the
    server's private fields."""
    for name in ("Checkpoint", "Hold_Types", "Submit_arguments", "depend", "array",
                 "max_run_subjobs", "Execution_Time"):
        assert not ja.subjob_copies(name)
    for name in ("Job_Name", "Resource_List.ncpus", "Variable_List", "_uid", "project"):
        assert ja.subjob_copies(name)


def test_max_array_size() -> None:
    """The server's max_array_size (10000 by default) and a queue's bound an array; the range
    is never materialized first (PBSE_MaxArraySize 15107: qsub exits 3)."""
    big = parse_array("0-999999999")
    assert code_of(check_array_size, {}, {}, len(big)) == 15107
    check_array_size({}, {}, 10000)
    assert code_of(check_array_size, {}, {}, 10001) == 15107
    assert code_of(check_array_size, {"max_array_size": "5"}, {}, 6) == 15107
    assert code_of(check_array_size, {}, {"max_array_size": "3"}, 4) == 15107


@pytest.mark.parametrize(("objtype", "name", "value", "stored"), [
    ("queue", "queue_type", "e", "Execution"), ("queue", "queue_type", "ROUTE", "Route"),
    ("queue", "max_run", "[u:PBS_GENERIC=5]", "[u:PBS_GENERIC=5]"),
    ("server", "max_queued", "[u:a=1],[g:b=2]", "[u:a=1],[g:b=2]"),
    ("queue", "max_array_size", "7", "7"),
])
def test_qmgr_values(objtype: str, name: str, value: str, stored: str) -> None:
    assert qmgr_attrs.normalize(objtype, name, value) == stored


@pytest.mark.parametrize(("objtype", "name", "value"), [
    ("queue", "queue_type", "foo"), ("queue", "queue_type", ""), ("queue", "max_run", "5"),
    ("queue", "max_run", "[u:x=a]"), ("server", "max_queued", "[x:a=1]"),
    ("queue", "Priority", "abc"), ("queue", "max_array_size", "many"),
])
def test_qmgr_bad_values(objtype: str, name: str, value: str) -> None:
    """Values of the wrong type or outside an enumeration: 15014 (qmgr prints PBS's
    ``Illegal attribute or resource value``, d08e's format)."""
    assert code_of(qmgr_attrs.normalize, objtype, name, value) == 15014


@pytest.mark.parametrize(("old", "op", "value", "state"), [
    ("job-busy", "+=", "offline", "offline,job-busy"),
    ("offline,job-busy", "-=", "offline", "job-busy"),
    ("free", "+=", "offline", "offline"), ("offline", "-=", "offline", "free"),
    ("down,job-busy", "+=", "offline", "down,offline,job-busy"),
])
def test_node_state_order(old: str, op: str, value: str, state: str) -> None:
    """A vnode's state names are written in PBS's table order (attr_node_func.c ns[]): a node
    taken offline while it runs a job is ``offline,job-busy`` (pbsnodes -l prints it so)."""
    assert qmgr_attrs.apply_op("node", "state", op, old, value) == state
