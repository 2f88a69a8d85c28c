"""PBS's task manager (TM) on a mom: spawn a task of a running job on one of its hosts, and
tell when it ended (tm_spawn, tm_obit; OpenPBS src/lib/Libpbs/tm.c, src/resmom/mom_comm.c).

The server forwards a job owner's ``tm_spawn`` {job, node, argv} to the job's primary mom,
which picks the host of TM node ``node`` (one node per line of PBS_NODEFILE, in order), builds
the task's launch record from the job's own (identity, umask, output files, environment) and
starts it here or asks that host's mom (``task_start`` {job, launch}, a sister request).
``task_wait`` {job, task, wait} answers {status} once the task has ended, else {status:
null} after a bounded wait (the caller asks again).  Nothing the client sent but the argument
vector reaches the task: the environment, directory and identity are the job's.
"""
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from fake_pbs import paths
from fake_pbs.model.errors import (PBSE_BADSTATE, PBSE_HOOK_REJECT, PBSE_IVALREQ, PBSE_UNKJOBID,
                                   PbsError)
from fake_pbs.model.tmcodes import TM_EHOOK, TM_ENOPROC, TM_ENOTFOUND, TM_EOWNER, TM_ESESSION
from fake_pbs.mom import hookpoints, hostnames, siteenv, tasks
from fake_pbs.mom.context import MomContext
from fake_pbs.mom.durable import read_json
from fake_pbs.mom.environment import nodefile_lines, parse_variable_list
from fake_pbs.mom.layout import HostLayout
from fake_pbs.mom.limits import process_limits
from fake_pbs.mom.sisters import sister_request

# The task environment PBS's mom builds, in its order (transcript D06): PATH, the job's
# Variable_List, then these from the job shell's environment; PBS_NODENUM and PBS_TASKNUM
# are the task's own.  No PBS_NODEFILE, LOGNAME, USER or SHELL.
_FROM_JOB = ("HOME", "PBS_JOBNAME", "PBS_JOBID", "PBS_QUEUE", "PBS_JOBCOOKIE")
_AFTER = ("PBS_MOMPORT", "OMP_NUM_THREADS", "NCPUS", "PBS_ENVIRONMENT", "ENVIRONMENT")
# PBS's tasks get the mom's PATH (/bin:/usr/bin); ``fake_pbs/bin`` comes first as for job
# shells, so that pbs_tmrsh in a task reaches this cluster (docs/differences.md).
TASK_PATH = "/bin:/usr/bin"
MAX_WAIT = 30.0
TM_OPS = frozenset(("tm_spawn", "task_start", "task_wait", "task_usage",
                    "task_kill", "tm_attach", "task_sister"))  # TaskManager.handle's requests


def task_hosts(job: Mapping[str, Any], primary: str) -> List[str]:
    """The job's hosts in PBS_NODENUM order: the primary first, then each sister once."""
    hosts = [primary]
    for chunk in job.get("hosts") or []:
        name = str(chunk["host"])
        if name not in hosts:
            hosts.append(name)
    return hosts


def task_environment(job: Mapping[str, Any], shell_env: Mapping[str, str], nodenum: int,
                     tmpdir: str, cluster_home: str, site: Mapping[str, str]) -> Dict[str, str]:
    """The environment of a task on host number ``nodenum`` (its PBS_TASKNUM is set when it
    starts: tasks.start)."""

    env: Dict[str, str] = dict(site)
    env["PATH"] = "%s:%s" % (paths.bin_dir(), TASK_PATH)
    attrs: Mapping[str, str] = job.get("attrs", {})
    for name, val in parse_variable_list(attrs.get("Variable_List", "")):
        env[name] = val
    for name in _FROM_JOB:
        if name in shell_env:
            env[name] = shell_env[name]
    env["PBS_NODENUM"] = str(nodenum)
    env["PBS_TASKNUM"] = ""
    for name in _AFTER:
        if name in shell_env:
            env[name] = shell_env[name]
    env["TMPDIR"] = tmpdir
    env["PBS_JOBDIR"] = shell_env.get("PBS_JOBDIR", shell_env.get("HOME", "/"))
    env["FAKE_PBS_HOME"] = cluster_home
    env.update(siteenv.per_host(tmpdir, env))
    return env


