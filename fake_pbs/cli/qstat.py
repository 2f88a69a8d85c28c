"""qstat: status of jobs, queues and servers, printed exactly as OpenPBS 23.06 prints it.

As the real command, it handles each operand on its own: one ``statjob`` per job id, errors on
stderr as they happen, exit status = the last error's code modulo 256.  The server's status is
fetched with the first operand only; the table header depends on it, so when the first job id
fails no header is printed for the later ones (PBS's quirk, kept).
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common
from fake_pbs.cli import posix_getopt
from fake_pbs.model.errors import PbsError
from fake_pbs.model.stateselect import state_selected

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Tuple

    Criterion = Tuple[str, str]  # (what, value): state letters, users, array, queue
else:  # run time: the names exist, typing is not imported
    Criterion = object

CMD = "qstat"
VERSION = "23.06.06"
GETOPT_SPEC = "ainpqrstwxu:fGHJMQEBW:T1F:D:"

PBSE_UNKJOBID = 15001
PBSE_PERM = 15007
PBSE_HISTJOBID = 15139
PBSE_JOBHISTNOTSET = 15140

USAGE = (
    "usage: \n"
    "qstat [-f] [-J] [-p] [-t] [-x] [-E] [-F format | -w] [-D delim] "
    "[ job_identifier... | destination... ]\n"
    "qstat [-a|-i|-r|-H|-T] [-J] [-t] [-u user] [-n] [-s] [-G|-M] [-1] [-w]\n"
    "\t[ job_identifier... | destination... ]\n"
    "qstat -Q [-f] [-F format] [-D delim] [ destination... ]\n"
    "qstat -q [-G|-M] [ destination... ]\n"
    "qstat -B [-f] [-F format] [-D delim] [ server_name... ]\n"
    "qstat --version\n")
CONFLICT = "qstat: conflicting options.\n"

# PBS's ALT_DISPLAY_* bits: the alternate display is chosen when any of them is set.
ALT_A, ALT_I, ALT_R, ALT_U, ALT_N, ALT_S, ALT_H, ALT_Q = 1, 2, 4, 8, 0x10, 0x20, 0x40, 0x80
ALT_MW, ALT_G, ALT_1, ALT_W, ALT_T = 0x200, 0x400, 0x800, 0x1000, 0x2000

FORMATS = ("default", "dsv", "json")
# qstat.c's basic_attribs: what the default job table asks the server for.
BASIC_ATTRIBS = ("Job_Name", "Job_Owner", "resources_used", "job_state", "queue")
JOBS, QUEUES, SERVERS = "jobs", "queues", "servers"


class Options:
    """qstat's parsed command line."""

    def __init__(self) -> None:
        self.mode = JOBS
        self.alt = 0
        self.full = False
        self.percent = False
        self.wide = False
        self.extend = ""
        self.fmt = "default"
        self.delim = "|"
        self.criteria: List[Criterion] = []
        self.operands: List[str] = []


