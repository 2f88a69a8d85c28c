"""pbsnodes: list nodes (``-a``, ``-av``, ``-v``, names, ``-l``, ``-S[j][L]`` summaries,
``-F json|dsv``) and mark them
(``-o``, ``-r``, ``-C``, ``-c``) with ``manager`` set requests, as OpenPBS 23.06 does."""
from __future__ import annotations

import sys

from fake_pbs.cli import common
from fake_pbs.cli import posix_getopt
from fake_pbs.cli.render import nodes
from fake_pbs.model.errors import PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, List, Optional

CMD = "pbsnodes"
VERSION = "23.06.06"
USAGE = ("usage:\t{0} [-{{o|r}}][-C comment][-s server] host host ...\n"
         "\t{0} -l [-s server]\n"
         "\t{0} [-s server] -v vnode vnode ...\n"
         "\t{0} -a[v][S[j][L]][-F format][-D delim][-s server]\n"
         "\t{0} -[H][S[j][L]][-F format][-D delim] host host ...\n"
         "\t{0} --version\n\n").format(CMD)

LISTSP, ALL, CLEAR, DOWN, LISTMRK, OFFLINE, RESET, COMMENT, LISTSPNV = (
    "listsp", "all", "clear", "down", "listmrk", "offline", "reset", "comment", "listspnv")


class Options:
    def __init__(self) -> None:
        self.oper = LISTSP
        self.vnodes = False
        self.comment: Optional[str] = None
        self.fmt = "default"
        self.delim = "|"
        self.summary = False
        self.jobs_view = False
        self.long_view = False
        self.header_done = False
        self.quiet = False
        self.names: List[str] = []


def parse(argv: List[str]) -> Optional[Options]:
    opts = Options()
    parsed = posix_getopt.getopt(CMD, argv, "acC:dD:F:HjlLoqrs:Sv")
    for message in parsed.errors:
        sys.stderr.write(message + "\n")
    error = not argv or bool(parsed.errors)
    for letter, arg in parsed.options:
        oper = opts.oper
        if letter == "a":
            error |= oper != LISTSP
            opts.oper = ALL
        elif letter in ("c", "d", "l"):
            error |= not (oper == LISTSP or opts.vnodes)
            opts.oper = {"c": CLEAR, "d": DOWN, "l": LISTMRK}[letter]
        elif letter == "C":
            if oper == LISTSP:
                opts.oper = COMMENT
            elif oper not in (OFFLINE, RESET):
                error = True
            opts.comment = arg
        elif letter == "D":
            error |= oper not in (LISTSP, ALL, LISTSPNV)
            opts.delim = arg or ""
        elif letter == "F":
            if (arg or "").lower() in ("default", "dsv", "json"):
                opts.fmt = (arg or "").lower()
            else:
                error = True
        elif letter == "H":
            error |= oper != LISTSP
            opts.oper = LISTSPNV
        elif letter in ("j", "L", "S"):
            error |= oper not in (LISTSP, ALL, LISTSPNV)
            if letter == "S":
                opts.summary = True
            opts.jobs_view |= letter == "j"
            opts.long_view |= letter == "L"
        elif letter in ("o", "r"):
            error |= not (oper in (LISTSP, COMMENT) or opts.vnodes)
            opts.oper = OFFLINE if letter == "o" else RESET
        elif letter == "q":
            opts.quiet = True
        elif letter == "s":
            pass  # one server per cluster: the option is accepted and ignored
        elif letter == "v":
            error |= oper not in (LISTSP, ALL)
            opts.vnodes = True
        else:
            error = True
    opts.names = parsed.operands
    needs_names = (CLEAR, OFFLINE, RESET, LISTSPNV, LISTSP, COMMENT)
    if error or (opts.oper == LISTMRK and opts.names) or \
            (opts.oper in needs_names and not opts.names) or \
            (opts.summary and opts.oper not in (LISTSP, LISTSPNV, ALL)):
        if not opts.quiet:
            sys.stderr.write(USAGE)
        return None
    return opts


def _mark(opts: Options, name: str, attrs: List[List[str]]) -> int:
    try:
        common.request("manager", command="set", objtype="node", name=name, attrs=attrs)
        return 0
    except PbsError as err:
        if not opts.quiet:
            sys.stderr.write("Error marking node %s - %s\n" % (name, err.text))
        return 1