class TaskManager:
    """The TM requests of one mom; ``primary_job(jobid)`` finds a job this mom runs as primary
    (its spec), ``sister_job(jobid)`` one it holds as a sister (None otherwise)."""

    def __init__(self, ctx: MomContext, primary_job: Any, sister_job: Any) -> None:
        self.ctx = ctx
        self._primary_job = primary_job
        self._sister_job = sister_job

    def handle(self, op: str, msg: Mapping[str, Any]) -> Any:
        jobid = str(msg.get("job"))
        if op == "tm_spawn":
            return self.spawn(jobid, int(msg["node"]), [str(a) for a in msg["argv"]])
        if op == "task_start":
            return self.start_here(jobid, dict(msg["launch"]), primary=False)
        if op == "task_kill":  # tm_kill: a signal to one task's session
            try:
                tasks.signal_task(self.ctx.layout.job(jobid).dir, int(msg["task"]),
                                  int(msg["signal"]))
            except KeyError:
                raise PbsError(PBSE_UNKJOBID)
            return None
        if op == "tm_attach":
            return self.attach(jobid, int(msg["pid"]))
        if op == "task_sister":  # a process was attached to the job on host ``sister``
            tasks.note_sister(self.ctx.layout.job(jobid).dir, str(msg["sister"]))
            return None
        if op == "task_usage":  # the job ends: end its tasks here, report their usage
            jobdir = self.ctx.layout.job(jobid).dir
            return {"cput": tasks.finish_all(jobdir), "maxrss_kb": tasks.memory_kb(jobdir)}
        if op == "task_wait":
            timeout = min(MAX_WAIT, float(msg.get("wait", MAX_WAIT)))
            jobdir = self.ctx.layout.job(jobid).dir
            try:
                return {"status": tasks.wait(jobdir, int(msg["task"]), timeout)}
            except KeyError:
                raise PbsError(PBSE_UNKJOBID)
        raise PbsError(PBSE_IVALREQ)

    def spawn(self, jobid: str, node: int, argv: List[str]) -> Dict[str, Any]:
        job: Optional[Dict[str, Any]] = self._primary_job(jobid)
        if job is None:
            raise PbsError(PBSE_UNKJOBID)
        if not argv:
            raise PbsError(PBSE_IVALREQ)
        jobdir = self.ctx.layout.job(jobid).dir
        launch = read_json(jobdir / "launch.json")
        if launch is None or (jobdir / "exit.json").exists():
            raise PbsError(PBSE_BADSTATE)
        nodes = nodefile_lines(list(job.get("hosts") or [{"host": self.ctx.host}]))
        if not 0 <= node < len(nodes):
            raise PbsError(PBSE_IVALREQ, "no TM node %d in job" % node)
        host = nodes[node]
        nodenum = task_hosts(job, self.ctx.host).index(host)
        shell_env = {str(k): str(v) for k, v in dict(launch["env"]).items()}
        task_launch = {
            "jobid": jobid, "argv": argv, "cwd": str(shell_env.get("HOME") or "/"),
            "sandbox": None, "uid": launch["uid"], "gid": launch["gid"], "user": launch["user"],
            "drop_privileges": launch["drop_privileges"], "umask": launch["umask"],
            "stdout": launch["stdout"], "stderr": launch["stderr"],
            "env": task_environment(job, shell_env, nodenum, "", str(self.ctx.home),
                                    siteenv.load(self.ctx.home)),
            "limits": process_limits(job.get("attrs", {}), str(job.get("exec_vnode") or ""),
                                     host),
        }
        if launch.get("interactive"):  # an interactive job's output is its terminal
            pty = str((read_json(jobdir / "shepherd.json") or {}).get("pty") or os.devnull)
            task_launch["stdout"] = task_launch["stderr"] = pty
        task_launch["env"].update(hostnames.job_variables(self.ctx.home, host, int(launch["uid"]),
                                                          task_launch["env"]))
        if host == self.ctx.host:
            task_launch["env"]["TMPDIR"] = shell_env.get("TMPDIR", "")
            here_env = task_launch["env"]
            here_env.update(siteenv.per_host(shell_env.get("TMPDIR", ""), here_env))
            started = self.start_here(jobid, task_launch, primary=True)
        else:
            tasks.note_sister(jobdir, host)
            started = sister_request(self.ctx, host, "task_start", job=jobid,
                                     launch=task_launch)
        self.ctx.log.job(jobid, "task %08X spawned on %s" % (int(started["task"]), host),
                         0x0100)
        return {"task": int(started["task"]), "host": host, "nodenum": nodenum}

    def start_here(self, jobid: str, launch: Dict[str, Any], primary: bool) -> Dict[str, Any]:
        job = self._primary_job(jobid) if primary else self._sister_job(jobid)
        if job is None:
            raise PbsError(PBSE_UNKJOBID)
        layout = self.ctx.layout.job(jobid)
        if not primary:
            tmpdir = str(layout.tmpdir)
            self._make_tmpdir(tmpdir, int(launch["uid"]), int(launch["gid"]))
            launch["env"]["TMPDIR"] = tmpdir
            launch["env"].update(siteenv.per_host(tmpdir, launch["env"]))
        # PBS's start_process runs execjob_launch for a TM task too (start_exec.c): a reject
        # fails the spawn; progname, argv and env may be changed.
        argv = [str(a) for a in launch["argv"]]
        result = hookpoints.execjob_launch(self.ctx.site(primary), job, argv[0], argv,
                                           dict(launch["env"]))
        if not result.accept:
            raise PbsError(PBSE_HOOK_REJECT, result.message or "execjob_launch hook rejected")
        if result.argv is not None:
            launch["argv"] = list(result.argv)
        if result.env is not None:
            launch["env"] = dict(result.env)
        if result.progname is not None:
            launch["progname"] = result.progname
        try:
            return tasks.start(layout.dir, str(self.ctx.layout.jobs), launch, primary)
        except OSError as exc:
            raise PbsError(PBSE_IVALREQ, "task did not start: %s" % exc)

    def attach(self, jobid: str, pid: int) -> Dict[str, Any]:
        """PBS's TM_ATTACH (mom_comm.c tm_request): the session of ``pid`` becomes a task of
        the job on this host, killed and counted with it.  {task} or {tm_error}; the caller
        (the server) has checked that the requester owns the job."""
        job = self._primary_job(jobid)
        primary = job is not None
        if job is None:
            job = self._sister_job(jobid)
        jobdir = self.ctx.layout.job(jobid).dir
        if job is None or (jobdir / "exit.json").exists():
            return {"tm_error": TM_ENOTFOUND}
        result = hookpoints.execjob_attach(self.ctx.site(primary), job, pid)
        if not result.accept:
            self.ctx.log.job(jobid, "execjob_attach hook rejected request", 0x0001)
            return {"tm_error": TM_EHOOK}
        try:
            sid = os.getsid(pid)
            owner = os.stat("/proc/%d" % pid).st_uid
        except OSError:
            return {"tm_error": TM_ENOPROC}
        if sid <= 1:
            return {"tm_error": TM_ENOPROC}
        shell = read_json(jobdir / "shepherd.json") or {}
        if sid == int(shell.get("pid", 0)) or sid in tasks.sessions(jobdir):
            self.ctx.log.job(jobid, "tm_attach: sid %d already attached" % sid, 0x0001)
            return {"tm_error": TM_ESESSION}
        if owner != int(job.get("uid", -1)):
            return {"tm_error": TM_EOWNER}
        task = tasks.attach(jobdir, pid, sid, primary)
        self.ctx.log.job(jobid, "pid %d sid %d cmd %s attached as task %08X"
                         % (pid, sid, _command_name(pid), task), 0x0100)
        return {"task": task, "primary": primary}

    def _make_tmpdir(self, path: str, uid: int, gid: int) -> None:
        """The sister's TMPDIR of the job, as the primary makes its own (owner's, 0700)."""
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            return
        if self.ctx.is_root:
            os.chown(path, uid, gid)


