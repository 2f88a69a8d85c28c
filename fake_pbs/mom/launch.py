"""What the shepherd runs for a job: argv, environment, identity, cwd, umask and streams.

The mom computes it (hooks such as execjob_launch may change progname, argv and env) and stores
it as ``launch.json``; the shepherd only executes it, so it stays small and independent of the mom.
"""
import html
import os
import pwd
import re
import secrets
import shlex
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

from fake_pbs import paths
from fake_pbs.model.attrs import is_true
from fake_pbs.mom import hostnames, siteenv
from fake_pbs.mom.environment import job_environment
from fake_pbs.mom.layout import JobLayout
from fake_pbs.mom.limits import process_limits
from fake_pbs.mom.streams import job_streams

DEFAULT_SHELL = "/bin/bash"
DEFAULT_UMASK = 0o077
_JSDL_EXE = re.compile(r"<jsdl-hpcpa:Executable>(.*?)</jsdl-hpcpa:Executable>", re.S)
_JSDL_ARG = re.compile(r"<jsdl-hpcpa:Argument>(.*?)</jsdl-hpcpa:Argument>", re.S)


def choose_shell(attrs: Mapping[str, str], host: str, login_shell: Optional[str]) -> str:
    """Shell_Path_List (an entry for this host, else one without host), else the login shell."""
    fallback: Optional[str] = None
    for entry in attrs.get("Shell_Path_List", "").split(","):
        path, _, where = entry.strip().partition("@")
        if path and where == host:
            return path
        if path and not where and fallback is None:
            fallback = path
    if fallback:
        return fallback
    if login_shell and not login_shell.endswith(("nologin", "/false")):
        return login_shell
    return DEFAULT_SHELL


def login_shell_of(user: str) -> Optional[str]:
    try:
        return pwd.getpwnam(user).pw_shell or None
    except KeyError:
        return None


def command_of(attrs: Mapping[str, str]) -> Optional[List[str]]:
    """The argv of a ``qsub -- command args`` job (its ``executable`` attribute), else None."""
    exe = _JSDL_EXE.search(attrs.get("executable", ""))
    if not exe:
        return None
    args = [html.unescape(a) for a in _JSDL_ARG.findall(attrs.get("argument_list", ""))]
    return [html.unescape(exe.group(1))] + args


def shell_argv(shell: str, script: str, text: str) -> List[str]:
    """How the job shell runs the job script (extra j14, j14d, j14g, j14h, k03a).

    PBS's mom starts the shell and writes the script's path on its standard input, so the shell
    runs the script as a command: a script that starts with ``#!`` is executed through that
    interpreter whatever the shell (``-S /bin/sh`` only changes $SHELL; $0 is the script's path),
    and one without is read by the shell itself.  Here the shell is not a login shell (see
    docs/differences.md) and gets the path with ``-c``; the ``exit $?`` after it keeps the
    shell from exec'ing the script (bash would for a lone command), so that, as PBS's ``-bash``
    (k03a), the shell stays the session leader and the interpreter's parent: a signal sent to
    the job's session ends the job through the shell even when the script traps it (k03h-k03k:
    ``qsig -s USR1`` -> Exit_status 266), and the script runs at SHLVL 2 as in PBS (i01b).
    A shell that cannot be executed still fails the job with exit 254.
    """
    if text.startswith("#!"):
        return [shell, "-c", shlex.quote(script) + "\nexit $?"]
    return [shell, script]


_OCTAL_HEAD = re.compile(r"^\s*([+-]?[0-7]+)")


def parse_umask(attrs: Mapping[str, str]) -> int:
    """The job's umask as PBS's mom takes it (start_exec.c): the stored long is printed in
    decimal (``%ld``: ``-W umask=022`` is stored 22) and read back as octal (``%o``: 022), as
    far as its digits are octal ones (``78`` gives 07); none (``9``) or no umask gives 077."""
    found = _OCTAL_HEAD.match(str(attrs.get("umask", "")))
    if found is None:
        return DEFAULT_UMASK
    return int(found.group(1), 8) & 0o777


