"""pbsdsh: run a program as a task on every TM node of the job, the first ``-c`` nodes, or
node ``-n`` (src/cmds/pbsdsh.c as released in 23.06.06, without ``-h``; transcripts D01-D04,
D08-D10, D20, D21).

Tasks write straight into the job's output files.  A task that ends with a status other than
0 is reported as ``pbsdsh: task 0x<index> exit status <n>`` on stdout; pbsdsh itself exits 0
once every obit came (1 for usage and set-up errors, 2 when polling fails).
"""
from __future__ import annotations

import signal
import sys

from fake_pbs import leanos
from fake_pbs.cli import common, jobctl, tmcalls
from fake_pbs.cli.posix_getopt import OptionError, strict
from fake_pbs.model.tmcodes import TM_EBADENVIRONMENT, TM_ESYSTEM

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Tuple

USAGE = ("Usage: %(n)s [-c copies][-s][-v][-o] -- program [args...]\n"
         "       %(n)s [-n node_index][-s][-v][-o] -- program [args...]\n"
         "       %(n)s --version\n"
         "Where -c copies =  run a copy of \"program\" on the first \"copies\" nodes,\n"
         "      -n node_index = run a copy of \"program\" on the \"node_index\"-th node,\n"
         "      -s = forces synchronous execution,\n"
         "      -v = forces verbose output.\n"
         "      -o = no obits are waited for.\n")
FIRST_EVENT = 2  # tm_init took event 1 (D03: the first spawn is "event 2")


class _Bailout(Exception):
    """pbsdsh got SIGHUP, SIGINT or SIGTERM (its bailout handler)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _bailout(signum: int, frame: object) -> None:
    raise _Bailout(signum)


class _Run:
    """pbsdsh's wait_for_task bookkeeping: spawned tasks and the obits awaited."""

    def __init__(self, jobid: str, verbose: bool, no_obit: bool) -> None:
        self.jobid, self.verbose, self.no_obit = jobid, verbose, no_obit
        self.spawned: Dict[int, Tuple[str, int]] = {}  # index -> (host, task): spawn unpolled
        self.obits: Dict[int, Tuple[str, int]] = {}

    def kill_all(self, signum: int) -> None:
        """pbsdsh's bailout: tm_kill every task not known to have ended, then exit 1."""
        for host, task in list(self.spawned.values()) + list(self.obits.values()):
            print("pbsdsh: killing task 0x%08X signal %d" % (task, signum))
            tmcalls.kill(self.jobid, host, task, signum)
        sys.stdout.flush()

    def wait(self) -> None:
        while self.spawned or self.obits:
            if self.verbose:
                print("pbsdsh: waiting on %d spawned and %d obits"
                      % (len(self.spawned), len(self.obits)))
            if self.spawned:  # the spawn events come first: each task has started
                index = min(self.spawned)
                where = self.spawned.pop(index)
                if not self.no_obit:
                    self.obits[index] = where
                continue
            index, status = tmcalls.wait_any(self.jobid, self.obits)
            del self.obits[index]
            if self.verbose or status != 0:
                print("pbsdsh: task 0x%08X exit status %d" % (index, status))
            sys.stdout.flush()


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    name = "pbsdsh"  # argv[0] as typed; the wrapper sees only its path
    try:
        opts, args = strict(argv, "c:n:svo", "pbsdsh")
    except OptionError as err:
        sys.stderr.write(err.message + "\n")
        opts, args = [("?", "")], []
    if args[:1] == ["--"]:
        args = args[1:]
    ncopies = onenode = -1
    sync = verbose = no_obit = err_seen = False
    for opt, value in opts:
        if opt == "c":
            ncopies = _atoi(value)
            err_seen = err_seen or ncopies < 0
        elif opt == "n":
            onenode = _atoi(value)
            err_seen = err_seen or onenode < 0
        elif opt == "s":
            sync = True
        elif opt == "v":
            verbose = True
        elif opt == "o":
            no_obit = True
        else:
            err_seen = True
    if err_seen or (onenode >= 0 and ncopies >= 0) or not args:
        sys.stderr.write(USAGE % {"n": name})
        return 1
    if leanos.getenv("PBS_ENVIRONMENT") is None:
        sys.stderr.write("%s: not executing under PBS\n" % name)
        return 1
    jobid = leanos.getenv("PBS_JOBID")
    if not jobid:
        return _tm_failed(name, "tm_init", TM_EBADENVIRONMENT)
    try:
        numnodes = len(tmcalls.node_lines(leanos.getenv("PBS_NODEFILE") or ""))
    except OSError:
        return _tm_failed(name, "tm_nodeinfo", TM_ESYSTEM)
    if numnodes == 0:
        return _tm_failed(name, "tm_nodeinfo", TM_ESYSTEM)
    if onenode >= 0:
        start, stop = onenode, onenode + 1
    elif ncopies >= 0:
        start, stop = 0, ncopies
    else:
        start, stop = 0, numnodes
    run = _Run(jobid, verbose, no_obit)
    for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _bailout)
    try:
        return _spawn_and_wait(name, run, start, stop, numnodes, list(args), verbose, sync)
    except _Bailout as bail:
        run.kill_all(bail.signum)
        return 1


def _spawn_and_wait(name: str, run: _Run, start: int, stop: int, numnodes: int,
                    args: List[str], verbose: bool, sync: bool) -> int:
    event = FIRST_EVENT
    jobid = run.jobid
    for index in range(stop - start):
        node = (start + index) % numnodes
        try:
            run.spawned[index] = tmcalls.spawn(jobid, node, args)
        except tmcalls.TmError as exc:
            sys.stderr.write("%s: spawn failed on node %d err %s\n" % (name, node, exc.name))
            continue
        if verbose:
            print("%s: spawned task 0x%08X on logical node %d event %d"
                  % (name, index, node, event))
        event += 1
        if sync:
            run.wait()
    try:
        run.wait()
    except tmcalls.TmError as exc:
        sys.stderr.write("%s: Event poll failed, error %s\n" % (name, exc.name))
        return 2
    return 0


def _atoi(text: str) -> int:
    """C's atoi: leading digits (with a sign), 0 when there are none."""
    digits = text.strip()
    sign = -1 if digits[:1] == "-" else 1
    digits = digits.lstrip("+-")
    count = len(digits) - len(digits.lstrip("0123456789"))
    return sign * int(digits[:count]) if count else 0


def _tm_failed(name: str, call: str, code: int) -> int:
    sys.stderr.write("%s: %s failed, rc = %s (%d)\n"
                     % (name, call, tmcalls.TmError(code).name, code))
    return 1


def main() -> None:
    common.run_main("pbsdsh", body)
