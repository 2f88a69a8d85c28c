"""Requests carry only the job attributes a client may set (issue 10; OpenPBS's attribute table,
``master_job_attr_def.xml``, and its ECL: fake_pbs/model/job_attrs.py).

Real separate users (pbsuser, pbsuser2: tools/make_fidelity_users.sh) act on a root-started
cluster, through the commands and through raw socket requests that skip the commands' checks:
the server's private ``_`` fields and read-only attributes can be neither submitted, nor altered,
nor used as selection criteria.  Skips without root or without the users.
"""
import json
import os
import pwd
import subprocess
from typing import Any, Dict, Iterator

import pytest

from fake_pbs import paths
from ..reliability.rig import USER_PYTHON, Rig, _become

USERS = ("pbsuser", "pbsuser2")

# A client of the wire protocol (fake_pbs/protocol.py: one JSON line each way) in the standard
# library only, so that it runs as any user without the repository's modules.
RAW_CLIENT = r"""
import json, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.settimeout(30)
sock.connect(sys.argv[1])
sock.sendall(sys.argv[2].encode() + b"\n")
data = b""
while not data.endswith(b"\n"):
    chunk = sock.recv(65536)
    if not chunk:
        break
    data += chunk
sys.stdout.write(data.decode())
"""


def _users_missing() -> bool:
    try:
        for name in USERS:
            pwd.getpwnam(name)
    except KeyError:
        return True
    return False


pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or _users_missing(),
    reason="needs root and the users pbsuser, pbsuser2 (tools/make_fidelity_users.sh)")


@pytest.fixture(scope="module")
def rig() -> Iterator[Rig]:
    cluster = Rig(hosts=("n1:ncpus=2",))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()


def raw(rig: Rig, user: str, op: str, **args: Any) -> Dict[str, Any]:
    """One request sent as ``user`` straight to the server socket; the decoded reply."""
    entry = pwd.getpwnam(user)
    message = json.dumps(dict(args, op=op))
    done = subprocess.run([USER_PYTHON, "-S", "-c", RAW_CLIENT,
                           str(paths.server_socket(rig.home)), message],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60, cwd="/",
                          preexec_fn=_become(entry.pw_uid, entry.pw_gid, user))
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert isinstance(reply, dict)
    return reply


def submit_raw(rig: Rig, user: str, **attrs: str) -> Dict[str, Any]:
    """A queuejob as qsub sends it (held, so that nothing runs), plus ``attrs``."""
    base = {"Job_Name": "probe", "Hold_Types": "u", "Variable_List": "PBS_O_HOME=/tmp"}
    return raw(rig, user, "queuejob", attrs=dict(base, **attrs), script="#!/bin/sh\nid\n",
               cwd="/tmp", env={}, host="n1")


def held_job(rig: Rig, user: str) -> str:
    return rig.qsub("true", "-h", user=user)


def all_jobs(rig: Rig) -> Dict[str, Dict[str, str]]:
    return rig.jobs()


# -- submission ------------------------------------------------------------------------------
def test_qsub_W_private_field_is_undefined(rig: Rig) -> None:
    """``qsub -W _uid=0`` ran the job as root; PBS's qsub knows no such attribute: its ECL
    refuses it before sending, ``qsub: Error (15002) submitting job``, exit 15002 % 256."""
    before = set(all_jobs(rig))
    done = rig.run(["qsub", "-W", "_uid=0", "--", "/bin/true"], user="pbsuser")
    assert (done.returncode, done.stdout, done.stderr) == (
        154, "", "qsub: Error (15002) submitting job\n")
    assert set(all_jobs(rig)) == before


def test_qsub_W_unknown_attribute(rig: Rig) -> None:
    """``qsub -W foo=bar``: an undefined attribute (issue 10: exit 154, the number only)."""
    done = rig.run(["qsub", "-W", "foo=bar", "--", "/bin/true"], user="pbsuser")
    assert (done.returncode, done.stderr) == (154, "qsub: Error (15002) submitting job\n")


@pytest.mark.parametrize("field", ["_uid", "_gid", "_user", "_group", "_id", "_cwd",
                                   "_script", "_deleted_by"])
def test_raw_queuejob_private_field(rig: Rig, field: str) -> None:
    """A raw queuejob naming a private field gets the server's 15002 ``Undefined attribute``
    (req_quejob: find_attr fails) and creates no job."""
    before = set(all_jobs(rig))
    reply = submit_raw(rig, "pbsuser", **{field: "0"})
    assert (reply.get("ok"), reply.get("code")) == (False, 15002), reply
    assert reply.get("msg") == "Undefined attribute  %s" % field
    assert set(all_jobs(rig)) == before