def parse(argv: List[str]) -> Tuple[Optional[Options], str]:
    """Options, or None and the text for stderr (then qstat exits 2)."""
    opts = Options()
    parsed = posix_getopt.getopt(CMD, argv, GETOPT_SPEC)
    err: List[str] = [e + "\n" for e in parsed.errors]
    errflg = len(parsed.errors)
    b_opt = q_opt = False
    for letter, arg in parsed.options:
        if letter == "a":
            opts.alt |= ALT_A
        elif letter == "T":
            opts.alt |= ALT_T
        elif letter == "i":
            opts.alt |= ALT_I
            opts.criteria.append(("state", "EHQTW"))
        elif letter == "r":
            opts.alt |= ALT_R
            opts.criteria.append(("state", "RS"))
        elif letter == "H":
            opts.alt |= ALT_H
            _extend(opts, "x")
            opts.criteria.append(("state", "MFX"))
        elif letter == "t":
            _extend(opts, "t")
        elif letter == "x":
            _extend(opts, "x")
        elif letter == "u":
            opts.alt |= ALT_U
            opts.criteria.append(("user", arg or ""))
        elif letter == "n":
            opts.alt |= ALT_N
            opts.full = False
        elif letter == "p":
            opts.percent = True
        elif letter == "s":
            opts.alt |= ALT_S
            opts.full = False
        elif letter == "q":
            opts.alt |= ALT_Q
            opts.mode = QUEUES
        elif letter == "G":
            opts.alt |= ALT_G
        elif letter == "J":
            opts.criteria.append(("array", "True"))
        elif letter == "M":
            opts.alt |= ALT_MW
        elif letter == "1":
            opts.alt |= ALT_1
        elif letter == "w":
            opts.alt |= ALT_W
            opts.wide = True
        elif letter == "f":
            opts.full = True
        elif letter == "B":
            b_opt = True
            opts.mode = SERVERS
            if q_opt or (opts.alt and not opts.wide):
                err.append(CONFLICT)
                errflg += 1
        elif letter == "Q":
            q_opt = True
            opts.mode = QUEUES
            if b_opt or (opts.alt and not opts.wide):
                err.append(CONFLICT)
                errflg += 1
        elif letter == "E":
            pass  # express: PBS batches the ids; the answers are the same one by one
        elif letter == "D":
            if opts.fmt == "dsv":
                opts.delim = arg or ""
            else:
                errflg += 1
        elif letter == "F":
            lowered = (arg or "").lower()
            if lowered in FORMATS:
                opts.fmt = lowered
            else:
                errflg += 1
        elif letter == "W":
            errflg += _parse_w(opts, arg or "")
        else:
            errflg += 1
    kinds = opts.alt & (ALT_A | ALT_I | ALT_R | ALT_Q | ALT_H)
    if kinds and kinds not in (ALT_A, ALT_I, ALT_R, ALT_Q, ALT_H):
        err.append(CONFLICT)
        errflg += 1
    if opts.alt & (ALT_MW | ALT_G) == (ALT_MW | ALT_G):
        err.append(CONFLICT)
        errflg += 1
    if not (opts.fmt == "default" or opts.full):
        err.append(CONFLICT)
        errflg += 1
    if opts.alt & ALT_Q and opts.full:
        err.append(CONFLICT)
        errflg += 1
    if opts.alt & ALT_1 and not opts.alt & (ALT_N | ALT_S):
        err.append(CONFLICT)
        errflg += 1
    if opts.wide and opts.fmt != "default":
        err.append("qstat: option w cannot be used with -F\n")
        errflg += 1
    if errflg:
        return None, "".join(err) + USAGE
    opts.operands = parsed.operands
    return opts, ""


def _extend(opts: Options, letter: str) -> None:
    if letter not in opts.extend:
        opts.extend += letter


def _parse_w(opts: Options, text: str) -> int:
    """The old ``-W`` letters form; returns the number of errors."""
    errors = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "a":
            opts.alt |= ALT_A
        elif ch == "i":
            opts.alt |= ALT_I
            opts.criteria.append(("state", "EHQTW"))
        elif ch == "r":
            opts.alt |= ALT_R
            opts.criteria.append(("state", "RS"))
        elif ch == "H":
            opts.alt |= ALT_H
            _extend(opts, "x")
            opts.criteria.append(("state", "MF"))
        elif ch == "u":
            opts.alt |= ALT_U
            opts.criteria.append(("user", text[i + 1:].lstrip(" ")))
            break
        elif ch in "nsqGM1":
            opts.alt |= {"n": ALT_N, "s": ALT_S, "q": ALT_Q, "G": ALT_G, "M": ALT_MW,
                         "1": ALT_1}[ch]
            if ch == "q":
                opts.mode = QUEUES
        elif ch != " ":
            errors += 1
        i += 1
    return errors


