"""What each hook outcome does to a job and writes to the logs, as the extra set's m section
shows it (OpenPBS 23.06.06): an execjob_begin rejection is the mom's refusal of the job send
(m04), an execjob_launch rejection a run that failed (m05), a runjob rejection a qrun the
scheduler answers (m03), and the server compiles a hook's script once per import (m01e-m11k).
"""
from .hookrig import Cluster

EB_REJECT = "e.reject('execjob_begin hook eb_reject refuses %s' % e.job.id)\n"
EL_REJECT = "e.reject('execjob_launch hook el_reject refuses %s' % e.job.id)\n"
RJ_REJECT = "e.reject('runjob hook rj_reject refuses %s' % e.job.id)\n"
QJ_LOG = "pbs.logmsg(pbs.LOG_DEBUG, 'qj ran')\ne.accept()\n"


def test_begin_reject_requeues_without_a_run_then_holds(hc: Cluster) -> None:
    """m04b-m04g: the send is refused 21 times (server log ``send of job to ... failed error =
    15169 reject_msg=,<msg>``, ``Unable to Run Job, MOM rejected``, ``hook rejected request``),
    then the job is held: H, Hold_Types s, run_count 21, no Exit_status, stime or obittime, no
    S/R/E accounting record; the mom logs no obit and runs no execjob_end."""
    accounting_dir = hc.home / "server_priv" / "accounting"
    sizes = {p: p.stat().st_size for p in accounting_dir.glob("*")}
    hc.hook("eb_reject", "execjob_begin", EB_REJECT)
    hc.hook("end_log", "execjob_end", "pbs.logmsg(pbs.LOG_DEBUG, 'end ran')\n")
    hc.set_server("scheduling", "True")
    jobid = hc.submit("-l", "select=1:ncpus=1")
    # 21 scheduler cycles and mom round trips: minutes on a loaded machine, a bound, not a pace
    attrs = hc.wait(jobid, "H", timeout=240)
    hc.set_server("scheduling", "False")
    assert attrs["run_count"] == "21"
    assert attrs["Hold_Types"] == "s"
    assert attrs["comment"] == "job held, too many failed attempts to run"
    for name in ("Exit_status", "stime", "obittime", "exec_host", "exec_vnode"):
        assert name not in attrs, name
    # the 21st refusal's lines may be written just after the hold is visible: wait for them
    for needle in ("send of job to node1 failed error = 15169 reject_msg=,execjob_begin hook "
                   "eb_reject refuses %s" % jobid, "Unable to Run Job, MOM rejected",
                   ";%s;hook rejected request" % jobid):
        assert len(hc.wait_log("server", needle, count=21)) == 21, needle
    assert not hc.messages("server", "Obit received")
    accounting = "".join(p.read_bytes()[sizes.get(p, 0):].decode()
                         for p in sorted(accounting_dir.glob("*")))
    records = [line.split(";")[1] for line in accounting.splitlines()
               if ";%s;" % jobid in line]
    assert records == ["Q"]
    assert not hc.messages("mom:node1", "Obit sent")
    assert not hc.messages("mom:node1", "end ran")
    assert not list((hc.home / "mom_priv" / "node1" / "jobs").glob(jobid + "*")), \
        "a refused job leaves nothing on the mom"


def test_launch_reject_ends_the_job_with_empty_output_staged(hc: Cluster) -> None:
    """m05c/m05d/m05f: F, Exit_status -17, only resources_used.walltime; the empty output
    files were opened before the hook ran and are staged out (``Staged 2/2 items``)."""
    hc.hook("el_reject", "execjob_launch", EL_REJECT)
    jobid = hc.submit("-N", "elreject")
    hc.runjob(jobid, "(node1:ncpus=1)")
    attrs = hc.wait(jobid, "F")
    assert attrs["Exit_status"] == "-17"
    assert sorted(n for n in attrs if n.startswith("resources_used.")) == \
        ["resources_used.walltime"]
    hc.wait_log("mom:node1", "Staged 2/2 items out")
    seq = jobid.split(".")[0]
    output = [p for p in hc.home.rglob("elreject.[oe]%s" % seq)]
    assert len(output) == 2 and all(p.stat().st_size == 0 for p in output), output
    assert hc.messages("server", "hook rejected request, requiring job to be deleted")
    hc.wait_log("mom:node1", "%s;kill_job" % jobid)
    tail = hc.messages("mom:node1", jobid)
    tail = tail[tail.index("Obit sent"):]
    assert tail == ["Obit sent", "no active tasks", "copy file request received",
                    "Staged 2/2 items out over 0:00:00", "no active tasks",
                    "delete job request received", "kill_job"]


def test_moms_log_the_hook_files_they_receive(hc: Cluster) -> None:
    """m04f/m05e/m06d: a mom hook's files reach the moms, which log ``copy hook-related file
    request received`` on NAME.HK and NAME.PY before the server's ``successfully sent``."""
    hc.hook("epi_log", "execjob_epilogue", "e.accept()\n")
    hc.wait_log("server", "successfully sent hook file %s/server_priv/hooks/epi_log.PY to "
                "node3" % hc.home)
    for host in ("node1", "node2", "node3"):
        received = [line.split(";", 5)[4:] for line in hc.log_lines("mom:" + host)
                    if ";epi_log." in line]
        assert received == [["epi_log.HK", "copy hook-related file request received"],
                            ["epi_log.PY", "copy hook-related file request received"]]


