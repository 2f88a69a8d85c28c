"""tracejob: a job's history from the cluster's own log files (server, mom, scheduler and
accounting logs under FAKE_PBS_HOME), printed as OpenPBS 23.06's tracejob prints it."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from fake_pbs import paths
from fake_pbs.cli import common
from fake_pbs.cli import posix_getopt
from fake_pbs.cli.render import tracelog

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List

CMD = "tracejob"
VERSION = "23.06.06"


def usage(home: str) -> str:
    return (
        "USAGE: %s [-a|s|l|m|v] [-w size] [-p path] [-n days] [-f filter_type] "
        "job_identifier...\n" % CMD +
        "   -p : path to PBS_HOME\n"
        "   -w : number of columns of your terminal\n"
        "   -n : number of days in the past to look for job(s) [default 1]\n"
        "   -f : filter out types of log entries, multiple -f's can be specified\n"
        "        error, system, admin, job, job_usage, security, sched, debug, \n"
        "        debug2, resv, debug3, debug4, force or absolute numberic equiv\n"
        "   -z : toggle filtering excessive messages\n"
        "   -c : what message count is considered excessive\n"
        "   -a : don't use accounting log files\n"
        "   -s : don't use server log files\n"
        "   -l : don't use scheduler log files\n"
        "   -m : don't use mom log files\n"
        "   -v : verbose mode - show more error messages\n"
        "\n       %s --version\n" % CMD +
        "   --version : display version only\n\n"
        "default prefix path = %s\n" % home +
        "filter_excessive: ON\n")


def _strtol(text: str, base: int = 10) -> int:
    """``strtol`` that must consume everything (tracejob rejects trailing junk)."""
    return int(text.strip(" "), base)


def log_files(home: Path, index: int, day: str) -> List[Path]:
    """The files of one kind for one day; mom logs may sit in a directory per host."""
    if index == tracelog.ACCT:
        return [home / "server_priv" / "accounting" / day]
    if index == tracelog.SERVER:
        return [home / "server_logs" / day]
    if index == tracelog.SCHED:
        return [home / "sched_logs" / day]
    base = home / "mom_logs"
    found = [base / day]
    try:
        hosts = sorted(p for p in base.iterdir() if p.is_dir())
    except OSError:
        hosts = []
    return found + [host / day for host in hosts]


def server_name() -> str:
    import json
    import socket

    try:
        with open(str(paths.config_file(paths.cluster_home())), "r") as handle:
            name = json.load(handle).get("server_name")
        if isinstance(name, str) and name:
            return name
    except (OSError, ValueError):
        pass
    return socket.gethostname().split(".")[0]


def body(argv: List[str]) -> int:
    if len(argv) == 1 and argv[0] == "--version":
        sys.stdout.write("pbs_version = %s\n" % VERSION)
        return 0
    parsed = posix_getopt.getopt(CMD, argv, "zvamslw:p:n:f:c:")
    for message in parsed.errors:
        sys.stderr.write(message + "\n")
    error = bool(parsed.errors)
    skip = set()
    verbose = False
    wrap = -1
    prefix = None
    days = 1
    mask = 0
    filter_excessive = True
    threshold = tracelog.EXCESSIVE_COUNT
    for letter, arg in parsed.options:
        value = arg or ""
        try:
            if letter == "v":
                verbose = True
            elif letter in "asml" and letter != "?":
                skip.add({"a": tracelog.ACCT, "s": tracelog.SERVER, "m": tracelog.MOM,
                          "l": tracelog.SCHED}[letter])
            elif letter == "z":
                filter_excessive = not filter_excessive
            elif letter == "c":
                threshold = _strtol(value)
            elif letter == "w":
                wrap = _strtol(value)
            elif letter == "p":
                prefix = value
            elif letter == "n":
                days = _strtol(value)
            elif letter == "f":
                if value in tracelog.EVENT_NAMES:
                    mask |= tracelog.EVENT_NAMES[value]
                elif value[:1].isdigit():
                    mask = _strtol(value, 16)
                else:
                    error = True
            else:
                error = True
        except ValueError:
            error = True
    home = Path(prefix) if prefix else paths.cluster_home()
    if error or not parsed.operands:
        sys.stdout.write(usage(str(home)))
        return 1
    if wrap == -1:
        try:
            wrap = os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError):
            wrap = 0
    now = time.time()
    unknown = False
    for job in parsed.operands:
        entries: List[tracelog.Entry] = []
        for back in range(days):
            day = time.strftime("%Y%m%d", time.localtime(now - back * 86400))
            for index in (tracelog.ACCT, tracelog.SERVER, tracelog.MOM, tracelog.SCHED):
                if index in skip:
                    continue
                for path in log_files(home, index, day):
                    entries.extend(_read(path, index, job, verbose))
        ordered = tracelog.order(entries, filter_excessive, threshold)
        if ordered:
            sys.stdout.write(tracelog.render(ordered, mask, wrap))
        else:
            unknown = True
            shown = job if "." in job else "%s.%s" % (job, server_name())
            sys.stderr.write("\ntracejob: Couldn't find Job Id %s in logs of past %d day%s\n\n"
                             % (shown, days, "" if days == 1 else "s"))
    return 1 if unknown else 0


def _read(path: Path, index: int, job: str, verbose: bool) -> List[tracelog.Entry]:
    try:
        with open(str(path), "r", encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().split("\n")
    except OSError as err:
        if verbose:
            sys.stderr.write("%s: %s\n" % (path, err.strerror))
        return []
    if lines and lines[-1] == "":
        lines.pop()
    found = []
    for lineno, line in enumerate(lines, 1):
        entry = tracelog.parse_line(line, index, lineno, job)
        if entry is not None:
            found.append(entry)
    return found


def main() -> None:
    common.run_main(CMD, body)