def _state(record: Any) -> str:
    for item in record.get("attrs", []):
        if item[0] == "state":
            return str(item[1])
    return ""


def _comment(record: Any) -> str:
    for item in record.get("attrs", []):
        if item[0] == "comment":
            return str(item[1])
    return ""


def body(argv: List[str]) -> int:
    if len(argv) == 1 and argv[0] == "--version":
        sys.stdout.write("pbs_version = %s\n" % VERSION)
        return 0
    opts = parse(argv)
    if opts is None:
        return 1
    comment_attr = [["comment", "=", opts.comment[:79]]] if opts.comment is not None else []
    if opts.oper in (OFFLINE, RESET, CLEAR, COMMENT):
        ops = {OFFLINE: [["state", "+=", "offline"]], RESET: [["state", "-=", "offline"]],
               CLEAR: [["state", "-=", "offline"], ["state", "-=", "down"]], COMMENT: []}
        rc = 0
        for name in opts.names:
            if opts.oper == COMMENT and name == "":
                continue
            rc |= _mark(opts, name, ops[opts.oper] + comment_attr)
        return rc
    doc: Any = None
    if opts.oper in (ALL, LISTMRK, LISTSPNV, DOWN):
        try:
            everything = list(common.request("statnode", name=None, vnodes=opts.vnodes))
        except PbsError as err:
            if not opts.quiet:
                sys.stderr.write("%s: %s\n" % (CMD, err.text))
            return 1
        if not everything:
            if not opts.quiet:
                sys.stderr.write("%s: No nodes found\n" % CMD)
            return 0
    else:
        everything = []
    if opts.fmt == "json":
        import time

        from fake_pbs.cli.render.pbsjson import JsonDoc
        from fake_pbs.cli.qstat import server_name

        doc = JsonDoc()
        doc.integer("timestamp", int(time.time()))
        doc.string("pbs_version", VERSION)
        doc.string("pbs_server", server_name())
        doc.open_object("nodes")
    rc = 0
    if opts.oper == LISTMRK:
        for record in everything:
            state = _state(record)
            if "down" in state or "offline" in state:
                sys.stdout.write(nodes.marked_line(str(record["name"]), state, _comment(record)))
        return 0
    if opts.oper == ALL:
        for record in everything:
            _print_node(opts, doc, record)
    else:
        for name in opts.names:
            try:
                found = common.request("statnode", name=name, vnodes=opts.vnodes)
            except PbsError as err:
                if doc is not None:
                    doc.open_object(name)
                    doc.close_with_string("Error", err.text)
                else:
                    sys.stderr.write("Node: %s,  Error: %s\n" % (name, err.text))
                    rc = 1
                continue
            for record in found:
                _print_node(opts, doc, record)
    if doc is not None:
        doc.close()
        sys.stdout.write(doc.render())
    return rc


def _print_node(opts: Options, doc: Any, record: Any) -> None:
    name, attrs = str(record["name"]), record.get("attrs", [])
    if opts.summary:
        _print_summary(opts, doc, name, attrs)
    elif doc is not None:
        nodes.json_node(doc, name, attrs)
    elif opts.fmt == "dsv":
        sys.stdout.write(nodes.dsv_line(name, attrs, opts.delim))
    else:
        sys.stdout.write(nodes.text_block(name, attrs))


def _print_summary(opts: Options, doc: Any, name: str, attrs: Any) -> None:
    """``-S[j][L]``: the summary line (the header once, before the first, as PBS's static
    done_headers does); job ids lose the default server's suffix in the text form only."""
    from fake_pbs.cli.render import nodesummary

    server: Optional[str] = None
    if opts.fmt == "default":
        from fake_pbs.cli.qstat import server_name
        server = server_name()
    row = nodesummary.Summary(name, attrs, opts.jobs_view, opts.long_view, server)
    if doc is not None:
        nodesummary.json_entry(doc, row, opts.jobs_view)
    elif opts.fmt == "dsv":
        sys.stdout.write(nodesummary.dsv_line(row, opts.jobs_view, opts.delim))
    else:
        if not opts.header_done:
            sys.stdout.write(nodesummary.JOBS_HEADER if opts.jobs_view
                             else nodesummary.NODES_HEADER)
            opts.header_done = True
        sys.stdout.write(nodesummary.text_line(row, opts.jobs_view, opts.long_view))


def main() -> None:
    common.run_main(CMD, body)
