"""The command runner's warm-up: run the common commands once in the runner before it forks.

Python 3.11+ rewrites a function's bytecode in place during its first calls (warm-up counters,
then specialised instructions).  In a child forked from the runner each such write copies a
page; done once in the runner (fake_pbs/runner/listen.py), the children inherit the settled code: a
child's ``qstat`` took ~570 page faults and 2.5 ms of CPU before, ~405 and 1.8 ms after.  The
commands run against a made-up server connection (:class:`_Canned`), so nothing is sent
anywhere, and :func:`warm_up` puts back everything they change.
"""
import gc
import os
import signal
import sys
from typing import Dict

# What warm_up runs, each WARM_ROUNDS times: the commands a batch system or psij runs most.
WARM_UP = (["qsub", "--", "/bin/true"],
           ["qsub", "-h", "-N", "warm", "-l", "walltime=00:01:00", "-l", "select=1:ncpus=1",
            "-o", "/dev/null", "-j", "oe", "--", "/bin/true"],
           ["qstat"], ["qstat", "-f"], ["qstat", "-f", "-F", "json", "-x", "1"],
           ["qstat", "-x", "1"],
           ["qdel", "1"], ["qselect"], ["pbsnodes", "-a"])
WARM_ROUNDS = 12
_WARM_SIGNALS = (signal.SIGPIPE, signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD)


_WARM_JOB = [["Job_Name", "warm"], ["Job_Owner", "warm@warm"], ["job_state", "F"],
             ["queue", "workq"], ["server", "warm"], ["ctime", "1700000000"],
             ["mtime", "1700000001"], ["qtime", "1700000000"], ["stime", "1700000000"],
             ["obittime", "1700000001"], ["exec_host", "n1/0"], ["exec_vnode", "(n1:ncpus=1)"],
             ["Resource_List.ncpus", "1"], ["Resource_List.nodect", "1"],
             ["Resource_List.select", "1:ncpus=1"], ["Resource_List.walltime", "00:01:00"],
             ["resources_used.cput", "00:00:00"], ["resources_used.mem", "0kb"],
             ["resources_used.walltime", "00:00:00"], ["Exit_status", "0"],
             ["Variable_List", "PBS_O_HOME=/,PBS_O_WORKDIR=/"], ["run_count", "1"],
             ["Error_Path", "warm:/e"], ["Output_Path", "warm:/o"], ["Hold_Types", "n"],
             ["Join_Path", "oe"], ["Keep_Files", "n"], ["Priority", "0"], ["substate", "92"],
             ["euser", "warm"], ["egroup", "warm"], ["project", "_pbs_project_default"]]
_WARM_NODE = [["Mom", "n1"], ["Port", "15002"], ["pbs_version", "23.06.06"],
              ["ntype", "PBS"], ["state", "free"], ["pcpus", "1"],
              ["resources_available.host", "n1"], ["resources_available.mem", "1024kb"],
              ["resources_available.ncpus", "1"], ["resources_available.vnode", "n1"],
              ["resources_assigned.ncpus", "0"], ["resv_enable", "True"],
              ["sharing", "default_shared"], ["last_state_change_time", "1700000000"]]
_WARM_REPLIES: Dict[str, object] = {
    "ping": {"server_name": "warm", "pid": 1}, "queuejob": {"jobid": "1.warm"},
    "statjob": [{"id": "1.warm", "attrs": _WARM_JOB}],
    "statnode": [{"name": "n1", "attrs": _WARM_NODE}], "selectjob": ["1.warm"],
    "statsvr": {"name": "warm", "attrs": [["server_state", "Active"], ["server_host", "warm"],
                                          ["default_queue", "workq"], ["total_jobs", "1"]]},
    "deljob": None}


class _Canned:
    """Stands in for the server connection during :func:`warm_up`: made-up answers of the
    usual shapes for the usual requests, Unknown Job Id for any other; nothing is sent."""

    def __init__(self) -> None:
        self.op = ""

    def send(self, msg: Dict[str, object]) -> None:
        self.op = str(msg.get("op", ""))

    def receive(self) -> Dict[str, object]:
        if self.op in _WARM_REPLIES:
            return {"ok": True, "data": _WARM_REPLIES[self.op]}
        return {"ok": False, "code": 15001, "msg": "Unknown Job Id"}

    def close(self) -> None:
        pass


class _Exited(Exception):
    pass


def warm_up() -> None:
    """Run :data:`WARM_UP` in this process, :data:`WARM_ROUNDS` times, against a made-up
    server connection (~6 ms of CPU).  Nothing is kept: the commands' caches (the connection,
    the server's name, the environment snapshot), the streams, argv, the environment, umask,
    signal dispositions and the collector are put back, and a failure only ends the warm-up."""
    import io

    from fake_pbs import leanos, protocol
    from fake_pbs.cli import common

    def no_exit(code: int) -> None:
        raise _Exited(code)

    saved = (sys.argv, sys.stdin, sys.stdout, sys.stderr, leanos._exit, protocol.connect,
             dict(os.environb), os.umask(0o022))
    handlers = {signum: signal.getsignal(signum) for signum in _WARM_SIGNALS}
    collecting = gc.isenabled()
    for module in (common, protocol):
        setattr(module, "connect", lambda *args, **kwargs: _Canned())
    leanos._exit = no_exit  # type: ignore[assignment]  # qsub ends with os._exit
    try:
        for _ in range(WARM_ROUNDS):
            for argv in WARM_UP:
                sys.argv = list(argv)
                sys.stdin = io.TextIOWrapper(io.BytesIO())
                sys.stdout = sys.stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
                try:
                    sys.modules["fake_pbs.cli." + argv[0]].main()
                except (SystemExit, _Exited):
                    pass
                finally:
                    common.drop_channel()
    except Exception:
        pass
    finally:
        sys.argv, sys.stdin, sys.stdout, sys.stderr = saved[:4]
        leanos._exit = saved[4]
        for module in (common, protocol):
            setattr(module, "connect", saved[5])
        if dict(os.environb) != saved[6]:
            os.environb.clear()
            os.environb.update(saved[6])
        os.umask(saved[7])
        for signum, handler in handlers.items():  # run_main sets SIGPIPE's
            signal.signal(signum, handler)
        if collecting:  # run_main switches the collector off
            gc.enable()
        forget_caches()


def forget_caches() -> None:
    """Forget what a command keeps for the rest of its process: its server connection (closed),
    the server's name, the environment snapshot.  The warm-up and a runner worker between two
    commands (fake_pbs/runner/worker.py) start the next command from nothing."""
    from fake_pbs import leanos
    from fake_pbs.cli import common, jobctl

    common.drop_channel()
    jobctl.forget_server_name()
    leanos.forget_environ()