def test_qrun_of_a_runjob_rejected_job_is_answered_by_the_scheduler(hc: Cluster) -> None:
    """m03d/m03f: ``qrun: Failed to run: <reject message> (15136) <id>`` exit 2; the scheduler
    logs ``Received qrun request``, ``Considering job to run``, ``Failed to run: ...``."""
    hc.hook("rj_reject", "runjob", RJ_REJECT)
    hc.set_server("scheduling", "True")
    jobid = hc.submit()
    text = "Failed to run: runjob hook rj_reject refuses %s (15136)" % jobid
    hc.wait_log("sched", text)
    done = hc.run(["qrun", jobid])
    hc.set_server("scheduling", "False")
    assert (done.returncode, done.stderr) == (2, "qrun: %s %s\n" % (text, jobid))
    assert hc.messages("sched", jobid)[-3:] == ["Received qrun request",
                                                "Considering job to run", text]
    # the scheduler set the comment once (a modify request), the qrun left it as it was
    assert len(hc.messages("server", "%s;Job Modified at request of Scheduler@" % jobid)) == 1
    attrs = hc.job(jobid)
    assert attrs["job_state"] == "Q"
    assert attrs["comment"] == "Not Running: PBS Error: runjob hook rj_reject refuses %s" \
        % jobid


def test_server_compiles_a_hook_once_per_import_from_its_own_file(hc: Cluster) -> None:
    """m01e/m02e/m11k: ``Compiling script file: <.../server_priv/hooks/tmp/qmgr_hook...tmp>``
    at each import, then ``<.../server_priv/hooks/NAME.PY>`` at the first run after it only;
    the hook's NAME.HK/.PY/.CF files are in server_priv/hooks (m11i) and
    pbs.hook_config_filename names NAME.CF (m11k)."""
    hc.hook("qj_log", "queuejob", "pbs.logmsg(pbs.LOG_DEBUG, 'cfg=%s' % "
            "pbs.hook_config_filename)\n")
    hc.call("hookio", command="import", name="qj_log", content_type="application/x-config",
            encoding="default", content="k=v\n")
    for _ in range(2):
        hc.submit()
    hooks = hc.home / "server_priv" / "hooks"
    compiled = hc.messages("server", "Compiling script file")
    assert compiled[0].startswith("Compiling script file: <%s/tmp/qmgr_hook" % hooks)
    assert compiled[0].endswith(".tmp>")
    assert compiled[1:] == ["Compiling script file: <%s/qj_log.PY>" % hooks]
    assert hc.messages("server", "cfg=") == ["cfg=%s/qj_log.CF" % hooks] * 2
    assert sorted(p.name for p in hooks.glob("qj_log.*")) == \
        ["qj_log.CF", "qj_log.HK", "qj_log.PY"]
    hc.call("hookio", command="import", name="qj_log", content_type="application/x-python",
            encoding="default", content="import pbs\npbs.event().accept()\n")
    hc.submit()
    assert hc.messages("server", "Compiling script file: <%s/qj_log.PY>" % hooks) == \
        ["Compiling script file: <%s/qj_log.PY>" % hooks] * 2
    hc.qmgr("delete hook qj_log")
    assert not list(hooks.glob("qj_log.*"))


def test_import_of_a_syntax_error_logs_the_compile_failure(hc: Cluster) -> None:
    """m09a/m09d: rc 32 ``Failed to compile script``; the server logs the import, the compile
    of qmgr's temporary file, and Python's exception type and arguments (15011)."""
    hc.qmgr("create hook syn_err event=queuejob")
    source = hc.home / "syntax_err.py"
    source.write_text("import pbs\ne = pbs.event(\ndef broken(:\n    pass\ne.accept()\n")
    done = hc.run(["qmgr", "-c", "import hook syn_err application/x-python default %s"
                   % source])
    assert done.returncode == 32
    assert done.stderr == "qmgr obj=syn_err svr=default: Failed to compile script\n" \
        "qmgr: hook error returned from server\n"
    try:
        compile(source.read_text(), "<embedded code object>", "exec")
    except SyntaxError as exc:
        args = str(exc.args)  # the server's Python says it (3.11: with the end position)
    tail = [m for m in hc.messages("server") if "ompil" in m or "mgr_hook_import" in m]
    assert tail[0].startswith("mgr_hook_import at request of ")
    assert tail[1].startswith("Compiling script file: <")
    assert tail[2:4] == [
        "PBS server internal error (15011) in Failed to compile script, <class 'SyntaxError'>",
        "PBS server internal error (15011) in Failed to compile script, %s" % args]


def test_a_job_after_a_refused_run_gets_the_first_free_slot(hc: Cluster) -> None:
    """m05c/m05f: the server numbers exec_host slots when it runs a job; a run the runjob hook
    refused earlier in the same cycle holds none (vm/0, not the slot the cycle planned)."""
    hc.hook("rj_reject", "runjob", "if e.job.Job_Name == 'refused':\n"
            "    e.reject('no')\ne.accept()\n")
    first = hc.submit("-N", "refused")
    second = hc.submit("-N", "runs")
    hc.set_server("scheduling", "True")
    attrs = hc.wait(second, "R")
    hc.set_server("scheduling", "False")
    assert hc.job(first)["job_state"] == "Q"
    assert attrs["exec_host"].endswith("/0"), attrs["exec_host"]