def server_name() -> str:
    """The default server's name (PBS_SERVER), from the cluster's configuration."""
    from fake_pbs import paths
    from fake_pbs.jsonwire import loads

    try:
        with open(paths.config_file_path(paths.cluster_home_path()), "r") as handle:
            name = loads(handle.read()).get("server_name")
        if isinstance(name, str) and name:
            return name
    except (OSError, ValueError):
        pass
    data = common.request("ping")
    return str(data.get("server_name", "")) if isinstance(data, dict) else ""


def qualify_job_id(operand: str, server: str) -> Optional[str]:
    """The id qstat sends (``12`` -> ``12.vm``), or None when PBS finds it ill-formed."""
    text = operand.strip(" ")
    seq, dot, suffix = text.partition(".")
    if "@" in suffix:
        suffix = suffix.split("@", 1)[0]
    if not seq or not seq[0].isdigit():
        return None
    if not dot:
        return "%s.%s" % (seq, server)
    if suffix.lower() == server.lower():
        return "%s.%s" % (seq, server)
    if suffix.lower().startswith(server.lower() + "."):
        return "%s.%s" % (seq, suffix)
    return None


def _owner_matches(owner: str, users: str) -> bool:
    user, _, host = owner.partition("@")
    for wanted in users.split(","):
        w_user, at, w_host = wanted.strip().partition("@")
        if w_user == user and (not at or w_host == host):
            return True
    return False


def select(jobs: List[Dict[str, Any]], criteria: List[Criterion],
           subjobs: bool = False) -> List[Dict[str, Any]]:
    """PBS's ``pbs_selstat`` criteria, applied to the full status list.

    With ``-t`` (``subjobs``) a selected array stands for its subjobs, the state criterion
    checked against each subjob's state, and never appears itself (req_select.c: ``qstat -J
    -t`` lists only subjobs, j02d)."""
    if subjobs:
        chosen = []
        other = [c for c in criteria if c[0] != "state"]
        states = [c for c in criteria if c[0] == "state"]
        for job in jobs:
            values = {str(k): str(v) for k, v in job.get("attrs", [])}
            if values.get("array_id"):
                continue
            if values.get("array") != "True":
                chosen.extend(select([job], criteria))
            elif select([job], other):
                chosen.extend(select([child for child in jobs
                                      if _array_id(child) == job.get("id")], states))
        return chosen
    chosen = []
    for job in jobs:
        values = {str(k): str(v) for k, v in job.get("attrs", [])}
        keep = True
        for what, wanted in criteria:
            if what == "state":
                keep = state_selected(values.get("job_state", "")[:1], wanted)
            elif what == "user":
                keep = _owner_matches(values.get("Job_Owner", ""), wanted)
            elif what == "array":
                keep = values.get("array", "") == "True"
            elif what == "queue":
                keep = values.get("queue", "") == wanted
            if not keep:
                break
        if keep:
            chosen.append(job)
    return chosen


def _array_id(job: Dict[str, Any]) -> str:
    for key, value in job.get("attrs", []):
        if key == "array_id":
            return str(value)
    return ""


