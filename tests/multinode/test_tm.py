"""pbsdsh, pbs_tmrsh and pbs_attach, and MPI across the fake hosts (issue 23).

Behaviour pinned: OpenPBS src/cmds/pbsdsh.c, src/cmds/pbs_tmrsh.c, src/cmds/pbs_attach.c and
the group D transcripts of /work/shared/fidelity/openpbs-23.06.06-resv (D01-D11, D20-D25):
messages, exit codes, the task's environment; tasks run under the mom of the named host and
end with the job (src/resmom/mom_comm.c kill_job).  MPI tests are skipped, with the reason,
where Debian's mpich / openmpi-bin are not installed (.ci/run installs them as root).
"""
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Dict, Iterator, List, Union

import pytest

from fake_pbs.testing import FakeCluster

from .rig import started_cluster

pytestmark = pytest.mark.cluster  # starts its own cluster (docs/testing.md)

HERE = Path(__file__).resolve().parent
SELECT2 = ("-l", "select=2:ncpus=2:mpiprocs=2", "-l", "place=scatter")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    yield from started_cluster(tmp_path_factory, "multinode")


def run_job(cluster: FakeCluster, body: str, *options: str, timeout: float = 90.0) -> str:
    """Submit ``body``, wait for the end, return its stdout then its stderr."""
    workdir = Path(cluster.home) / ("job-%d" % time.monotonic_ns())
    workdir.mkdir()
    workdir.chmod(0o755)
    out, err = workdir / "out", workdir / "err"
    jobid = cluster.qsub(body, "-o", str(out), "-e", str(err), *options, cwd=str(workdir))
    cluster.wait(jobid, "F", timeout)
    return out.read_text() + err.read_text()


def processes_with(marker: str, exact: bool = False) -> List[int]:
    """Pids whose command line contains ``marker`` (is it, NUL-separated, with ``exact``)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as handle:
                line = handle.read()
                if (line == marker.encode() + b"\0") if exact else marker.encode() in line:
                    found.append(int(entry))
        except OSError:
            continue
    return found


def wait_until(condition: "object", timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


# ---- pbsdsh and pbs_tmrsh inside a job -----------------------------------------------------------

def test_pbsdsh_runs_on_every_node_and_on_the_named_one(cluster: FakeCluster) -> None:
    """D01/D08: one task per PBS_NODEFILE line, TASKNUM 8 hex digits from 2 on the primary,
    NODENUM the host's index; D02 ``-n``; D04 a task that cannot exec ends 254, pbsdsh 0."""
    text = run_job(cluster, "\n".join([
        "pbsdsh -- sh -c 'echo task $PBS_NODENUM $PBS_TASKNUM'",
        "echo rc=$?",
        "pbsdsh -n 1 -- sh -c 'echo only $PBS_NODENUM; exit 3'",
        "echo rc=$?",
        "pbsdsh -n 0 -- /nonexistent",
        "echo rc=$?",
    ]), "-l", "select=2:ncpus=1", "-l", "place=scatter")
    lines = text.splitlines()
    assert sorted(line for line in lines if line.startswith("task ")) == [
        "task 0 00000002", "task 1 00000001"], text
    assert "only 1" in lines
    assert "pbsdsh: task 0x00000000 exit status 3" in lines
    assert "pbsdsh: task 0x00000000 exit status 254" in lines
    assert lines.count("rc=0") == 3
    assert any(line.endswith(": No such file or directory") for line in lines)


def test_pbsdsh_verbose_lines(cluster: FakeCluster) -> None:
    """D03: pbsdsh -v's spawn, waiting and exit status lines."""
    text = run_job(cluster, "pbsdsh -v -- /bin/true", "-l", "select=1:ncpus=1")
    assert text.splitlines() == [
        "pbsdsh: spawned task 0x00000000 on logical node 0 event 2",
        "pbsdsh: waiting on 1 spawned and 0 obits",
        "pbsdsh: waiting on 0 spawned and 1 obits",
        "pbsdsh: task 0x00000000 exit status 0"]


