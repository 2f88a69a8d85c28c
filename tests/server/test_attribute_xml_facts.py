"""Attribute rules checked against facts read from OpenPBS 23.06.06's own definitions.

Each fact names where it comes from (file:line at tag v23.06.06): the attribute tables
``src/lib/Libattr/master_{svr,queue,node,sched,job}_attr_def.xml`` (type, flags, verify
functions), the ECL verifiers ``src/lib/Libecl/ecl_verify_values.c`` and ``ecl_verify.c``, and
the commands ``src/cmds/qsub.c``, ``qalter.c``, ``qmgr.c``.  Most of these attributes appear in
no transcript: the point is that the fake follows PBS's rule for every attribute, not only for
the ones a capture happened to touch (issue 13).
"""
import io
from typing import Dict, List, Optional

import pytest

from fake_pbs.cli import common
from fake_pbs.cli import qmgr as qmgr_cli
from fake_pbs.cli import qsub_verify
from fake_pbs.model import job_attrs as ja
from fake_pbs.model import qmgr_attrs
from fake_pbs.model.errors import PbsError
from fake_pbs.model.qmgr_grammar import parse
from fake_pbs.server import manager

ILLEGAL = "Illegal attribute or resource value"
READ_ONLY = "Cannot set attribute, read only or insufficient permission "


def refusal(fn: object, *args: object) -> PbsError:
    with pytest.raises(PbsError) as err:
        fn(*args)  # type: ignore[operator]
    return err.value


# (object, attribute, value, code, text): qmgr values PBS refuses.  The ECL's refusals carry the
# bare message (the client checked them); the server's (no ECL check, read only) name the
# attribute as reply_badattr does.
QMGR_REFUSALS = [
    # master_queue_attr_def.xml:108 Priority: verify_value_priority (ecl_verify_values.c:911)
    ("queue", "Priority", "1024", 15014, ILLEGAL),
    ("queue", "Priority", "-1025", 15014, ILLEGAL),
    # master_node_attr_def.xml:229 Priority: the same range on vnodes
    ("node", "priority", "5000", 15014, ILLEGAL),
    # master_svr_attr_def.xml:1435 backfill_depth: verify_value_zero_or_positive (:1143)
    ("server", "backfill_depth", "-1", 15014, ILLEGAL),
    ("queue", "backfill_depth", "-3", 15014, ILLEGAL),
    # master_svr_attr_def.xml:1657 max_job_sequence_id: non_zero_positive_long_long
    ("server", "max_job_sequence_id", "0", 15014, ILLEGAL),
    # master_svr_attr_def.xml:1555 jobscript_max_size: a size, non zero
    ("server", "jobscript_max_size", "0kb", 15014, ILLEGAL),
    ("server", "jobscript_max_size", "big", 15014, ILLEGAL),
    # master_svr_attr_def.xml:1180 pbs_license_min: verify_value_minlicenses, its own code
    ("server", "pbs_license_min", "-1", 15118,
     "pbs_license_min is < 0, or > pbs_license_max"),
    ("server", "pbs_license_linger_time", "0", 15120, "pbs_license_linger_time is <= 0"),
    # master_queue_attr_def.xml:91 queue_type: verify_value_queue_type (:1629)
    ("queue", "queue_type", "Exec2", 15014, ILLEGAL),
    # master_svr_attr_def.xml:653 managers: verify_value_mgr_opr_acl_check (:1541), user@host
    ("server", "managers", "bob", 15008, "Access from host not allowed, or unknown host"),
    ("server", "operators", "bob@", 15008, "Access from host not allowed, or unknown host"),
    # master_queue_attr_def.xml:652 max_run_res: an entity limit the server decodes
    ("queue", "max_run_res", "5", 15014, ILLEGAL + " max_run_res"),
    ("server", "max_run_res", "[u:x=1", 15014, ILLEGAL + " max_run_res"),
    # master_svr_attr_def.xml:415 total_jobs, master_node_attr_def.xml:206 pcpus: READ_ONLY
    ("server", "total_jobs", "5", 15003, READ_ONLY + " total_jobs"),
    ("node", "pcpus", "4", 15003, READ_ONLY + " pcpus"),
    # master_svr_attr_def.xml:1589 power_provisioning: SvWR | MGRD, no write bit for anyone
    ("server", "power_provisioning", "true", 15003, READ_ONLY + " power_provisioning"),
    # master_sched_attr_def.xml:384 state: READ_ONLY | SSET
    ("sched", "state", "idle", 15003, READ_ONLY + " state"),
    # verify_datatype_long / _bool / _time on the plain kinds
    ("server", "scheduler_iteration", "10m", 15014, ILLEGAL),
    ("queue", "max_running", "x", 15014, ILLEGAL),
    ("node", "no_multinode_jobs", "maybe", 15014, ILLEGAL),
    ("server", "job_requeue_timeout", "soon", 15014, ILLEGAL),
    ("sched", "server_dyn_res_alarm", "-2", 15014, ILLEGAL),
]


