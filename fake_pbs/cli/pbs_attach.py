"""pbs_attach: attach a process to a job (src/cmds/pbs_attach.c, pbs_attach_sup.c; transcripts
D11, D24, D25).

``pbs_attach [-j jobid] [-m port] -p pid`` makes the session of ``pid`` a task of the job;
``pbs_attach [-j jobid] [-P] [-s] cmd [args]`` does so for its own session (a new one with
``-s``), then execs the command.  The job's mom then kills the session with the job and counts
its CPU time (fake_pbs/mom/tm.py ``attach``), after the ``execjob_attach`` hooks.  Without
``-j`` the caller's only running job is meant.  PBS's tm_attach reaches the mom of the host it
runs on: here the server passes the request to the mom of the fake host this process is on
(``gethostname``, which the host-name library answers in a job; ``-h host`` names another), or
else the job's primary.
A session already in the job (the job shell's, a task's) is no error (TM_ESESSION).
"""
from __future__ import annotations

import os
import re
import socket
import sys

from fake_pbs.cli import common, jobctl, tmcalls
from fake_pbs.cli.posix_getopt import OptionError, strict
from fake_pbs.model.tmcodes import TM_ESESSION, ecname

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, NoReturn, Optional, Tuple

USAGE = ("usage: {0} [-j jobid] [-m port] -p pid\n"
         "usage: {0} [-j jobid] [-m port] [-P] [-s] cmd [arg1 ...]\n"
         "usage: {0} --version\n")


_LEADING_NUMBER = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def _usage(name: str) -> int:
    sys.stderr.write(USAGE.format(name))
    return 2


def _strtol(text: str) -> Tuple[int, bool]:
    """C's strtol(text, &end, 10): the leading number (0 if none) and whether it was all."""
    match = _LEADING_NUMBER.match(text)
    if not match:
        return 0, False
    return int(match.group(1)), match.end() == len(text)


def _checked(opts: List[Tuple[str, str]], args: List[str]) -> Optional[Dict[str, str]]:
    """The options, or None after PBS's messages (pbs_attach.c main)."""
    err = False
    values: Dict[str, str] = {}
    pid = 0
    for flag, value in opts:
        values[flag] = value
        if flag in "pm":
            number, whole = _strtol(value)
            if number <= 0 or not whole:
                sys.stderr.write("bad %s: %s\n" % ("pid" if flag == "p" else "port", value))
                err = True
            if flag == "p":
                pid = number
    if pid != 0:
        for flag, what in (("s", "session"), ("P", "parent")):
            if flag in values:
                sys.stderr.write("cannot specify pid and %s\n" % what)
                err = True
        if args:
            sys.stderr.write("cannot specify pid and command\n")
            err = True
    elif not args:
        sys.stderr.write("must specify pid or command\n")
        err = True
    return None if err else values


def _new_session() -> None:
    """-s: the command runs in a session of its own (a child); this process waits for it and
    exits with its status (2 if it was killed), as PBS's does."""
    pid = os.fork()
    if pid > 0:
        _, status = os.waitpid(pid, 0)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 2)
    os.setsid()


def _exec(argv: List[str]) -> NoReturn:
    os.environ["MPICH_PROCESS_GROUP"] = "no"  # some MPICH builds would setsid() and escape
    sys.stdout.flush()
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write("%s: %s\n" % (argv[0], os.strerror(exc.errno or 0)))
    os._exit(255)


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    name = "pbs_attach"
    try:
        opts, args = strict(argv, "+j:p:h:m:sP", name)
    except OptionError as err:
        sys.stderr.write(err.message + "\n")
        return _usage(name)
    values = _checked(opts, args)
    if values is None:
        return _usage(name)
    if "s" in values:
        _new_session()
    pid = _strtol(values.get("p", ""))[0] or os.getpid()
    jobid = values.get("j") or None
    # This host's name: in a job, the fake host's (the host-name library), else the machine's,
    # which names no host of the job (the server then asks the primary's mom).
    host = values.get("h") or socket.gethostname()
    code = tmcalls.attach(jobid, host, pid)
    if code not in (0, TM_ESESSION):
        sys.stderr.write("%s: tm_attach: %s\n" % (name, ecname(code)))
        return 1
    if "P" in values:
        code = tmcalls.attach(jobid, host, os.getppid())
        if code not in (0, TM_ESESSION):
            sys.stderr.write("%s: tm_attach parent: %s\n" % (name, ecname(code)))
    if args:
        _exec(args)
    return 0


def main() -> None:
    common.run_main("pbs_attach", body)