@pytest.mark.parametrize("name", ["job_state", "run_count_", "exec_vnode", "exec_host",
                                  "Job_Owner", "session_id", "euser", "egroup", "substate",
                                  "Exit_status", "comment", "array_id", "queue_rank_"])
def test_raw_queuejob_read_only(rig: Rig, name: str) -> None:
    """Attributes no user may write (READ_ONLY, manager-only, server-set) are refused with
    15003 ``Cannot set attribute, read only or insufficient permission`` (req_quejob's
    ``at_flags & resc_access_perm`` check); names PBS does not define at all, 15002."""
    before = set(all_jobs(rig))
    reply = submit_raw(rig, "pbsuser", **{name: "1"})
    expected = 15002 if name.endswith("_") else 15003
    assert (reply.get("ok"), reply.get("code")) == (False, expected), reply
    assert set(all_jobs(rig)) == before


def test_raw_queuejob_owner_is_the_caller(rig: Rig) -> None:
    """What a client may give is kept; who owns and runs the job is the caller, whatever the
    request says elsewhere (``user`` is no attribute)."""
    reply = submit_raw(rig, "pbsuser2", Account_Name="acct")
    assert reply.get("ok"), reply
    jobid = reply["data"]["jobid"]
    job = rig.job(jobid)
    assert job["Job_Owner"].split("@")[0] == "pbsuser2"
    assert job["Account_Name"] == "acct"
    rig.call("deljob", id=jobid)


# -- alteration ------------------------------------------------------------------------------
def test_qalter_W_private_field(rig: Rig) -> None:
    """``qalter -W _uid=0``: qalter's ECL finds no such attribute; prt_job_err without server
    text prints the number per job; exit 15002 % 256; the job is unchanged."""
    jobid = held_job(rig, "pbsuser")
    done = rig.run(["qalter", "-W", "_uid=0", jobid], user="pbsuser")
    assert (done.returncode, done.stderr) == (
        154, "qalter: Server returned error 15002 for job %s\n" % jobid)
    rig.call("deljob", id=jobid)


@pytest.mark.parametrize(("attrs", "code"), [
    ({"_uid": "0"}, 15002), ({"_user": "pbsuser2"}, 15002), ({"_deleted_by": "x"}, 15002),
    ({"Job_Owner": "pbsuser2@n1"}, 15003), ({"job_state": "R"}, 15003),
    ({"exec_vnode": "(n1:ncpus=1)"}, 15003), ({"session_id": "1"}, 15003),
    ({"euser": "root"}, 15003), ({"comment": "mine"}, 15003), ({"array": "True"}, 15003),
])
def test_raw_alterjob_refused(rig: Rig, attrs: Dict[str, str], code: int) -> None:
    """A raw alterjob of the owner's own job: private fields are undefined (15002), read-only
    and operator/manager-only attributes read only (15003; req_modifyjob), nothing changes."""
    jobid = held_job(rig, "pbsuser")
    before = rig.job(jobid)
    reply = raw(rig, "pbsuser", "alterjob", id=jobid, attrs=attrs)
    assert (reply.get("ok"), reply.get("code")) == (False, code), reply
    assert rig.job(jobid) == before
    rig.call("deljob", id=jobid)


def test_raw_alterjob_of_another_users_job(rig: Rig) -> None:
    """Another user may not alter the job even with a writable attribute (15007)."""
    jobid = held_job(rig, "pbsuser")
    reply = raw(rig, "pbsuser2", "alterjob", id=jobid, attrs={"Job_Name": "mine"})
    assert (reply.get("ok"), reply.get("code")) == (False, 15007), reply
    rig.call("deljob", id=jobid)


# -- selection -------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "code"), [
    ("_uid", 15002), ("_script", 15002), ("_user", 15002), ("nosuch", 15002),
    ("euser", 15007), ("hashname", 15007),
])
def test_raw_selectjob_criteria(rig: Rig, name: str, code: int) -> None:
    """selectjob can probe neither private fields (15002) nor attributes only managers read
    (15007, req_selectjob's read-permission check)."""
    jobid = held_job(rig, "pbsuser2")
    reply = raw(rig, "pbsuser", "selectjob", criteria=[[name, "eq", "x"]], extend="")
    assert (reply.get("ok"), reply.get("code")) == (False, code), reply
    rig.call("deljob", id=jobid)


def test_raw_selectjob_readable_criteria_still_work(rig: Rig) -> None:
    """Selection on attributes users read (job_state, Job_Owner) is PBS behaviour (qselect -s,
    -u): it stays."""
    jobid = held_job(rig, "pbsuser")
    reply = raw(rig, "pbsuser", "selectjob", criteria=[["job_state", "eq", "H"]], extend="")
    assert reply.get("ok") and jobid in reply["data"], reply
    rig.call("deljob", id=jobid)