@pytest.mark.parametrize(("objtype", "name", "value", "code", "text"), QMGR_REFUSALS)
def test_qmgr_refusals(objtype: str, name: str, value: str, code: int, text: str) -> None:
    err = refusal(qmgr_attrs.normalize, objtype, name, value)
    assert (err.code, err.text) == (code, text)


@pytest.mark.parametrize(("objtype", "name", "value", "stored"), [
    ("queue", "Priority", "-1024", "-1024"), ("queue", "Priority", "+1023", "1023"),
    ("node", "Priority", "5", "5"), ("server", "backfill_depth", "0", "0"),
    ("server", "job_history_duration", "90", "00:01:30"),
    ("server", "jobscript_max_size", "100MB", "100mb"),
    ("queue", "max_run_res", "[o:PBS_ALL=4]", "[o:PBS_ALL=4]"),
    ("server", "managers", "root@*,admin@*.example.com", "root@*,admin@*.example.com"),
    ("server", "acl_host_moms_enable", "t", "True"), ("queue", "checkpoint_min", "5", "5"),
    ("server", "default_qsub_arguments", "-r n", "-r n"),
])
def test_qmgr_values_stored(objtype: str, name: str, value: str, stored: str) -> None:
    """Attributes of the XML tables the fake lacked before this audit, with PBS's forms."""
    assert qmgr_attrs.normalize(objtype, name, value) == stored


def test_qmgr_tables_follow_xml_order() -> None:
    """``list`` shows attributes in the definition tables' index order: on the server
    max_running/max_run come before total_jobs (master_svr_attr_def.xml:143, :211 < :415) and
    resources_available before resources_default (:772)."""
    names = [row[0] for row in qmgr_attrs.SERVER]
    assert names.index("max_run") < names.index("total_jobs")
    assert names.index("resources_available") < names.index("resources_default")
    queue = [row[0] for row in qmgr_attrs.QUEUE]
    assert queue.index("max_running") < queue.index("max_queued") < queue.index("enabled")


def test_qmgr_manager_only_from_the_table() -> None:
    """Operators may set NO_USER_SET attributes, not MGR_ONLY_SET ones (master_svr_attr_def.xml
    managers, mailer; master_queue_attr_def.xml from_route_only, route_destinations)."""
    server = qmgr_attrs.manager_only("server")
    assert {"managers", "mailer", "flatuid", "acl_roots"} <= server
    assert not {"scheduling", "max_run", "comment", "default_queue"} & server
    assert {"from_route_only", "route_destinations"} <= qmgr_attrs.manager_only("queue")
    assert "enabled" not in qmgr_attrs.manager_only("queue")


