"""qmgr: ``qmgr [-a] [-c command] [-e] [-n] [-z] [server...]``; requests from ``-c`` or stdin.

Each request line is parsed by :mod:`fake_pbs.model.qmgr_grammar`, sent as ``manager`` /
``hookio`` / ``stat*`` requests and rendered by :mod:`fake_pbs.cli.render.qmgr`.  Errors keep
PBS's shape: ``qmgr obj=<name> svr=default: <text>`` then ``qmgr: Error (<code>) returned from
server`` (or ``qmgr: hook error returned from server``), exit ``code % 256`` (cases d02-d10).
"""
from __future__ import annotations

import os
import sys

from fake_pbs.cli import common
from fake_pbs.cli.posix_getopt import OptionError, strict
from fake_pbs.cli.render import qmgr as qmgr_render
from fake_pbs.model import qmgr_attrs
from fake_pbs.model.errors import (PBSE_ATTRRO, PBSE_HOOKERROR, RETURNED_FROM_SERVER, PbsError,
                                   message_for)
from fake_pbs.model.qmgr_grammar import Directive, QmgrSyntaxError, parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, TextIO

USAGE = "Usage: qmgr [-a] [-c command] [-e] [-n] [-z] [server...]\n       qmgr --version\n"
VERSION = "pbs_version = 23.06.06\n"
HELP = ("General syntax: command [object_type [object_name]] [attribute op value, ...]\n"
        "Commands: create delete set unset list print import export active help quit\n"
        "Object types: server queue node resource sched hook\n"
        "Operators: = += -=\n")


def _stdin_is_tty() -> bool:
    try:
        return os.isatty(0)
    except OSError:
        return False


