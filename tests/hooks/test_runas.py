"""``user = pbsuser`` hooks run as the job's owner (reference §6.1: USER_MOM_EVENTS are
execjob_prologue, execjob_epilogue and execjob_preterm; PBS's mom starts them with
``runas_jobuser=1``); ``pbsadmin`` hooks, and every other event, run as the daemon (root)."""
import os
import pwd

import pytest

from .hookrig import Cluster

WHO = "import os\npbs.logmsg(pbs.LOG_DEBUG, '%s %s uid=%d gid=%d' % (e.hook_name, " \
      "pbs.get_local_nodename(), os.getuid(), os.getgid()))\n"


def _owner() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("needs root: a hook can only run as the job's owner in a root cluster")
    try:
        return pwd.getpwnam("pbsuser")
    except KeyError:
        pytest.skip("needs the user pbsuser (tools/make_fidelity_users.sh creates it)")


@pytest.mark.root
def test_pbsuser_hooks_run_as_the_job_owner(hc: Cluster) -> None:
    """prologue, epilogue and preterm hooks with user=pbsuser run as the owner (their
    pbs.logmsg lines still reach the mom's log); the same events with the default user
    pbsadmin, and an execjob_begin hook, run as root."""
    owner = _owner()
    for event in ("execjob_prologue", "execjob_epilogue", "execjob_preterm"):
        short = event.split("_")[1]
        hc.hook("u_" + short, event, WHO, user="pbsuser")
        hc.hook("a_" + short, event, WHO)
    hc.hook("u_begin", "execjob_begin", WHO)
    jobid = hc.submit(body="sleep 30", user="pbsuser")
    hc.runjob(jobid, "(node1:ncpus=1)")
    hc.wait(jobid, "R", run_count=1)
    hc.wait_log("mom:node1", "u_prologue node1")
    hc.sh("qdel", jobid)
    hc.wait(jobid, "F", run_count=1)
    hc.wait_log("mom:node1", "a_epilogue node1")
    as_owner = "uid=%d gid=%d" % (owner.pw_uid, owner.pw_gid)
    for name in ("u_prologue", "u_epilogue", "u_preterm"):
        assert hc.messages("mom:node1", "%s node1 %s" % (name, as_owner)), name
    for name in ("a_prologue", "a_epilogue", "a_preterm", "u_begin"):
        assert hc.messages("mom:node1", "%s node1 uid=0 gid=0" % name), name