@pytest.mark.parametrize(("line", "names"), [
    ("set server enabled=true", []),          # a queue's attribute: still an attribute
    ("set queue scheduling=true", []),        # a server's
    ("set server nosuch=1", None),            # no table has it: an object name, syntax error
    ("set queue workq Priority=5", ["workq"]),
])
def test_qmgr_is_attr_searches_every_table(line: str, names: Optional[List[str]]) -> None:
    """qmgr's is_attr (ecl_verify.c:718) looks a name up in the server, node, queue and sched
    tables whatever the object; the server then refuses a name of another table (15002)."""
    if names is None:
        with pytest.raises(Exception):
            parse(line, qmgr_attrs.is_attribute)
        return
    directive = parse(line, qmgr_attrs.is_attribute)
    assert directive is not None and directive.names == names
    if not names:
        assert refusal(qmgr_attrs.normalize, directive.objtype, directive.attrs[0][0],
                       directive.attrs[0][2]).code == 15002


class _Refuse:
    def __init__(self, code: int) -> None:
        self.code = code

    def __call__(self, *args: object, **kwargs: object) -> Dict[str, str]:
        raise PbsError(self.code)


@pytest.mark.parametrize(("tty", "objtype", "shown"), [
    (False, "node", False), (True, "node", True), (False, "queue", True)])
def test_qmgr_quiet_on_node_read_only_without_tty(monkeypatch: pytest.MonkeyPatch, tty: bool,
                                                  objtype: str, shown: bool) -> None:
    """qmgr.c:2463: a ``set node`` refused as read only prints nothing when stdin is no
    terminal (a 'print node' dump reloads quietly); the exit status is the error's."""
    monkeypatch.setattr(common, "request", _Refuse(15003))
    monkeypatch.setattr(qmgr_cli, "_stdin_is_tty", lambda: tty)
    err = io.StringIO()
    session = qmgr_cli.Session(io.StringIO(), err, io.StringIO())
    assert session.run_line("set %s x pcpus=3" % objtype) == 15003 % 256
    assert bool(err.getvalue()) == shown


# (attribute, value, code) for a submission by an ordinary user (req_quejob): names 23.06.06
# does not define are 15002, attributes without a user write bit nor Creat are 15003.
JOB_SUBMIT_FACTS = [
    ("topjob", "1", 15002),        # master's pbs_ifl.h:194 only; 23.06.06 has no such attribute
    ("hop_count", "1", 15003),     # master_job_attr_def.xml:1154 ATR_DFLAG_SSET only
    ("queue_rank", "1", 15003),    # MGRD only
    ("ptime", "1", 15003),         # SvWR | MGWR | ALTRUN
    ("resources_released", "x", 15003),
    ("eligible_time", "00:01:00", 15003),  # NO_USER_SET
]


@pytest.mark.parametrize(("name", "value", "code"), JOB_SUBMIT_FACTS)
def test_job_submit_facts(name: str, value: str, code: int) -> None:
    assert refusal(ja.check_submit, {name: value}, ja.USER).code == code


def test_job_new_rows_accepted() -> None:
    """gridname is READ_WRITE | SELEQ (master_job_attr_def.xml:1358); eligible_time a time a
    manager may set while the job runs (:1460, decode_time)."""
    assert ja.check_submit({"gridname": "g1"}, ja.USER) == {"gridname": "g1"}
    assert ja.check_alter({"eligible_time": "90"}, ja.MANAGER, running=True) == {
        "eligible_time": "00:01:30"}