SANDBOX_SUFFIX = "x8z"


def sandbox_dir(attrs: Mapping[str, str], jobid: str, home_dir: str) -> Optional[str]:
    """``-W sandbox=PRIVATE`` (extra i07): ``~/pbs.<jobid>.x8z`` is PBS_JOBDIR and cwd (the
    suffix is fixed: start_exec.c jobdirname uses job.h's FAKE_RANDOM, "x8z")."""
    if attrs.get("sandbox", "").upper() != "PRIVATE":
        return None
    return os.path.join(home_dir, "pbs.%s.%s" % (jobid, SANDBOX_SUFFIX))


def build_launch(job: Mapping[str, Any], layout: JobLayout, host: str, cluster_home: str,
                 mom_socket: str, drop_privileges: bool) -> Dict[str, Any]:
    """The launch record for ``job`` (a start message's job object)."""
    attrs: Mapping[str, str] = job.get("attrs", {})
    user = str(job.get("user", ""))
    home_dir = str(job.get("home") or "/")
    shell = choose_shell(attrs, host, login_shell_of(user))
    env = siteenv.load(Path(cluster_home))
    env.update(siteenv.per_job(str(layout.nodefile), env))
    env.update(siteenv.per_host(str(layout.tmpdir), env))
    env.update(job_environment(job, shell, str(layout.nodefile), str(layout.tmpdir),
                               secrets.token_hex(16).upper(), home_dir, cluster_home))
    # the job shell keeps the machine's own name (hostnames.job_variables); TM tasks take theirs
    env.update(hostnames.job_variables(Path(cluster_home), host, int(job.get("uid", os.getuid())),
                                       env, named=False))
    command = command_of(attrs)
    argv = command if command is not None else shell_argv(
        shell, str(layout.script), str(job.get("script") or ""))
    streams = job_streams(attrs, layout, home_dir)
    sandbox = sandbox_dir(attrs, layout.jobid, home_dir)
    if sandbox is not None:
        env["PBS_JOBDIR"] = sandbox
    extra: Dict[str, Any] = {}
    if is_interactive(attrs):
        # start_exec.c: PBS_ENVIRONMENT says so; the shell is a login shell on the job's pty
        # (I01's "logout"), or the ``-- command`` (I05); the script is not run (I09)
        env["PBS_ENVIRONMENT"] = "PBS_INTERACTIVE"
        if command is None:
            argv = ["-" + os.path.basename(shell)]
            extra["progname"] = shell
            # A login shell's profile sets PATH anew (PBS's /etc/profile.d adds /opt/pbs/bin):
            # bash puts the fake's commands first again before its first prompt, then forgets
            # how (docs/differences.md)
            env["PROMPT_COMMAND"] = "PATH=%s:$PATH; unset PROMPT_COMMAND" % shlex.quote(
                str(paths.bin_dir()))
        extra["interactive"] = {"socket": paths.interactive_socket_path(cluster_home,
                                                                        layout.jobid)}
        # the terminal is its stdin, stdout and stderr; nothing is spooled nor delivered
        extra["stdout"] = extra["stderr"] = os.devnull
    launch = {
        "jobid": layout.jobid,
        "argv": argv,
        "env": env,
        "cwd": sandbox or (home_dir if os.path.isdir(home_dir) else "/"),
        "sandbox": sandbox,
        "uid": int(job.get("uid", os.getuid())),
        "gid": int(job.get("gid", os.getgid())),
        "user": user,
        "drop_privileges": drop_privileges,
        "umask": parse_umask(attrs),
        "stdout": streams["o"].write_to,
        "stderr": streams["e"].write_to,
        "mom_socket": mom_socket,
        "limits": process_limits(attrs, str(job.get("exec_vnode") or ""), host),
    }
    launch.update(extra)
    return launch


def is_interactive(attrs: Mapping[str, str]) -> bool:
    """A ``qsub -I`` job (its ``interactive`` attribute)."""
    return is_true(attrs.get("interactive"))
