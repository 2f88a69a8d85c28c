"""``user = pbsuser`` hooks run as the job's owner (reference §6.1: USER_MOM_EVENTS are
execjob_prologue, execjob_epilogue and execjob_preterm; PBS's mom starts them with
``runas_jobuser=1``); ``pbsadmin`` hooks, and every other event, run as the daemon (root)."""
import os
import pwd

import pytest

from fake_pbs.testing import wait_for

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


@pytest.mark.root
def test_an_owner_hook_may_not_set_euser(hc: Cluster) -> None:
    """A ``user = pbsuser`` hook's result is the owner's to write, so the mom drops an
    ``euser`` change from it and logs PBS's line (mom_hook_func.c get_hook_results: "ignoring
    setting attribute euser, executing hook has user=pbsuser"); its other changes apply."""
    _owner()
    hc.hook("u_pro", "execjob_prologue", "e.job.euser = 'root'\ne.job.Priority = 7\n",
            user="pbsuser")
    jobid = hc.submit(body="sleep 30", user="pbsuser")
    hc.runjob(jobid, "(node1:ncpus=1)")
    hc.wait(jobid, "R", run_count=1)
    hc.wait_log("mom:node1", "ignoring setting attribute euser, executing hook has "
                "user=pbsuser")
    wait_for(lambda: hc.job(jobid).get("Priority") == "7", 30,
             lambda: "Priority not set: %r" % hc.job(jobid))
    assert hc.job(jobid).get("euser") in (None, "pbsuser"), hc.job(jobid)
    hc.sh("qdel", jobid)
    hc.wait(jobid, "F", run_count=1)


@pytest.mark.root
def test_an_owner_hook_result_is_never_read_through_a_link(hc: Cluster) -> None:
    """An owner-run hook that leaves a link to root's file where its result goes gets no
    result (a hook exception), and nothing of that file reaches the log: the mom reads the
    result without following links, only as a file of the hook's user (OpenPBS moves the
    result out of the spool and reads it as its own; here the read is checked instead)."""
    _owner()
    victim = hc.home / "root-only.json"
    victim.write_text('{"result": "reject", "message": "root-only-secret-31"}')
    victim.chmod(0o600)
    hc.hook("u_pro", "execjob_prologue", "import os, sys\nos.symlink(%r, sys.argv[2])\n"
            "os._exit(0)\n" % str(victim), user="pbsuser")
    jobid = hc.submit(body="sleep 30", user="pbsuser")
    hc.runjob(jobid, "(node1:ncpus=1)")
    hc.wait_log("mom:node1", "hook 'u_pro' encountered an exception")
    assert not hc.messages("mom:node1", "root-only-secret-31")
    hc.sh("qdel", jobid)