def _command_name(pid: int) -> str:
    """The process's name as /proc/<pid>/stat has it (PBS's dep_procinfo: comm)."""
    try:
        with open("/proc/%d/comm" % pid, "r", encoding="utf-8", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return "?"


def tasks_usage(ctx: MomContext, jobdir: Path, jobid: str) -> Tuple[float, int]:
    """At the job's end on the primary: end its tasks here and on each sister that ran one;
    their CPU seconds, and the sum over hosts of each host's largest task memory (kB): PBS's
    sisters report their tasks' usage to the primary, which sums the hosts."""
    cput = tasks.finish_all(jobdir)
    mem = tasks.memory_kb(jobdir)
    for host in tasks.sisters_used(jobdir):
        try:
            reply = sister_request(ctx, host, "task_usage", job=jobid)
            cput += float(reply["cput"])
            mem += int(reply.get("maxrss_kb", 0))
        except (PbsError, KeyError, TypeError, ValueError):
            # The sister's mom is gone (PBS: its tasks stay until that mom restarts and
            # kills them); every fake host is this machine, so its tasks end here: nothing
            # of the job outlives it.  Their usage is lost.
            killed = tasks.kill_all(HostLayout(ctx.home, host).job(jobid).dir)
            ctx.log.job(jobid, "no task usage from sister %s: %d process(es) of its tasks "
                        "killed from here" % (host, killed), 0x0001)
    return cput, mem