def test_pbs_tmrsh_host_exit_status_and_environment(cluster: FakeCluster) -> None:
    """D05-D07: the task's output goes to the job's files, its exit status is pbs_tmrsh's;
    the task environment (D06: no PBS_NODEFILE); an unknown host is 255 with PBS's line."""
    text = run_job(cluster, "\n".join([
        "pbs_tmrsh node2 sh -c 'echo env $PBS_NODENUM $PBS_TASKNUM ${PBS_NODEFILE-unset} "
        "$PBS_ENVIRONMENT; exit 7'",
        "echo rc=$?",
        "pbs_tmrsh nosuchhost /bin/true",
        "echo rc=$?",
    ]), *SELECT2)
    lines = text.splitlines()
    assert "env 1 00000001 unset PBS_BATCH" in lines
    assert "rc=7" in lines and "rc=255" in lines
    jobid = [line for line in lines if "is not a node in job" in line][0].split("<")[1][:-1]
    assert 'pbs_tmrsh: host "nosuchhost" is not a node in job <%s>' % jobid in lines


def test_commands_outside_a_job(cluster: FakeCluster) -> None:
    """D20-D25: messages and exit codes outside a job and without arguments."""
    env = {k: v for k, v in cluster.env.items() if not k.startswith("PBS_")}

    def run(*argv: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run(list(argv), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60)

    done = run("pbsdsh", "--", "/bin/echo", "hi")
    assert (done.returncode, done.stderr) == (1, "pbsdsh: not executing under PBS\n")
    done = run("pbsdsh")
    assert done.returncode == 1 and done.stderr.startswith("Usage: pbsdsh [-c copies]")
    done = run("pbs_tmrsh", "vm", "/bin/echo", "hi")
    assert (done.returncode, done.stderr) == (255, "pbs_tmrsh: not executing under PBS\n")
    done = run("pbs_tmrsh")
    assert done.returncode == 255 and done.stderr.startswith("usage: pbs_tmrsh [-n]")
    done = run("pbs_attach")
    assert done.returncode == 2 and done.stderr.startswith("must specify pid or command\n")
    done = run("pbs_attach", "-j", "1.vm", "/bin/true")
    assert (done.returncode, done.stderr) == (
        1, "pbs_attach: tm_attach: no matching job found (17006)\n")


@pytest.mark.parametrize("how", ["qdel", "walltime", "end"])
def test_tasks_on_every_host_end_with_the_job(cluster: FakeCluster, how: str) -> None:
    """kill_job: a deleted job, one over its walltime, or one whose shell exits while its
    tasks run, leaves no task on any host."""
    marker = "31%d" % (os.getpid() % 1000 + {"qdel": 0, "walltime": 1000, "end": 2000}[how])
    options = list(SELECT2) + (["-l", "walltime=00:00:08"] if how == "walltime" else [])
    workdir = Path(cluster.home) / ("kill-%s" % how)
    workdir.mkdir()
    workdir.chmod(0o777)
    ending = ("until [ -e %s/go ]; do sleep 0.2; done" % workdir) if how == "end" else "wait"
    jobid = cluster.qsub("pbs_tmrsh node1 sleep %s & pbs_tmrsh node2 sleep %s & %s"
                         % (marker, marker, ending), *options, cwd=str(workdir))
    try:
        assert wait_until(lambda: len(processes_with("sleep\0" + marker, True)) == 2, 60.0)
        if how == "qdel":
            cluster.sh("qdel", jobid)
        if how == "end":
            (workdir / "go").touch()
        cluster.wait(jobid, "F", 90.0)
        assert wait_until(lambda: not processes_with("sleep\0" + marker, True), 30.0)
    finally:
        for pid in processes_with("sleep\0" + marker, True):
            os.kill(pid, 9)


# ---- MPI ----------------------------------------------------------------------------------------

MPIS = {"mpich": ("mpicc.mpich", "mpiexec.hydra"),
        "openmpi": ("mpicc.openmpi", "mpiexec.openmpi")}


def _mpi_program(kind: str, home: Path) -> Path:
    compiler, launcher = MPIS[kind]
    for tool in (compiler, launcher):
        if shutil.which(tool) is None:
            pytest.skip("%s is not installed (Debian's %s; .ci/run installs it as root)"
                        % (tool, "mpich" if kind == "mpich" else "openmpi-bin"))
    program = home / ("hello_" + kind)
    if not program.exists():
        subprocess.run([compiler, "-o", str(program), str(HERE / "mpi_hello.c")], check=True,
                       timeout=120)
        program.chmod(0o755)
    return program


def _mpiexec(kind: str, program: Path, *args: str) -> str:
    root = " --allow-run-as-root" if kind == "openmpi" and os.geteuid() == 0 else ""
    return "%s%s -n 4 %s %s" % (MPIS[kind][1], root, program, " ".join(args))


@pytest.mark.parametrize("kind", sorted(MPIS))
def test_mpiexec_runs_two_ranks_under_each_host(cluster: FakeCluster, kind: str) -> None:
    """select=2:ncpus=2:mpiprocs=2, place=scatter: 4 ranks, 2 started by each host's mom
    (the rank's parent, Hydra's proxy or Open MPI's orted, is a TM task of that host), and
    a reduce gives 1+2+3+4."""
    program = _mpi_program(kind, Path(cluster.home))
    text = run_job(cluster, _mpiexec(kind, program) + "\necho rc=$?", *SELECT2,
                   timeout=120.0)
    lines = text.splitlines()
    ranks = sorted(line for line in lines if line.startswith("rank "))
    assert len(ranks) == 4, text
    nodes = sorted(line.rsplit(" ", 1)[1] for line in ranks)
    assert nodes == ["0", "0", "1", "1"], text
    assert "sum 10" in lines and "rc=0" in lines, text


@pytest.mark.parametrize("how", ["qdel", "walltime"])
@pytest.mark.parametrize("kind", sorted(MPIS))
def test_job_end_mid_run_kills_every_rank(cluster: FakeCluster, kind: str, how: str) -> None:
    """Deleting the job, or its walltime, ends every rank and MPI daemon on every host."""
    program = _mpi_program(kind, Path(cluster.home))
    workdir = Path(cluster.home) / ("mpikill-%s-%s" % (kind, how))
    workdir.mkdir()
    limit = ["-l", "walltime=00:00:15"] if how == "walltime" else []
    jobid = cluster.qsub(_mpiexec(kind, program, "spin"), *SELECT2, *limit, cwd=str(workdir))

    def daemons() -> List[int]:
        return [pid for host in ("node1", "node2") for pid in processes_with(
            "%s/mom_priv/%s/tmp/pbs.%s\0" % (cluster.home, host, jobid))]
    try:
        assert wait_until(lambda: len(processes_with(str(program))) >= 4, 90.0)
        if how == "qdel":
            cluster.sh("qdel", jobid)
        cluster.wait(jobid, "F", 90.0)
        assert wait_until(lambda: not processes_with(str(program)), 30.0)
        # nor any MPI daemon of the job (Open MPI's orted names the job's TMPDIR)
        assert wait_until(lambda: not daemons(), 30.0)
    finally:
        for pid in processes_with(str(program)) + daemons():
            os.kill(pid, 9)


# ---- PSI/J's mpirun launcher -------------------------------------------------------------------

def test_psij_mpirun_launcher_runs_ranks_on_both_hosts(cluster: FakeCluster, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """psij's ``mpirun`` launcher through ``pbspro`` with node_count=2: the job completes and
    its ranks were started on both hosts (the PBS_NODENUM of each rank's parent, the daemon
    pbs_tmrsh started there)."""
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun is not installed (Debian's openmpi-bin or mpich)")
    from datetime import timedelta

    from psij import Job, JobAttributes, JobExecutor, JobSpec, JobState, ResourceSpecV1

    from psijpbs.config import PBSProExecutorConfig

    for name in ("FAKE_PBS_HOME", "PATH", "FAKE_PBS_AUTOSTART"):
        monkeypatch.setenv(name, cluster.env[name])
    work = Path(cluster.home) / "psij-work"
    out = Path(cluster.home) / "psij-mpirun.out"
    config = PBSProExecutorConfig(work_directory=work, queue_polling_interval=2,
                                  min_queue_polling_interval=0.2,
                                  initial_queue_polling_delay=0.2)
    executor = JobExecutor.get_instance("pbspro", config=config)
    env: Dict[str, Union[str, int]] = {"OMPI_ALLOW_RUN_AS_ROOT": "1",
                                       "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    # Each rank writes its own file: the ranks' stdout reaches the job's through mpirun's own
    # forwarding, which under load once delivered neither rank's line (mpirun's I/O, not PBS's).
    ranks = Path(cluster.home) / "psij-ranks"
    ranks.mkdir(mode=0o755)
    spec = JobSpec("/bin/sh", ["-c", "tr '\\0' '\\n' < /proc/$PPID/environ | "
                               "grep ^PBS_NODENUM= > %s/rank.$$" % ranks],
                   stdout_path=out, launcher="mpirun",
                   environment=env if os.geteuid() == 0 else None,
                   resources=ResourceSpecV1(node_count=2, processes_per_node=1),
                   attributes=JobAttributes(duration=timedelta(minutes=5)))
    job = Job(spec)
    executor.submit(job)
    status = job.wait(timeout=timedelta(seconds=180))
    assert status is not None and status.state == JobState.COMPLETED, status
    found = sorted(path.read_text().strip() for path in ranks.iterdir())
    assert found == ["PBS_NODENUM=0", "PBS_NODENUM=1"], (found, out.read_text())


def test_execjob_launch_runs_for_each_task(cluster: FakeCluster) -> None:
    """start_exec.c start_process: execjob_launch runs for a TM task on the host that starts
    it; its env changes reach the task and its reject fails the spawn (pbs_tmrsh: 255)."""
    body = ("e.env['TASK_MARK'] = 'from-' + pbs.get_local_nodename()\n"
            "if 'forbidden' in e.argv:\n"
            "    e.reject('no forbidden tasks')\n")
    cluster.hook("tasklaunch", "execjob_launch", body)
    try:
        text = run_job(cluster, "\n".join([
            "pbs_tmrsh node2 sh -c 'echo mark $TASK_MARK'",
            "pbs_tmrsh node2 /bin/echo forbidden",
            "echo rc=$?",
        ]), *SELECT2)
    finally:
        cluster.call("manager", command="delete", objtype="hook", name="tasklaunch", attrs=[])
    lines = text.splitlines()
    assert "mark from-node2" in lines, text
    assert "rc=255" in lines and "forbidden" not in lines, text
    assert ('pbs_tmrsh: tm_spawn: host "node2" err system error - MOM cannot be contacted '
            '(17000)') in lines, text


def test_sister_task_cpu_time_counts_in_resources_used(cluster: FakeCluster) -> None:
    """A task's CPU time and memory are the job's (resources_used.cput, mem), on a sister too:
    PBS's sisters report their tasks' usage to the primary (mom_comm.c, IM_UPDATE_JOB / obit),
    which sums the hosts."""
    # 2-6 s of CPU whatever the load, and 150 MB written
    work = 'import sys; m = "x" * (150 << 20); sys.exit(sum(range(150000000)) % 2)'
    workdir = Path(cluster.home) / "cput"
    workdir.mkdir()
    sister = "$(tail -n 1 $PBS_NODEFILE)"  # the primary's lines come first
    out = workdir / "out"
    jobid = cluster.qsub("pbs_tmrsh %s %s -c '%s'; echo rc=$?" % (
        sister, shutil.which("python3"), work), "-o", str(out), "-j", "oe", *SELECT2,
        cwd=str(workdir))
    attrs = cluster.wait(jobid, "F", 120.0)
    hours, minutes, seconds = (int(x) for x in attrs["resources_used.cput"].split(":"))
    assert hours * 3600 + minutes * 60 + seconds >= 1, (attrs["resources_used.cput"],
                                                        out.read_text())
    assert int(attrs["resources_used.mem"][:-2]) >= 150 << 10, attrs["resources_used.mem"]


def test_pbsdsh_signalled_kills_its_tasks(cluster: FakeCluster) -> None:
    """pbsdsh.c bailout: on SIGTERM it prints ``killing task 0x<task id> signal 15`` for each
    task, tm_kills them (on every host) and exits 1."""
    import signal

    marker = "32%d" % (os.getpid() % 1000)
    workdir = Path(cluster.home) / "pbsdsh-kill"
    workdir.mkdir()
    workdir.chmod(0o777)
    out = workdir / "out"
    jobid = cluster.qsub("pbsdsh -- sleep %s & echo $! > %s/pid; wait $!; echo rc=$?; "
                         "sleep 60" % (marker, workdir), "-o", str(out), "-j", "oe", *SELECT2,
                         cwd=str(workdir))
    try:
        assert wait_until(lambda: len(processes_with("sleep\0" + marker, True)) == 4, 60.0)
        os.kill(int((workdir / "pid").read_text()), signal.SIGTERM)
        assert wait_until(lambda: not processes_with("sleep\0" + marker, True), 20.0)
        assert cluster.job(jobid)["job_state"] == "R"  # the tasks ended, not the job
    finally:
        cluster.run(["qdel", jobid])
        for pid in processes_with("sleep\0" + marker, True):
            os.kill(pid, 9)
    cluster.wait(jobid, "F", 60.0)
    lines = out.read_text().splitlines()
    assert sorted(line for line in lines if "killing" in line) == [
        "pbsdsh: killing task 0x00000001 signal 15", "pbsdsh: killing task 0x00000002 signal 15",
        "pbsdsh: killing task 0x00000002 signal 15", "pbsdsh: killing task 0x00000003 signal 15"]
    # (task ids per host: 2 and 3 on the primary, where the job shell is task 1; 1 and 2 on
    # the sister)
    assert "rc=1" in lines


def test_tasks_of_a_dead_sister_mom_end_with_the_job(cluster: FakeCluster) -> None:
    """No process of a multi-node job outlives it, even when a sister's mom died (kill -9)
    while its task ran: the primary ends that host's tasks at the job's end (PBS's sister
    would kill them when its mom restarts; docs/differences.md)."""
    from fake_pbs import control

    marker = "34%d" % (os.getpid() % 1000)
    workdir = Path(cluster.home) / "dead-sister"
    workdir.mkdir()
    jobid = cluster.qsub("pbs_tmrsh node2 sleep %s & wait" % marker, *SELECT2,
                         cwd=str(workdir))
    try:
        assert wait_until(lambda: len(processes_with("sleep\0" + marker, True)) == 1, 60.0)
        control.kill(Path(cluster.home), "mom", "node2")
        cluster.run(["qdel", jobid])  # (pbs_tmrsh may have ended the job first: obit failed)
        cluster.wait(jobid, "F", 90.0)
        assert wait_until(lambda: not processes_with("sleep\0" + marker, True), 30.0)
    finally:
        for pid in processes_with("sleep\0" + marker, True):
            os.kill(pid, 9)
        cluster.start()  # node2's mom back for the module's other tests
