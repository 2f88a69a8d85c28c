"""The limits PBS's mom puts on a job's processes (mom_mach.c mom_set_limits) and those it polls
(mom_main.c mom_over_limit), against a real mom (fake_pbs/mom/limits.py, rlimits.py)."""
import os

import pytest

from fake_pbs.mom import limits, rlimits

from .momrig import MomRig, kinds

BUSY = "python3 -c 'while True: pass'"


def _log(node1: MomRig) -> str:
    return "".join(p.read_text() for p in (node1.home / "mom_logs" / "node1").iterdir())


def test_set_limits_are_the_job_processes_rlimits_and_nice(node1: MomRig) -> None:
    """mom_mach.c mom_set_limits: file -> RLIMIT_FSIZE, pvmem or the host's vmem (the lesser)
    -> RLIMIT_AS, pmem or the host's mem -> RLIMIT_RSS, cput/pcput (the lesser) ->
    RLIMIT_CPU, soft and hard alike; nice -> the job's niceness."""
    script = ("echo f=$(ulimit -f) v=$(ulimit -v) m=$(ulimit -m) t=$(ulimit -t) "
              "H=$(ulimit -H -t)\npython3 -c 'import os; print(\"ni=%d\" % os.nice(0))'\n")
    job = node1.spec("1.vm", script, exec_vnode="(node1:ncpus=1:vmem=900mb:mem=1gb)",
                     attrs={"Resource_List.file": "2kb", "Resource_List.pvmem": "800mb",
                            "Resource_List.pmem": "100mb", "Resource_List.cput": "00:01:40",
                            "Resource_List.pcput": "50", "Resource_List.nice": "5"})
    events = node1.run("node1", job)
    assert kinds(events) == ["start", "finish", "release"] and events[1]["status"] == 0
    assert (node1.user_home / "job.o1").read_text() == (
        "f=2 v=819200 m=102400 t=50 H=50\nni=5\n")


def test_pcput_kills_the_process_over_it(node1: MomRig) -> None:
    """mom_set_limits: pcput is RLIMIT_CPU, soft and hard alike, so the kernel ends a process
    at it with SIGKILL (the hard limit wins over SIGXCPU; bash: 128 + 9); the job goes on."""
    job = node1.spec("2.vm", BUSY + "\necho status=$?\n", attrs={"Resource_List.pcput": "1"})
    events = node1.run("node1", job)
    assert events[1]["status"] == 0
    assert (node1.user_home / "job.o2").read_text() == "status=137\n"


def test_file_limit_stops_a_bigger_write(node1: MomRig) -> None:
    """mom_set_limits: file is RLIMIT_FSIZE; a write past it gets SIGXFSZ (128 + 25)."""
    job = node1.spec("3.vm", "head -c 4096 /dev/zero > $TMPDIR/big\necho status=$?\n"
                     "stat -c %s $TMPDIR/big\n", attrs={"Resource_List.file": "1kb"})
    node1.run("node1", job)
    assert (node1.user_home / "job.o3").read_text() == "status=153\n1024\n"


def test_cput_over_the_job_total_kills_the_job(node1: MomRig) -> None:
    """mom_main.c mom_over_limit: the job's cput (its processes and their reaped children,
    mom_mach.c cput_sum) over Resource_List.cput: ``cput N exceeded limit 2`` in the mom log
    and on the job's stderr, Exit_status JOB_EXEC_KILL_CPUT (-28)."""
    script = "for i in 1 2 3; do %s & done\nwait\nsleep 60\n" % BUSY
    job = node1.spec("4.vm", script, attrs={"Resource_List.cput": "2"}, kill_delay=2)
    events = node1.run("node1", job)
    assert events[1]["status"] == limits.JOB_EXEC_KILL_CPUT == -28
    err = (node1.user_home / "job.e4").read_text()
    assert err.startswith("=>> PBS: job killed: cput ") and err.endswith(" exceeded limit 2\n")
    assert ";pbs_mom;Job;4.vm;cput " in _log(node1)


def test_vmem_over_the_host_share_kills_the_job(node1: MomRig) -> None:
    """mom_main.c mom_over_limit: the job's live virtual memory on the host over its vmem
    there (each process stays under RLIMIT_AS): ``vmem Nkb exceeded limit 307200kb``,
    Exit_status JOB_EXEC_KILL_VMEM (-26).  The share is the one exec_vnode gives, which PBS's
    scheduler writes only with vmem on sched_config's resources: line (node_info.cpp
    parse_selspec drops the others)."""
    hold = "python3 -c 'import mmap, time; m = mmap.mmap(-1, 150 << 20); time.sleep(60)'"
    script = "for i in 1 2 3; do %s & done\nwait\n" % hold
    job = node1.spec("5.vm", script, exec_vnode="(node1:ncpus=1:vmem=300mb)", kill_delay=2)
    events = node1.run("node1", job)
    assert events[1]["status"] == limits.JOB_EXEC_KILL_VMEM == -26
    err = (node1.user_home / "job.e5").read_text()
    assert err.startswith("=>> PBS: job killed: vmem ")
    assert err.endswith("kb exceeded limit 307200kb\n")


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to become another user")
def test_a_limit_that_cannot_be_set_fails_the_start() -> None:
    """mom_mach.c mom_set_limits -> start_exec.c error(): the msg_momsetlim line."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # an ordinary user may not lower its niceness
        os.close(read)
        os.setuid(65534)
        os.write(write, (rlimits.apply({"nice": -5}) or "").encode())
        os._exit(0)
    os.close(write)
    message = os.read(read, 4096).decode()
    os.close(read)
    os.waitpid(child, 0)
    assert message == ('Job start failed.  Can\'t set "nice" limit: '
                       'Illegal attribute or resource value.\n')


def test_limits_of_a_request() -> None:
    """The host's share of vmem/mem comes from the job's chunks there (hn_nrlimit)."""
    attrs = {"Resource_List.cput": "10", "Resource_List.pvmem": "1gb"}
    vnode = "(a:ncpus=1:vmem=100mb)+(b:vmem=1gb)+(a:vmem=100mb)"
    assert limits.process_limits(attrs, vnode, "a") == {"cpu": 10, "as": 200 << 20}
    assert limits.over_limit(attrs, vnode, "b", True, {"cput": 11}) == (
        "cput", "cput 11 exceeded limit 10")
    assert limits.over_limit(attrs, vnode, "b", False, {"cput": 11}) is None
