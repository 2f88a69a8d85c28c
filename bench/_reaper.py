"""Run a command as a child subreaper and account the CPU of every process reaped (benchmarks).

    python -m bench._reaper STATS -- fake-pbs start

The cluster's daemons outlive ``fake-pbs start``, and a job's shepherd outlives its mom's
launcher (which reaps those that end before it: ``BenchCluster.daemons_cpu``): without a
subreaper they are re-parented to init and their CPU is lost to any accounting.  With this
process as the nearest subreaper they are re-parented here, and ``wait4`` gives each one's
CPU, its reaped descendants' included (a shepherd's job shell).  After the command exits this
prints ``started <exit code>`` and goes on reaping until SIGTERM; after every reap it rewrites
STATS: ``{"reaped": N, "cpu": seconds, "pids": {pid: seconds}}``
(per pid only for the first 64, enough to single out the daemons when they exit).
"""
import ctypes
import json
import os
import signal
import sys
import time
from typing import Dict

_PR_SET_CHILD_SUBREAPER = 36


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(0)


def main() -> int:
    stats_path = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    signal.signal(signal.SIGTERM, _stop)
    starter = os.fork()
    if starter == 0:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)  # this process's stdout says only "started"
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    reaped, cpu = 0, 0.0
    pids: Dict[int, float] = {}
    while True:
        try:
            pid, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            time.sleep(0.05)  # no child now: orphans may be re-parented here later
            continue
        spent = usage.ru_utime + usage.ru_stime
        if pid == starter:
            print("started %d" % os.waitstatus_to_exitcode(status), flush=True)
            continue
        reaped += 1
        cpu += spent
        if len(pids) < 64:
            pids[pid] = spent
        tmp = stats_path + ".tmp"
        with open(tmp, "w") as handle:
            json.dump({"reaped": reaped, "cpu": cpu, "pids": pids}, handle)
        os.replace(tmp, stats_path)


if __name__ == "__main__":
    raise SystemExit(main())