class Run:
    """One qstat invocation: its options, output, and the state PBS keeps across operands."""

    def __init__(self, opts: Options, now: float) -> None:
        self.opts = opts
        self.now = now
        self.out: List[str] = []
        self.any_failed = 0
        self.server_stat_done = False
        self.print_header = True
        self.first_stat = True
        self.doc: Any = None
        self.server = ""

    def emit(self, text: str) -> None:
        sys.stdout.write(text)

    def error(self, text: str) -> None:
        sys.stdout.flush()
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    # -- jobs -----------------------------------------------------------------------------
    def jobs(self, operand: Optional[str]) -> None:
        opts = self.opts
        job_id: Optional[str] = None
        criteria = list(opts.criteria)
        single = False
        if operand is not None:
            if operand.strip(" ")[:1].isdigit():
                single = True
                job_id = qualify_job_id(operand, self.server)
                if job_id is None:
                    self.error("qstat: illegally formed job identifier: %s" % operand)
                    self.any_failed = 1
                    return
            else:
                queue = operand.split("@", 1)[0]
                if queue:
                    criteria.append(("queue", queue))
        prtheader: Optional[Dict[str, Any]] = None
        if not self.server_stat_done:
            self.server_stat_done = True
            try:
                reply = common.request("statsvr")
                prtheader = reply if isinstance(reply, dict) else None
            except PbsError as err:
                self.any_failed = err.code
                self.error("qstat: %s" % err.text)
                return
        names = self._display_attribs(criteria)
        try:
            if single or not criteria:
                records = common.request("statjob", id=job_id, extend=opts.extend, **names)
            else:
                records = select(common.request("statjob", id=None, extend=opts.extend,
                                                **names), criteria, "t" in opts.extend)
        except PbsError as err:
            self._job_error(err, job_id or "")
            return
        if not records:
            return
        self.show_jobs(list(records), prtheader)

    def _display_attribs(self, criteria: List[Criterion]) -> Dict[str, Any]:
        """The ``names`` argument of statjob: for the default table, qstat.c's
        ``basic_attribs`` (so that the reply carries 5 attributes per job, not 50, which
        matters with thousands of finished jobs under ``-x``), plus what the client-side
        selection reads; every attribute (no argument) for the other displays."""
        opts = self.opts
        if opts.full or opts.percent or opts.alt & ~ALT_W:
            return {}
        names = list(BASIC_ATTRIBS)
        if any(what == "array" for what, _ in criteria) or (criteria and "t" in opts.extend):
            names += ["array", "array_id"]  # the selection reads them (``select``)
        return {"names": names}

    def _job_error(self, err: PbsError, job_id: str) -> None:
        if err.code == PBSE_HISTJOBID:
            self.error("qstat: %s %s, use -x or -H to obtain historical job information"
                       % (job_id, err.text))
        else:
            self.error("qstat: %s %s" % (err.text, job_id))
        self.any_failed = err.code

    def show_jobs(self, records: List[Dict[str, Any]],
                  prtheader: Optional[Dict[str, Any]]) -> None:
        opts = self.opts
        incr = common.wide_ids(prtheader)
        if (opts.alt & ~ALT_W) != 0 and not (opts.wide and opts.full):
            from fake_pbs.cli.render import alttable

            size = alttable.SIZE_MW if opts.alt & ALT_MW else (
                alttable.SIZE_GB if opts.alt & ALT_G else alttable.SIZE_DEFAULT)
            alt = alttable.AltOptions(
                wide=opts.wide, nodes=bool(opts.alt & ALT_N), comment=bool(opts.alt & ALT_S),
                one_line=bool(opts.alt & ALT_1), est=bool(opts.alt & ALT_T), size_opt=size,
                incr_width=incr, now=self.now)
            if prtheader is not None:
                self.emit(alttable.header(str(prtheader.get("name", "")),
                                          _comment(prtheader), opts.wide, alt.est, incr))
            self.emit(alttable.table(records, alt))
        elif opts.full and opts.fmt == "json":
            # Each layout imports its own renderer: a plain qstat spares -f's three modules
            # and qstat -f the table's (start-up cost; docs/performance.md).
            from fake_pbs.cli.render import full

            for record in records:
                self._json_open("Jobs")
                full.json_job_block(self.doc, str(record["id"]), record.get("attrs", []))
        elif opts.full:
            from fake_pbs.cli.render import full

            for record in records:
                triples = full.job_triples(record.get("attrs", []))
                self._full_block("Job Id", "Jobs", str(record["id"]), triples)
        else:
            from fake_pbs.cli.render import jobtable

            if prtheader is not None and opts.fmt == "default":
                self.emit(jobtable.header(_comment(prtheader), opts.wide, incr, opts.percent))
            self.emit(jobtable.table(records, opts.wide, incr, opts.percent))
        self.print_header = False

    def _json_open(self, json_key: str) -> None:
        """The first object shown opens its kind's object (``Jobs``, ``Queue``, ``Server``)."""
        if self.first_stat:
            self.doc.open_object(json_key)
            self.first_stat = False

    def _full_block(self, label: str, json_key: str, name: str, triples: Any) -> None:
        from fake_pbs.cli.render import full

        opts = self.opts
        if opts.fmt == "json":
            self._json_open(json_key)
            full.json_block(self.doc, name, triples)
        elif opts.fmt == "dsv":
            self.emit(full.dsv_block("%s: %s" % (label, name), triples, opts.delim))
        else:
            self.emit(full.text_block("%s: %s" % (label, name), triples, opts.wide))

    # -- queues and servers ------------------------------------------------------------------
    def queues(self, operand: Optional[str]) -> None:
        name: Optional[str] = None
        if operand is not None:
            name = operand.split("@", 1)[0] or None
        try:
            records = common.request("statque", name=name)
        except PbsError as err:
            self.error("qstat: %s %s" % (err.text, name if name is not None else "(null)"))
            self.any_failed = err.code
            return
        if not records:
            return
        opts = self.opts
        if opts.alt & ALT_Q:
            from fake_pbs.cli.render import alttable, queues

            size = alttable.SIZE_MW if opts.alt & ALT_MW else (
                alttable.SIZE_GB if opts.alt & ALT_G else alttable.SIZE_DEFAULT)
            self.emit(queues.queue_summary(self.server, list(records), size))
        elif opts.full:
            from fake_pbs.cli.render import full

            for record in records:
                self._full_block("Queue", "Queue", str(record["name"]),
                                 full.plain_triples(record.get("attrs", [])))
        else:
            from fake_pbs.cli.render import queues

            if self.print_header and opts.fmt == "default":
                self.emit(queues.QUEUE_HEADER)
            self.emit("".join(queues.queue_row(str(r["name"]), r.get("attrs", []))
                              for r in records))
        self.print_header = False

    def servers(self, operand: Optional[str]) -> None:
        try:
            record = common.request("statsvr")
        except PbsError as err:
            self.error("qstat: %s %s" % (err.text, operand or ""))
            self.any_failed = err.code
            return
        if not record:
            return
        opts = self.opts
        name = str(record.get("name", ""))
        if opts.full:
            from fake_pbs.cli.render import full

            self._full_block("Server", "Server", name,
                             full.plain_triples(record.get("attrs", [])))
        else:
            from fake_pbs.cli.render import queues

            if self.print_header and opts.fmt == "default":
                self.emit(queues.SERVER_HEADER)
            self.emit(queues.server_row(name, record.get("attrs", [])))
        self.print_header = False