class Session:
    """One qmgr run: its options and streams."""

    def __init__(self, out: TextIO, err: TextIO, stdin: TextIO, quiet: bool = False,
                 echo: bool = False, dry_run: bool = False) -> None:
        self.out = out
        self.err = err
        self.stdin = stdin
        self.quiet = quiet
        self.echo = echo
        self.dry_run = dry_run
        self.finished = False

    def error(self, text: str) -> None:
        if not self.quiet:
            self.err.write(text)

    def server_error(self, name: str, exc: PbsError, status: Optional[int] = None) -> int:
        what = message_for(exc.code) if exc.code == PBSE_HOOKERROR else "Error (%d)" % exc.code
        tail = "qmgr: %s%s\n" % (what, RETURNED_FROM_SERVER)
        self.error("qmgr obj=%s svr=default: %s\n%s" % (name, exc.text, tail))
        return exc.exit_code if status is None else status

    # -- one line ------------------------------------------------------------------------
    def run_line(self, line: str) -> int:
        try:
            directive = parse(line, qmgr_attrs.is_attribute)
        except QmgrSyntaxError as exc:
            self.error(exc.text)
            return exc.exit_code
        if directive is None:
            return 0
        if self.echo:
            self.out.write(line.rstrip("\n") + "\n")
        if self.dry_run:
            return 0
        try:
            return self.execute(directive)
        except PbsError as exc:  # a failure outside any one object (connection, protocol)
            self.error("qmgr: %s\n" % exc.text)
            return exc.exit_code or 1

    def execute(self, d: Directive) -> int:
        if d.command in ("quit", "exit"):
            self.finished = True
            return 0
        if d.command in ("help", "?"):
            self.out.write(HELP)
            return 0
        if d.command == "active":
            return 0
        if d.command in ("import", "export"):
            return self.hookio(d)
        if d.command in ("list", "print"):
            return self.show(d)
        return self.manage(d)

    def manage(self, d: Directive) -> int:
        status = 0
        attrs = [[name, op, value] for name, op, value in d.attrs]
        for name in d.names or [""]:
            bare = name.split("@")[0]
            try:
                common.request("manager", command=d.command, objtype=d.objtype, name=bare,
                               attrs=attrs)
            except PbsError as exc:
                if exc.code == 15034:  # no server: not an object's fault
                    raise
                if (exc.code == PBSE_ATTRRO and d.command == "set" and d.objtype == "node"
                        and not _stdin_is_tty()):
                    # qmgr stays silent on this one refusal when its input is no terminal,
                    # so that a 'print node' dump (read-only attributes too) reloads quietly
                    status = exc.exit_code
                    continue
                status = self.server_error(bare, exc)
        return status

    # -- import / export -----------------------------------------------------------------
    def hookio(self, d: Directive) -> int:
        name = d.names[0] if d.names else ""
        labels = ("content-type", "content-encoding",
                  "input-file" if d.command == "import" else "output-file")
        needed = 3 if d.command == "import" else 2
        if len(d.args) < needed:
            self.error("hook %s command has no <%s> argument\n"
                       % (d.command, labels[len(d.args)]))
            return 1
        content_type, encoding = d.args[0], d.args[1]
        path = d.args[2] if len(d.args) > 2 else "-"
        if d.command == "import":
            return self.import_hook(name, content_type, encoding, path)
        return self.export_hook(name, content_type, encoding, path)

    def import_hook(self, name: str, content_type: str, encoding: str, path: str) -> int:
        try:
            if path == "-":
                content = self.stdin.read()
            else:
                with open(path, "r", encoding="utf-8", errors="surrogateescape") as stream:
                    content = stream.read()
        except OSError as exc:
            self.error("%s - %s\n" % (path, os.strerror(exc.errno or 2)))
            return 1
        try:
            reply = common.request("hookio", command="import", name=name,
                                   content_type=content_type, encoding=encoding,
                                   content=content)
        except PbsError as exc:
            return self.server_error(name, exc)
        warning = (reply or {}).get("warning")
        if warning:
            self.error(warning + "\n")
        return 0

    def export_hook(self, name: str, content_type: str, encoding: str, path: str) -> int:
        try:
            reply = common.request("hookio", command="export", name=name,
                                   content_type=content_type, encoding=encoding)
        except PbsError as exc:
            return self.server_error(name, exc)
        content = str((reply or {}).get("content", ""))
        if path == "-":
            self.out.write(content)
            return 0
        try:
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as stream:
                stream.write(content)
        except OSError as exc:
            self.error("%s - %s\n" % (path, os.strerror(exc.errno or 2)))
            return 1
        return 0

    # -- list / print --------------------------------------------------------------------
    def show(self, d: Directive) -> int:
        status = 0
        only = [a[0] for a in d.attrs] or None
        if d.objtype == "server":
            return self.show_server(d.command, only)
        names: List[Optional[str]] = list(d.names) if d.names else [None]
        if d.objtype == "sched" and d.command == "print" and not d.names:
            names = [None]
        printed_header = False
        for name in names:
            bare = name.split("@")[0] if name else None
            try:
                objects = self.fetch(d.objtype, bare)
            except PbsError as exc:
                status = self.server_error(bare or "", exc, status=1)
                continue
            if d.command == "list":
                for obj in objects:
                    self.out.write(qmgr_render.render_list(d.objtype, obj["name"],
                                                           obj["attrs"], only))
            else:
                if d.objtype == "hook":
                    # PBS's qmgr exports each hook's script and config to print them: the
                    # server logs two mgr_hook_export lines per hook (m11k)
                    for obj in objects:
                        obj["script"], obj["config"] = (
                            common.request("hookio", command="export", name=obj["name"],
                                           content_type=kind, encoding="default")["content"]
                            for kind in ("application/x-python", "application/x-config"))
                self.out.write(self.render_print(d.objtype, objects, not printed_header))
                printed_header = True
        return status

    def fetch(self, objtype: str, name: Optional[str]) -> List[Dict[str, Any]]:
        if objtype == "queue":
            return list(common.request("statque", name=name))
        if objtype == "node":
            return list(common.request("statnode", name=name, vnodes=False))
        if objtype == "sched":
            return list(common.request("statsched", name=name))
        if objtype in ("hook", "pbshook"):
            return list(common.request("stathook", name=name))
        return list(common.request("statrsc", name=name))

    def render_print(self, objtype: str, objects: List[Dict[str, Any]], header: bool) -> str:
        if objtype == "queue":
            text = qmgr_render.print_queues([(o["name"], o["attrs"]) for o in objects])
        elif objtype == "node":
            text = qmgr_render.print_nodes([(o["name"], o["attrs"]) for o in objects])
        elif objtype == "sched":
            return "".join(qmgr_render.print_sched(o["name"], o["attrs"]) for o in objects)
        elif objtype in ("hook", "pbshook"):
            text = qmgr_render.print_hooks([(o["name"], o["attrs"], o.get("script"),
                                             o.get("config")) for o in objects])
        else:
            text = "#\n# Create resources and set their properties.\n#\n" + "".join(
                qmgr_render.print_object("resource", o["name"], o["attrs"]) for o in objects)
        if not header:  # several names in one print: the section banner appears once
            text = text.split("\n", 3)[3] if text.startswith("#\n# Create") else text
        return text

    def show_server(self, command: str, only: Optional[List[str]]) -> int:
        try:
            server = common.request("statsvr")
            if command == "print":
                queues = common.request("statque", name=None)
        except PbsError as exc:
            return self.server_error("", exc, status=1)
        if command == "list":
            self.out.write(qmgr_render.render_list("server", server["name"], server["attrs"],
                                                   only))
        else:
            self.out.write(qmgr_render.print_server([(q["name"], q["attrs"]) for q in queues],
                                                    server["attrs"]))
        return 0


def run(argv: List[str], stdin: TextIO, out: TextIO, err: TextIO) -> int:
    if argv == ["--version"]:
        out.write(VERSION)
        return 0
    try:
        opts, _servers = strict(argv, "ac:enz", "qmgr")
    except OptionError:
        err.write(USAGE)
        return 1
    flags = {"-" + letter: value for letter, value in opts}
    session = Session(out, err, stdin, quiet="-z" in flags, echo="-e" in flags,
                      dry_run="-n" in flags)
    if "-c" in flags:
        return session.run_line(flags["-c"])
    interactive = stdin.isatty()
    status = 0
    while not session.finished:
        if interactive:
            out.write("Qmgr: ")
            out.flush()
        line = stdin.readline()
        if not line:
            break
        result = session.run_line(line)
        if result:
            status = result
            if "-a" in flags:
                break
    return status


def main() -> None:
    try:
        status = run(sys.argv[1:], sys.stdin, sys.stdout, sys.stderr)
        sys.stdout.flush()
    except BrokenPipeError:
        status = 1
    except KeyboardInterrupt:
        status = 130
    raise SystemExit(status)
