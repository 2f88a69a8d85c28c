"""Who may send what to a shared server: privilege per request, ACLs, forced cycles (issue 21).

PBS decides a requester's privilege for every request (process_request.c -> svr_get_privilege
in svr_chk_owner.c), refuses a user its server ACL does not list (authenticate_user), checks a
queue's host, user and group ACLs whenever a job enters it (svr_jobfunc.c svr_chkque, from
req_quejob.c and svr_movejob.c; a manager's qmove skips them), and lets only a manager or an
operator start scheduling (``set server scheduling=true``, qrun).
"""
import json
import subprocess
from pathlib import Path
from typing import Any, Dict

from ..reliability.rig import USER_PYTHON, Rig, _become
from .conftest import raw_as

PERM = "Unauthorized Request"

# A client that keeps one connection: one request, then (after a line on stdin) another.
_TWO_REQUESTS = r"""
import json, sys
from fake_pbs import protocol
from fake_pbs.model.errors import PbsError
path, first, second = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
channel = protocol.connect(path, 30.0)
for request in (first, second):
    try:
        print(json.dumps({"ok": True, "data": protocol.call(channel, **request)}), flush=True)
    except PbsError as err:
        print(json.dumps({"ok": False, "code": err.code}), flush=True)
    if request is first:
        sys.stdin.readline()
"""


def _qmgr(rig: Rig, command: str) -> None:
    done = rig.run(["qmgr", "-c", command], user="root")
    assert done.returncode == 0, (command, done.stderr)


def _submit(rig: Rig, user: str, *options: str) -> "subprocess.CompletedProcess[str]":
    return rig.run(["qsub"] + list(options), input="#!/bin/sh\ntrue\n", user=user)


def test_privilege_is_decided_per_request_not_per_connection(rig: Rig) -> None:
    """An operator removed from ``operators`` loses the rights on a connection opened before
    (svr_get_privilege runs for each request)."""
    import pwd

    from fake_pbs import paths
    _qmgr(rig, "set server operators = pbsuser2@*")
    victim = rig.qsub("sleep 30", "-h", user="pbsuser")
    entry = pwd.getpwnam("pbsuser2")
    env = dict(rig.env, PYTHONPATH=str(Path(paths.__file__).resolve().parent.parent))
    first = {"op": "holdjob", "id": victim, "types": "o"}
    second = {"op": "deljob", "id": victim}
    client = subprocess.Popen(
        [USER_PYTHON, "-S", "-c", _TWO_REQUESTS, str(paths.server_socket(rig.home)),
         json.dumps(first), json.dumps(second)], env=env, cwd="/", stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, universal_newlines=True,
        preexec_fn=_become(entry.pw_uid, entry.pw_gid, "pbsuser2"))
    try:
        assert client.stdout is not None and client.stdin is not None
        assert json.loads(client.stdout.readline())["ok"] is True  # an operator may hold -o
        _qmgr(rig, "unset server operators")
        client.stdin.write("go\n")
        client.stdin.flush()
        answer: Dict[str, Any] = json.loads(client.stdout.readline())
    finally:
        client.kill()
        client.wait(10)
    assert answer == {"ok": False, "code": 15007}, answer
    assert rig.job(victim)["job_state"] == "H"
    rig.run(["qdel", victim], user="pbsuser")


def test_only_managers_and_operators_force_a_scheduling_cycle(rig: Rig) -> None:
    assert raw_as(rig, "pbsuser", "schedule") == {
        "ok": False, "code": 15007, "msg": "Unauthorized Request "}
    _qmgr(rig, "set server operators = pbsuser2@*")
    assert raw_as(rig, "pbsuser2", "schedule")["ok"] is True


def test_queue_user_acl_is_enforced_at_qsub(rig: Rig) -> None:
    """svr_chkque 5a: the owner must be in acl_users (user@host, user, +/- entries); a
    manager's own submission is checked too (MOVE_TYPE_Move)."""
    _qmgr(rig, "set queue workq acl_user_enable = True")
    _qmgr(rig, "set queue workq acl_users = pbsuser2@*")
    refused = _submit(rig, "pbsuser")
    assert (refused.returncode, refused.stderr) == (159, "qsub: Unauthorized Request \n")
    assert _submit(rig, "root").returncode == 159
    assert _submit(rig, "pbsuser2", "-h").returncode == 0
    # A '-' entry denies; a bare '+' lets everyone else in.
    _qmgr(rig, "set queue workq acl_users = \"-pbsuser@*,+\"")
    assert _submit(rig, "pbsuser").returncode == 159
    assert _submit(rig, "pbsuser2", "-h").returncode == 0
    _qmgr(rig, "set queue workq acl_user_enable = False")
    assert _submit(rig, "pbsuser", "-h").returncode == 0