def _comment(server: Optional[Dict[str, Any]]) -> Optional[str]:
    if server is None:
        return None
    for item in server.get("attrs", []):
        if item[0] == "comment":
            return str(item[1])
    return None


def body(argv: List[str]) -> int:
    if len(argv) == 1 and argv[0] == "--version":
        sys.stdout.write("pbs_version = %s\n" % VERSION)
        return 0
    opts, message = parse(argv)
    if opts is None:
        sys.stderr.write(message)
        return 2
    import time

    run = Run(opts, time.time())
    run.server = server_name()
    if opts.fmt == "json":
        from fake_pbs.cli.render.pbsjson import JsonDoc

        run.doc = JsonDoc()
        run.doc.integer("timestamp", int(run.now))
        run.doc.string("pbs_version", VERSION)
        run.doc.string("pbs_server", run.server)
    handler = {JOBS: run.jobs, QUEUES: run.queues, SERVERS: run.servers}[opts.mode]
    operands: List[Optional[str]] = list(opts.operands) or [None]
    for operand in operands:
        handler(operand)
        if run.any_failed == PBSE_PERM:
            break
    if opts.fmt == "json":
        run.doc.close()
        sys.stdout.write(run.doc.render())
    if run.any_failed == PBSE_JOBHISTNOTSET:
        return 0
    return run.any_failed % 256


def main() -> None:
    common.run_main(CMD, body)
