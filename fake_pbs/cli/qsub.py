"""qsub: submit a job script (or ``-- command``) to the fake PBS server.

Follows OpenPBS 23.06 ``qsub.c``: command-line options, then ``#PBS`` directives of the script
at lower precedence, client-side defaults, Variable_List, value verification (ECL), one
``queuejob`` request, the job id on stdout.  ``-W block=true`` waits for the job's end and exits
with its exit status (transcripts a17/a18).  ``-I`` submits an interactive job and attaches
the terminal to it (fake_pbs/cli/qsub_interactive.py).
"""
from __future__ import annotations

import sys
import time

from fake_pbs import leanos
from fake_pbs.cli import common, qsub_env, qsub_submit, qsub_verify
from fake_pbs.cli.posix_getopt import OptionError, strict
from fake_pbs.cli.qsub_options import (CMDLINE, DIRECTIVE, GETOPT_SPEC, SERVER_DEFAULT,
                                       QsubExit, QsubState)
from fake_pbs.model.errors import PBSE_FORCE_QSUB_UPDATE, PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, NoReturn, Optional, Tuple

    Built = Tuple[QsubState, Dict[str, str], str]
else:  # run time: the names exist, typing is not imported
    Built = object

VERSION = "pbs_version = 23.06.06"
USAGE = (
    "usage: qsub [-a date_time] [-A account_string] [-c interval]\n"
    "\t[-C directive_prefix] [-e path] [-f ] [-h ] [-I [-X]] [-j oe|eo] [-J X-Y[:Z]]\n"
    "\t[-k keep] [-l resource_list] [-m mail_options] [-M user_list]\n"
    "\t[-N jobname] [-o path] [-p priority] [-P project] [-q queue] [-r y|n]\n"
    "\t[-R o|e|oe] [-S path] [-u user_list] [-W otherattributes=value...]\n"
    "\t[-v variable_list] [-V ] [-z] [script | -- command [arg1 ...]]\n"
    "       qsub --version\n")
STDIN_PROMPT = "Job script will be read from standard input. Submit with CTRL+D.\n"
CLIENT_DEFAULTS = (("Checkpoint", "u"), ("Hold_Types", "n"), ("Join_Path", "n"),
                   ("Keep_Files", "n"), ("Mail_Points", "a"), ("Priority", "0"),
                   ("Rerunable", "True"))
BLOCK_TIMEOUT_ENV = "FAKE_PBS_BLOCK_TIMEOUT"
_BLOCK_TIMEOUT_DEFAULT = 30 * 24 * 3600.0


def _usage_exit(messages: List[str]) -> QsubExit:
    return QsubExit("".join(m + "\n" for m in messages) + USAGE.rstrip("\n"), 2)


def _xml(text: str) -> str:
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"),
                         ("'", "&apos;")):
        text = text.replace(char, entity)
    return text


def _command_line(state: QsubState, argv: List[str]) -> Tuple[Optional[str], List[str]]:
    """Apply the command line; return (script path or None for stdin, command words)."""
    try:
        opts, operands = strict(argv, GETOPT_SPEC, "qsub")
    except OptionError as err:
        raise _usage_exit([err.message]) from None
    errors = state.apply(opts, CMDLINE)
    if operands:
        if operands[0] == "--":
            errors += len(operands) == 1
        elif len(operands) != 1:
            errors += 1
    if errors:
        raise _usage_exit(state.errors)
    _mail_j(state)
    state.check_x11()
    if operands and operands[0] == "--":
        return None, operands[1:]
    return (operands[0] if operands else None), []


def _mail_j(state: QsubState) -> None:
    message = state.check_mail_j()
    if message:
        raise QsubExit(message, 1)


def _prefix(state: QsubState) -> str:
    from fake_pbs.cli import qsub_script

    if state.prefix:
        return state.prefix
    if state.given("C"):
        return ""
    return leanos.environ().get("PBS_DPREFIX", qsub_script.DEFAULT_PREFIX)