def test_queue_group_and_host_acls_are_enforced_at_qsub(rig: Rig) -> None:
    """svr_chkque 5b (one of the user's groups listed) and 4 (the submit host allowed; an
    empty list allows the server's host only): 15007 and 15008."""
    import grp
    import pwd

    group2 = grp.getgrgid(pwd.getpwnam("pbsuser2").pw_gid).gr_name
    _qmgr(rig, "set queue workq acl_group_enable = True")
    _qmgr(rig, "set queue workq acl_groups = %s" % group2)
    assert _submit(rig, "pbsuser").returncode == 159
    assert _submit(rig, "pbsuser2", "-h").returncode == 0
    _qmgr(rig, "set queue workq acl_group_enable = False")
    _qmgr(rig, "set queue workq acl_host_enable = True")
    _qmgr(rig, "set queue workq acl_hosts = elsewhere.example.com")
    refused = _submit(rig, "pbsuser")
    assert refused.returncode == 15008 % 256, refused.stderr
    assert "Access from host not allowed, or unknown host" in refused.stderr
    _qmgr(rig, "set queue workq acl_hosts = *")
    assert _submit(rig, "pbsuser", "-h").returncode == 0


def test_queue_acls_apply_to_qmove_except_a_managers(rig: Rig) -> None:
    _qmgr(rig, "create queue closed queue_type=execution,enabled=True,started=True")
    _qmgr(rig, "set queue closed acl_user_enable = True")
    _qmgr(rig, "set queue closed acl_users = pbsuser2")
    mine = rig.qsub("true", "-h", user="pbsuser")
    done = rig.run(["qmove", "closed", mine], user="pbsuser")
    assert done.returncode == 159 and PERM in done.stderr, done.stderr
    assert rig.job(mine)["queue"] == "workq"
    assert rig.run(["qmove", "closed", mine], user="root").returncode == 0  # MOVE_TYPE_MgrMv
    assert rig.job(mine)["queue"] == "closed"
    rig.run(["qdel", mine], user="pbsuser")


def test_server_user_acl_refuses_every_request_of_an_unlisted_user(rig: Rig) -> None:
    """authenticate_user: with acl_user_enable, an unlisted user who is no manager or
    operator gets 15007 for any request; managers and operators pass."""
    _qmgr(rig, "set server acl_users = pbsuser2@*")
    _qmgr(rig, "set server acl_user_enable = True")
    assert raw_as(rig, "pbsuser", "statjob", id=None)["code"] == 15007
    assert _submit(rig, "pbsuser").returncode == 159
    assert raw_as(rig, "pbsuser2", "statjob", id=None)["ok"] is True
    assert rig.run(["qstat"], user="root").returncode == 0
    _qmgr(rig, "set server operators = pbsuser@*")
    assert raw_as(rig, "pbsuser", "statjob", id=None)["ok"] is True


def test_acl_roots_is_a_user_acl(rig: Rig) -> None:
    """set_objexid checks root's Job_Owner (root@host) against acl_roots as a user ACL: a
    host that is not the server's does not match (PBSE_BADUSER, 15023)."""
    _qmgr(rig, "set server acl_roots = root@elsewhere.example.com")
    done = _submit(rig, "root")
    assert (done.returncode, done.stderr) == (175, "qsub: Bad UID for job execution\n")
    _qmgr(rig, "set server acl_roots = root@*")
    assert _submit(rig, "root", "-h").returncode == 0


def test_before_dependency_on_another_users_job_is_refused(rig: Rig) -> None:
    """req_register: a before* registration with another owner's job is PBSE_PERM
    (svr_chk_owner); post_doq logs the rejection and aborts the new job (the qsub itself
    succeeds, as j05q's for an unknown job)."""
    theirs = rig.qsub("true", "-h", user="pbsuser2")
    mine = rig.qsub("true", "-h", "-W", "depend=beforeok:" + theirs, user="pbsuser")
    job = rig.wait(mine, "F", started=False)
    assert job["substate"] == "92" and "stime" not in job
    assert "Dependency request for job rejected by %s" % theirs in "\n".join(
        rig.log_lines("server"))
    assert "beforeok" not in rig.job(theirs).get("depend", "")
    rig.run(["qdel", theirs], user="pbsuser2")
