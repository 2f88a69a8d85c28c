"""A queue's access control lists, where PBS checks them: whenever a job enters a queue.

svr_chkque (svr_jobfunc.c) runs for a submission (req_quejob, ``MOVE_TYPE_Move``) and for a
``qmove`` (svr_movejob.c local_move): step 4, with ``acl_host_enable`` the job's submit host or
the host the request came from must be allowed by ``acl_hosts`` (else PBSE_BADHOST, 15008);
5a, with ``acl_user_enable`` the job's owner (``Job_Owner``, user@host) must be allowed by
``acl_users``; 5b, with ``acl_group_enable`` one of the execution user's groups must be allowed
by ``acl_groups`` (else PBSE_PERM, 15007).  A manager's ``qmove`` (``MOVE_TYPE_MgrMv``: the
manager bit, not an operator's) skips all three; a manager's own submission does not.  qalter
changes no queue, so no ACL applies there.  Lists match as fake_pbs/model/acl.py says.
"""
from typing import Any, Dict

from fake_pbs.model import acl
from fake_pbs.model.attrs import is_true
from fake_pbs.model.errors import PBSE_BADHOST, PBSE_PERM, PbsError


def check(app: Any, queue: Dict[str, str], job: Dict[str, Any], manager_move: bool = False) -> None:
    """Raise PBS's error when ``job`` may not enter ``queue``."""
    if manager_move:
        return
    server_host = str(app.host)
    if is_true(queue.get("acl_host_enable")):
        hosts = str(queue.get("acl_hosts") or "")
        submit_host = str(job.get("Submit_Host") or server_host)
        # the request's host: every client of the fake is on the server's host
        if not (acl.check(hosts, submit_host, acl.HOST, server_host)
                or acl.check(hosts, server_host, acl.HOST, server_host)):
            raise PbsError(PBSE_BADHOST)
    if is_true(queue.get("acl_user_enable")):
        if not acl.check(str(queue.get("acl_users") or ""), str(job.get("Job_Owner", "")),
                         acl.USER, server_host):
            raise PbsError(PBSE_PERM)
    if is_true(queue.get("acl_group_enable")):
        if not acl.check(str(queue.get("acl_groups") or ""), str(job.get("_user", "")),
                         acl.GROUP, server_host):
            raise PbsError(PBSE_PERM)