def _read_script(state: QsubState, path: Optional[str], read: Optional[str] = None) -> str:
    """The script text; sets the default Job_Name as PBS does (basename, or STDIN).
    ``read``: the text a first attempt read (standard input is read once)."""
    if path is None or path in ("", "-"):
        if read is not None:
            if not state.given("N"):
                state.attrs["Job_Name"] = "STDIN"
            return read
        if sys.stdin.isatty():
            sys.stdout.write(STDIN_PROMPT)
            sys.stdout.flush()
        if not state.given("N"):
            state.attrs["Job_Name"] = "STDIN"
        return sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    try:
        info = leanos.stat(path)
    except OSError as err:
        raise QsubExit("qsub: script file:: %s" % err.strerror, 1) from None
    if not leanos.is_regular(info.st_mode):
        raise QsubExit("qsub: script not a file", 1)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise QsubExit("qsub: opening script file:: %s" % err.strerror, 8) from None
    if not state.given("N"):
        state.attrs["Job_Name"] = path.rsplit("/", 1)[-1]
    return data.decode("utf-8", "surrogateescape")


def _directives(state: QsubState, script: str, defaults: str = "") -> None:
    """The script's directives, then the server's ``default_qsub_arguments`` one level below
    (do_dir with CMDLINE - 2: they never override the script's or the command line's)."""
    # imported here: ``qsub -- command`` reads no script (one module less at start-up)
    from fake_pbs.cli import qsub_script

    texts = [(t, DIRECTIVE) for t in qsub_script.directives(script, _prefix(state))] \
        if script else []
    if defaults.strip():
        texts.append((defaults, SERVER_DEFAULT))
    for text, level in texts:
        try:
            words = qsub_script.split_words(text)
        except qsub_script.UnmatchedQuote:
            raise QsubExit("qsub: unmatched \0", 1) from None
        messages: List[str] = []
        try:
            opts, operands = strict(words, GETOPT_SPEC, "qsub")
            before = len(state.errors)
            errors = state.apply(opts, level) + (len(operands) > 0)
            messages = state.errors[before:]
        except OptionError as err:
            errors, messages = 1, [err.message]
        if errors:
            detail = "".join(w + " " for w in words)
            raise QsubExit("".join(m + "\n" for m in messages)
                           + "qsub: directive error: " + detail, 1)
        _mail_j(state)


def _destination(text: str) -> Optional[str]:
    """The queue part of ``queue[@server]``; raises on a malformed destination."""
    queue, at, server = text.partition("@")
    if (at and not server) or "@" in server:
        raise QsubExit("qsub: illegally formed destination: %s" % text, 2)
    return queue or None


def build(argv: List[str], env: Dict[str, str], cwd: str, host: str,
          defaults: str = "", read: Optional[str] = None) -> Built:
    """Everything before the request: (state, queuejob attrs, script); ``defaults``: the
    server's default_qsub_arguments."""
    state = QsubState(env)
    path, command = _command_line(state, argv)
    script = ""
    attrs = state.attrs
    if command:
        attrs["executable"] = "<jsdl-hpcpa:Executable>%s</jsdl-hpcpa:Executable>" % _xml(
            command[0])
        if len(command) > 1:
            attrs["argument_list"] = "".join(
                "<jsdl-hpcpa:Argument>%s</jsdl-hpcpa:Argument>" % _xml(a) for a in command[1:])
        if not state.given("N"):
            attrs["Job_Name"] = "STDIN"
        _directives(state, "", defaults)
    elif state.interactive and path in (None, "", "-"):
        # qsub.c reads no script from stdin for -I: the terminal is the job's
        if not state.given("N"):
            attrs["Job_Name"] = "STDIN"
        _directives(state, "", defaults)
    else:
        script = _read_script(state, path, read)
        _directives(state, script, defaults)
        state.check_x11()
    if not state.given("S") and "PBS_SHELL" in env:
        attrs["Shell_Path_List"] = env["PBS_SHELL"]
    queue = _destination(state.destination)
    try:
        attrs["Variable_List"] = qsub_env.variable_list(env, cwd, state.v_value,
                                                        state.export_all)
    except qsub_env.EnvError:
        raise QsubExit("qsub: cannot send environment with the job", 1) from None
    try:
        qsub_verify.verify(attrs, state.resources, host, cwd)
    except qsub_verify.VerifyError as err:
        raise QsubExit(err.message + ("\n" + USAGE.rstrip("\n") if err.usage else ""),
                       err.code) from None
    for name, value in CLIENT_DEFAULTS:
        attrs.setdefault(name, value)
    for res, value in state.resources.items():
        attrs["Resource_List." + res] = value
    if argv:
        attrs["Submit_arguments"] = " ".join(argv)
    if queue:
        attrs["queue"] = queue
    if state.block:
        attrs["block"] = "True"  # PBS keeps it on the job: b22e shows "block":"True"
    if state.interactive:
        attrs["interactive"] = "True"  # PBS sends qsub's port; the server shows True (I02)
    return state, attrs, script


