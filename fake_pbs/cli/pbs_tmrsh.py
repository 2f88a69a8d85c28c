"""pbs_tmrsh: PBS's rsh for MPI launchers: run a command on a host of the job, as a task of
the job started by that host's mom (src/cmds/pbs_tmrsh.c; transcripts D05-D07, D22, D23).

``pbs_tmrsh [-n] [-l user] host command...``: the host is looked up in PBS_NODEFILE (its line
number is the TM node); the task's output goes to the job's output files, not to this
command's (D06); the exit status is the task's.  Every error exits 255.
"""
from __future__ import annotations

import os
import pwd
import sys

from fake_pbs import leanos
from fake_pbs.cli import common, jobctl, tmcalls

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, NoReturn, Optional


def _usage(name: str) -> NoReturn:
    sys.stderr.write("usage: %s [-n][-l username] host [-n][-l username] command\n"
                     "       %s --version\n" % (name, name))
    raise SystemExit(255)


def _myname() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return ""


def _for_remote_shell(command: List[str]) -> bool:
    """Whether ``command`` is written for rsh's remote shell: MPICH's Hydra quotes its
    proxy's path, Open MPI its daemon's name and arguments.  PBS's mom would
    exec those names as they are and fail; the fake runs them as rsh does, with ``/bin/sh
    -c`` and the words joined by spaces (docs/differences.md)."""
    for word in command:
        if word != word.strip() or (len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'"):
            return True
    return len(command) == 1 and any(c in command[0] for c in " \t\n;|&")


def _fail(name: str, text: str) -> int:
    sys.stderr.write("%s: %s\n" % (name, text))
    return 255


def body(argv: List[str], name: str = "pbs_tmrsh") -> int:
    if jobctl.wants_version(argv):
        return 0
    if len(argv) < 2:
        _usage(name)
    host: Optional[str] = None
    err = False
    arg = 0
    while arg < len(argv):
        word = argv[arg]
        if word.startswith("-"):
            if word == "-n":
                arg += 1
                continue
            if word.startswith("-l"):
                user = word[2:]
                if not user:
                    arg += 1
                    if arg == len(argv):
                        err = True
                        break
                    user = argv[arg]
                if user != _myname():
                    sys.stderr.write('%s: bad user "%s"\n' % (name, user))
                    err = True
            else:
                err = True
                break
        elif host is None:
            host = word
        else:
            break
        arg += 1
    if err or arg == len(argv) or host is None:
        _usage(name)
    command = argv[arg:]
    if _for_remote_shell(command):
        command = ["/bin/sh", "-c", " ".join(command)]
    if leanos.getenv("PBS_ENVIRONMENT") is None:
        return _fail(name, "not executing under PBS")
    jobid = leanos.getenv("PBS_JOBID")
    if jobid is None:
        return _fail(name, "PBS jobid not in environment")
    nodefile = leanos.getenv("PBS_NODEFILE")
    if nodefile is None:
        return _fail(name, "cannot find PBS_NODEFILE")
    try:
        lines = tmcalls.node_lines(nodefile)
    except OSError as exc:
        return _fail(nodefile, exc.strerror or str(exc))  # perror(nodefile)
    node = next((i for i, line in enumerate(lines) if tmcalls.host_match(line, host)), -1)
    if node < 0:
        return _fail(name, 'host "%s" is not a node in job <%s>' % (host, jobid))
    try:
        where, task = tmcalls.spawn(jobid, node, command)
    except tmcalls.TmError as exc:
        return _fail(name, 'tm_spawn: host "%s" err %s' % (host, exc.name))
    try:
        return tmcalls.wait_any(jobid, {0: (where, task)})[1] % 256
    except tmcalls.TmError as exc:
        return _fail(name, 'obit: host "%s" err %s' % (host, exc.name))


def main() -> None:
    common.run_main("pbs_tmrsh", body)