# (attribute, value, accepted): the ECL value checks of job attributes.
JOB_ECL_FACTS = [
    # master_job_attr_def.xml:785 Remove_Files: verify_value_removefiles (:992), o and e only
    ("Remove_Files", "oe", True), ("Remove_Files", "x", False), ("Remove_Files", "", False),
    # :683 Mail_Users: verify_value_mailusers, user[@host] items
    ("Mail_Users", "a@b.c,d", True), ("Mail_Users", "a b", False), ("Mail_Users", "a,", False),
    # :1063 User_List, :575 group_list: verify_value_user_list, each host once
    ("User_List", "u1@h1,u2@h2", True), ("User_List", "u1,u2", False),
    ("group_list", "staff", True),
    # :961 Shell_Path_List: absolute paths, each host once
    ("Shell_Path_List", "/bin/bash", True), ("Shell_Path_List", "bash", False),
    # :1012 stagein: verify_value_stagelist, local@host:remote
    ("stagein", "in.dat@host:/data/in.dat", True), ("stagein", "in.dat", False),
    ("stagein", "a@h:/x,", False),
    # :1996 tolerate_node_failures: all, job_start or none (ecl_verify_values.c:1779)
    ("tolerate_node_failures", "job_start", True), ("tolerate_node_failures", "some", False),
    # :808 Rerunable: verify_datatype_bool
    ("Rerunable", "true", True), ("Rerunable", "maybe", False),
    # :2081 max_run_subjobs: verify_value_zero_or_positive
    ("max_run_subjobs", "0", True), ("max_run_subjobs", "-1", False),
]


@pytest.mark.parametrize(("name", "value", "accepted"), JOB_ECL_FACTS)
def test_job_ecl_facts(name: str, value: str, accepted: bool) -> None:
    if accepted:
        ja.ecl_check(name, value)
    else:
        assert refusal(ja.ecl_check, name, value).code == 15014


# (command, attribute, value, message, exit): how each command words an ECL refusal
# (qsub.c:2708 and qalter.c:96 handle_attribute_errors): the option letter of the attributes
# they list, else the bare number (Error (N) submitting job / Server returned error N).
COMMAND_FACTS = [
    ("qsub", "Mail_Users", "a b", "qsub: illegal -M value", 2),
    ("qsub", "Remove_Files", "x", "qsub: illegal -R value", 2),
    ("qsub", "tolerate_node_failures", "x", "qsub: illegal -W value", 2),
    ("qsub", "max_run_subjobs", "-1", "qsub: Error (15014) submitting job", 166),
    ("qsub", "no_stdio_sockets", "maybe", "qsub: Error (15014) submitting job", 166),
    ("qalter", "User_List", "a,b", "qalter: illegal -u value", 2),
    ("qalter", "group_list", "a b", "qalter: illegal -W value", 2),
    ("qalter", "tolerate_node_failures", "x", "qalter: Error (15014) submitting job", 166),
]


@pytest.mark.parametrize(("cmd", "name", "value", "message", "code"), COMMAND_FACTS)
def test_command_wording(cmd: str, name: str, value: str, message: str, code: int) -> None:
    with pytest.raises(qsub_verify.VerifyError) as err:
        qsub_verify.verify({name: value}, {}, "vm", "/home/pbsuser", cmd)
    assert (err.value.message, err.value.code) == (message, code)
    if code != 2:
        assert err.value.pbs_code == 15014  # qalter prints it per job


@pytest.mark.parametrize(("attrs", "code"), [
    ([["scheduling", "=", "maybe"]], 15014),        # the ECL refuses the value first
    ([["enabled", "=", "true"]], 15002),            # not a server attribute: the ECL too
    ([["scheduling", "=", "true"]], 15007),         # a good value: the server's rights
    ([["max_run", "=", "5"]], 15007),               # an entity only the server decodes
])
def test_qmgr_client_checks_before_rights(attrs: List[List[str]], code: int) -> None:
    """pbs_manager runs pbs_verify_attributes (ecl_verify.c:174) before sending, so a user's
    bad value is 15014 and an unknown name 15002, not 15007 (release d10g for a good one)."""
    managed = manager.Managed("vm")
    caller = manager.Caller("pbsuser", "vm", False)
    err = refusal(manager.handle, managed, caller, "manager",
                  {"command": "set", "objtype": "server", "name": "", "attrs": attrs})
    assert err.code == code