def _wait(jobid: str) -> int:
    """``-W block=true``: poll the job until it finishes; its exit status is ours."""
    limit = float(leanos.getenv(BLOCK_TIMEOUT_ENV) or _BLOCK_TIMEOUT_DEFAULT)
    deadline = time.monotonic() + limit
    delay = 0.05
    while time.monotonic() < deadline:
        try:
            reply = common.request("statjob", id=jobid, extend="x",
                                   names=["job_state", "substate", "Exit_status"])
        except PbsError:
            return 0
        attrs = dict(reply[0]["attrs"]) if reply else {}
        # PBS replies when the server takes the obit: E/51 (stage-out) already counts (a17b)
        obit_in = attrs.get("job_state") == "E" and attrs.get("substate") == "51"
        if not reply or attrs.get("job_state") in ("F", "X") or obit_in:
            return int(attrs.get("Exit_status", "0") or 0) % 256
        time.sleep(delay)
        # at most 0.25 s: PBS replies at the obit, and under the pbs pace (fake_pbs/pace.py)
        # the E phase that follows lasts 1 s; a longer nap would miss it (a17b's vm/1)
        delay = min(delay * 2, 0.25)
    sys.stderr.write("qsub: wait for job %s timed out\n" % jobid)
    return 2


def body(argv: List[str]) -> int:
    if len(argv) == 1 and argv[0].lower() == "--version":
        print(VERSION)
        return 0
    cwd = leanos.getcwd()
    host = qsub_verify.submit_host()
    env = dict(leanos.environ())
    defaults = ""
    stdin_script: Optional[str] = None
    for attempt in (1, 2):
        # qsub.c do_submit: the server refuses a submission built with other
        # default_qsub_arguments than its own (PBSE_FORCE_QSUB_UPDATE, the value in the text);
        # qsub builds the job again with them, once
        try:
            state, attrs, script = build(argv, env, cwd, host, defaults, stdin_script)
        except QsubExit as stop:
            if stop.message:
                sys.stderr.write(stop.message + "\n")
            return stop.code
        stdin_script = script
        try:
            jobid = qsub_submit.submit({"attrs": attrs, "script": script, "cwd": cwd, "env": env,
                                        "qsub_defaults": defaults})
        except PbsError as err:
            if err.code == PBSE_FORCE_QSUB_UPDATE and attempt == 1:
                defaults = err.text
                continue
            sys.stderr.write("qsub: %s\n" % err.text)
            return err.exit_code
        break
    if state.interactive:
        from fake_pbs.cli import qsub_interactive

        return qsub_interactive.attend(jobid)
    if not state.quiet:
        sys.stdout.write(jobid + "\n")
    if state.block:
        sys.stdout.flush()
        return _wait(jobid)
    return 0


def _exit_now(code: object) -> NoReturn:
    """Exit as ``SystemExit(code)`` would, without the interpreter's teardown: a one-shot
    command needs no module and object clean-up, and it costs every submission ~1.5 ms (a
    serial submit loop pays it per job; docs/performance.md, figure 3a)."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        sys.stderr.write("%s\n" % code)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: run_main chose the status
            pass
    leanos._exit(status & 0xFF)


def main() -> None:
    try:
        common.run_main("qsub", body)
    except SystemExit as stop:
        _exit_now(stop.code)
