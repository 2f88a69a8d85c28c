"""pbs_attach (src/cmds/pbs_attach.c, pbs_attach_sup.c) and the mom's TM_ATTACH
(src/resmom/mom_comm.c tm_request): the session of a process becomes a task of the job, is
killed when the job ends and counted in resources_used; execjob_attach runs first and may
reject (TM_EHOOK).  Messages are get_ecname's (src/lib/Libifl/tm.c), as transcript D25 shows.
"""
import os
import re
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from fake_pbs.testing import FakeCluster

from .rig import started_cluster
from .test_tm import SELECT2, processes_with, run_job, wait_until

pytestmark = pytest.mark.cluster  # starts its own cluster (docs/testing.md)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    yield from started_cluster(tmp_path_factory, "attach")


def test_usage_errors(cluster: FakeCluster) -> None:
    """pbs_attach.c main: each conflict has its line, then the usage, exit 2."""
    def run(*argv: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run(["pbs_attach"] + list(argv), env=cluster.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60)
    usage = ("usage: pbs_attach [-j jobid] [-m port] -p pid\n"
             "usage: pbs_attach [-j jobid] [-m port] [-P] [-s] cmd [arg1 ...]\n"
             "usage: pbs_attach --version\n")
    assert (run("-p", "12", "-s").returncode, run("-p", "12", "-s").stderr) == (
        2, "cannot specify pid and session\n" + usage)
    assert run("-p", "12", "-P", "x").stderr == (
        "cannot specify pid and parent\ncannot specify pid and command\n" + usage)
    assert run("-p", "x1").stderr == "bad pid: x1\nmust specify pid or command\n" + usage


def test_attach_inside_a_job(cluster: FakeCluster) -> None:
    """In the job shell's session the attach is TM_ESESSION (no error) and the command runs;
    ``-s`` gives it a session of its own, which becomes a task; an unknown job, or a process
    that does not exist, is PBS's error and exit 1."""
    text = run_job(cluster, "\n".join([
        "pbs_attach -j $PBS_JOBID /bin/echo same-session; echo rc=$?",
        "pbs_attach -j $PBS_JOBID -s sh -c 'echo own-session; exit 4'; echo rc=$?",
        "pbs_attach -j 99999.vm /bin/true; echo rc=$?",
        "pbs_attach -j $PBS_JOBID -p 999999999; echo rc=$?",
        "pbs_attach -j $PBS_JOBID /nonexistent; echo rc=$?",
        "sister=$(tail -n 1 $PBS_NODEFILE); echo sister=$sister",  # the primary's lines first
        "pbs_tmrsh $sister pbs_attach -j $PBS_JOBID -s /bin/echo on-the-sister",
    ]), *SELECT2)
    lines = text.splitlines()
    assert lines[:4] == ["same-session", "rc=0", "own-session", "rc=4"], text
    assert "pbs_attach: tm_attach: no matching job found (17006)" in lines, text
    assert "pbs_attach: tm_attach: process does not exist (17011)" in lines, text
    assert "/nonexistent: No such file or directory" in lines, text
    assert lines.count("rc=1") == 2 and "rc=255" in lines, text
    assert "on-the-sister" in lines, text
    sister_host = [line for line in lines if line.startswith("sister=")][0][len("sister="):]
    primary_host = {"node1": "node2", "node2": "node1"}[sister_host]
    logs = Path(cluster.home) / "mom_logs"
    primary = "\n".join(p.read_text() for p in (logs / primary_host).glob("*"))
    sister = "\n".join(p.read_text() for p in (logs / sister_host).glob("*"))
    assert " attached as task 00000002" in primary
    # beside pbs_tmrsh's task 1; the command is the interpreter the fake's commands run under
    # (python or python3, as the suite was started)
    assert re.search(r"cmd python[\d.]* attached as task 00000002", sister), sister


def test_attached_process_ends_with_the_job_and_counts(cluster: FakeCluster) -> None:
    """A process outside the job (its own session) attached with -p is killed when the job is
    deleted; one attached to a sister's host (-h) too; execjob_attach sees its pid."""
    marker = "33%d" % (os.getpid() % 1000)
    workdir = Path(cluster.home) / "attach-p"
    workdir.mkdir()
    workdir.chmod(0o777)
    jobid = cluster.qsub("touch %s/started; sleep 300" % workdir, *SELECT2, cwd=str(workdir))
    assert wait_until(lambda: (workdir / "started").exists(), 60.0)
    spun = workdir / "spun"
    spinner = subprocess.Popen(  # 1.5 s of CPU, then it says so and sleeps
        ["python3", "-c", "import sys, time\nwhile time.process_time() < 1.5: pass\n"
         "open(sys.argv[1], 'w').close()\ntime.sleep(300)", str(spun), marker],
        start_new_session=True)
    sleeper = subprocess.Popen(["sleep", marker], start_new_session=True)
    try:
        for pid, extra in ((spinner.pid, []), (sleeper.pid, ["-h", "node2"])):
            done = subprocess.run(["pbs_attach", "-j", jobid, "-p", str(pid)] + extra,
                                  env=cluster.env, stderr=subprocess.PIPE,
                                  universal_newlines=True, timeout=60)
            assert (done.returncode, done.stderr) == (0, "")
        assert wait_until(spun.exists, 60.0)
        cluster.sh("qdel", jobid)
        attrs = cluster.wait(jobid, "F", 90.0)
        assert wait_until(lambda: spinner.poll() is not None and sleeper.poll() is not None,
                          30.0)
        hours, minutes, seconds = (int(x) for x in attrs["resources_used.cput"].split(":"))
        assert hours * 3600 + minutes * 60 + seconds >= 1, attrs["resources_used.cput"]
    finally:
        for proc in (spinner, sleeper):
            if proc.poll() is None:
                proc.kill()
            proc.wait(10)
    assert not processes_with(marker)


def test_execjob_attach_hook_runs_and_may_reject(cluster: FakeCluster) -> None:
    """mom_process_hooks(HOOK_EVENT_EXECJOB_ATTACH): the hook sees the job and the pid; a
    reject is ``a hook has rejected the task manager request (17012)``."""
    body = ("import pbs\ne = pbs.event()\n"
            "pbs.logmsg(pbs.LOG_DEBUG, 'attach pid %s job %s' % (e.pid, e.job.id))\n"
            "if e.job.Job_Name == 'refuse':\n    e.reject('no attach')\n")
    cluster.hook("attachhook", "execjob_attach", body)
    try:
        text = run_job(cluster, "pbs_attach -s /bin/echo attached; echo rc=$?", *SELECT2)
        refused = run_job(cluster, "pbs_attach -s /bin/echo attached; echo rc=$?",
                          "-N", "refuse", *SELECT2)
    finally:
        cluster.call("manager", command="delete", objtype="hook", name="attachhook", attrs=[])
    assert text.splitlines() == ["attached", "rc=0"], text
    assert sorted(refused.splitlines()) == [
        "pbs_attach: tm_attach: a hook has rejected the task manager request (17012)",
        "rc=1"], refused
    log = "\n".join(p.read_text() for p in (Path(cluster.home) / "mom_logs").glob("*/*"))
    assert "attach pid " in log
