"""The shepherd: the detached parent of one job shell, independent of the mom.

``python3 -m fake_pbs.mom.shepherd <jobdir>`` reads ``<jobdir>/launch.json`` and forks the
shepherd proper into its own session (re-parented to init when this process exits, so a mom
crash does not touch it), then prints ``ok <pid>`` or ``err <reason>`` once the job shell has
been exec'd or has failed to, and exits: that is the mom's start handshake.
``python3 -m fake_pbs.mom.shepherd --serve <dir>`` is the mom's launcher: the same start for
each job directory it reads on stdin, forked from one process that imported this module once
(fake_pbs/mom/launcher.py).

The shepherd proper starts the job shell in a new session (the job's session id is its pid), as the
job owner when it runs as root, records ``shepherd.json`` {pid, start ticks} atomically, waits for
the shell, records ``exit.json`` {status, cput, mem} atomically and exits: the mom watches that
exit (fake_pbs/mom/exitwatch.py), or, where it cannot, is told (best effort: it also polls).
Exit status: normal exit -> its code; killed by signal N -> 256 + N.
Standard library only; imports kept few, as it starts once per job.
"""
from __future__ import annotations

import gc
import os
import signal
import sys
import time

from fake_pbs import verified_connect
from fake_pbs.jsonwire import dumps
from fake_pbs.mom import rlimits
from fake_pbs.mom.durable import read_json, write_atomic
from fake_pbs.mom.procs import start_ticks
from fake_pbs.mom.spoolnames import is_spool, spool_paths

# Started with ``python3 -S`` once per job: no json/re, socket, pathlib or typing at run time
# (together ~25 ms of every job start; docs/performance.md, hotspot 1).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, NoReturn, Optional

# Python ignores SIGPIPE and SIGXFSZ: the job gets them back as PBS's does (SIGXFSZ ends a
# write past its ``file`` limit).
_HANDLED = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGQUIT,
            signal.SIGXFSZ)


def exit_status(wait_status: int) -> int:
    """PBS's exit status of a waited-for process (reference §3.1)."""
    if os.WIFSIGNALED(wait_status):
        return 256 + os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status)


def _make_sandbox(path: str) -> None:
    """Make the sandbox=PRIVATE directory as the job's owner.  Its name is fixed (PBS's
    ``pbs.<id>.x8z``), so one left by an earlier run of the job is taken as it is."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        if os.path.islink(path) or not os.path.isdir(path):
            raise


def _is_spool(path: str, jobdir: str, launch: Dict[str, Any]) -> bool:
    return is_spool(path, jobdir, str(launch["jobid"]))


def _precreate_spools(jobdir: str, launch: Dict[str, Any]) -> None:
    """A root shepherd creates the job's spool files (their fixed names only: spoolnames.py) in
    the root-owned job directory and gives them to the owner, who could not create them there;
    never through a link (``O_NOFOLLOW``).  Any other path, even one naming a file of the job
    directory, is opened later by the owner's identity alone (PBS's ``open_std_file``)."""
    mode = 0o666 & ~int(launch["umask"])
    wanted = {str(launch["stdout"]), str(launch["stderr"])}
    for path in spool_paths(jobdir, str(launch["jobid"])):
        if path not in wanted:
            continue
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, mode)
        try:
            os.fchown(fd, int(launch["uid"]), int(launch["gid"]))
        finally:
            os.close(fd)


def _stream_flags(path: str, jobdir: str, launch: Dict[str, Any]) -> int:
    """A spool file is never followed through a link; a file the owner keeps (``-k``, or a
    sandbox) is opened as PBS does, as the user, who may follow their own links."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    return flags | os.O_NOFOLLOW if _is_spool(path, jobdir, launch) else flags


def _open_stream(path: str, jobdir: str, launch: Dict[str, Any]) -> int:
    """Open one output stream with the job owner's identity (the caller has dropped to it)."""
    return os.open(path, _stream_flags(path, jobdir, launch), 0o666 & ~int(launch["umask"]))


def _drop_privileges(launch: Dict[str, Any]) -> None:
    gid = int(launch["gid"])
    try:
        os.initgroups(str(launch["user"]), gid)
    except (OSError, KeyError):
        os.setgroups([gid])
    os.setgid(gid)
    os.setuid(int(launch["uid"]))


def _exec_child(jobdir: str, launch: Dict[str, Any], report_fd: int,
                sandbox_made: bool = False, terminal: Optional[int] = None) -> NoReturn:
    """In the forked child: drop to the job owner, create what the job writes (sandbox,
    stdout, stderr) with the owner's identity, become the job shell. Never returns.
    ``terminal``: an interactive job's pty slave, its stdin, stdout and stderr (its session
    is made already: fake_pbs/mom/ptyrelay.py)."""
    try:
        if terminal is None:
            os.setsid()
        for signum in _HANDLED:
            signal.signal(signum, signal.SIG_DFL)
        # mom_set_limits: in the child, still root, before the owner's identity is taken
        refused = rlimits.apply(launch["limits"]) if launch.get("limits") else None
        if launch["drop_privileges"]:
            _drop_privileges(launch)
        umask = int(launch["umask"])
        sandbox = launch.get("sandbox")
        if sandbox and not sandbox_made:
            try:
                _make_sandbox(str(sandbox))
            except OSError as exc:
                _fail(report_fd, "could not create sandbox %s: %s" % (sandbox, exc))
        if terminal is None:
            try:
                out_fd = _open_stream(str(launch["stdout"]), jobdir, launch)
                err_fd = (out_fd if launch["stderr"] == launch["stdout"]
                          else _open_stream(str(launch["stderr"]), jobdir, launch))
            except OSError as exc:
                _fail(report_fd, "cannot open output: %s" % exc)
            in_fd = os.open(os.devnull, os.O_RDONLY)
        else:
            in_fd = out_fd = err_fd = terminal
        os.umask(umask)
        try:
            os.chdir(str(launch["cwd"]))
        except OSError:
            os.chdir("/")
        os.dup2(in_fd, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        if refused:  # start_exec.c: the line on the job's stderr, then JOB_EXEC_FAIL2
            os.write(2, refused.encode())
            _fail(report_fd, refused.strip())
        argv: List[str] = [str(a) for a in launch["argv"]]
        env = {str(k): str(v) for k, v in launch["env"].items()}
        program = str(launch.get("progname") or argv[0])
        # A ``qsub -- cmd`` job's program is exec'd as given, not looked up on a PATH
        # (start_exec.c: execve of the executable, relative names from the cwd)
        _exec_shell(program, argv, env)
    except BaseException as exc:  # any failure before exec goes back to the shepherd
        _fail(report_fd, "%s: %s" % (type(exc).__name__, exc))
    os._exit(127)


class _SpawnRefused(Exception):
    """The job cannot start (its report's text), found before any process was made."""


def _spawn_child(jobdir: str, launch: Dict[str, Any], made: List[bool]) -> Optional[int]:
    """The job shell started as :func:`_exec_child` would, without a fork of this process.

    ``posix_spawn`` makes the child without copying this Python process (a fork and the
    copy-on-write faults until the exec cost ~0.5 ms of CPU a job).  What ``posix_spawn``
    cannot do in the child is done here around it, with the owner's identity where the fork
    path uses it: the owner's groups and ids (effective and real; the saved ids stay ours, so
    this process gets them back, and the exec makes the job's saved ids its own), the sandbox
    (``made`` gets True once it exists), the working directory and the umask.  None when the
    fork path must run instead: anything failed (it fails there the same way and says so as
    PBS does).
    """
    program = str(launch.get("progname") or launch["argv"][0])
    if not hasattr(os, "posix_spawn"):
        return None
    if launch.get("limits"):  # set in the child before its exec: the fork path
        return None
    argv = [str(a) for a in launch["argv"]]
    env = {str(k): str(v) for k, v in launch["env"].items()}
    umask = int(launch["umask"])
    actions: List[Any] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    for fd, key in ((1, "stdout"), (2, "stderr")):
        path = str(launch[key])
        if fd == 2 and launch["stderr"] == launch["stdout"]:
            actions.append((os.POSIX_SPAWN_DUP2, 1, 2))
            continue
        actions.append((os.POSIX_SPAWN_OPEN, fd, path, _stream_flags(path, jobdir, launch),
                        0o666 & ~umask))
    drop = bool(launch["drop_privileges"])
    ids = (os.getresuid(), os.getresgid(), os.getgroups()) if drop else None
    try:
        if drop:
            gid, uid = int(launch["gid"]), int(launch["uid"])
            try:
                try:
                    os.initgroups(str(launch["user"]), gid)
                except (OSError, KeyError):
                    os.setgroups([gid])
                os.setresgid(gid, gid, -1)
                os.setresuid(uid, uid, -1)
            except OSError:
                return None
        sandbox = launch.get("sandbox")
        if sandbox:
            try:
                _make_sandbox(str(sandbox))
            except OSError as exc:
                raise _SpawnRefused("could not create sandbox %s: %s" % (sandbox, exc))
            made[0] = True
        try:
            os.chdir(str(launch["cwd"]))
        except OSError:
            os.chdir("/")
        os.umask(umask)
        try:
            return os.posix_spawn(program, argv, env, file_actions=actions, setsid=True,
                                  setsigdef=_HANDLED)
        except OSError:
            return None
    finally:
        os.umask(0)
        os.chdir("/")
        if ids is not None:
            (ruid, euid, _), (rgid, egid, _), groups = ids
            os.setresuid(-1, euid, -1)  # back to our own: the saved id is still ours
            os.setresuid(ruid, euid, -1)
            os.setgroups(groups)
            os.setresgid(rgid, egid, -1)


def _exec_shell(program: str, argv: List[str], env: Dict[str, str]) -> NoReturn:
    """Exec the job shell (or a ``qsub --`` job's program); as PBS's mom, one that cannot be run
    ends the started job with 254 and one line on its stderr (extra j14b, j14d: ``qsub -S
    /no/such/shell``; start_exec.c finish_exec prints the program execve failed on)."""
    try:
        os.execve(program, argv, env)
    except OSError as exc:
        os.write(2, ("pbs_mom, exec of %s failed with error: %s\n"
                     % (program, exc.strerror)).encode("utf-8", "replace"))
        os._exit(254)


def _fail(report_fd: int, text: str) -> NoReturn:
    try:
        os.write(report_fd, text.encode("utf-8", "replace"))
    finally:
        os._exit(127)


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def _notify_mom(launch: Dict[str, Any]) -> None:
    """Tell the mom the job shell ended; it polls too, so failure here costs only latency."""
    try:  # a socket that fails verified_connect's checks gets nothing (docs/security.md)
        sock = verified_connect.connect(str(launch["mom_socket"]), 2.0)
    except OSError:
        return
    try:
        message = {"op": "shepherd_exit", "job": str(launch["jobid"])}
        sock.sendall(dumps(message).encode("ascii") + b"\n")
        sock.recv(4096)
    except OSError:
        pass
    finally:
        sock.close()


def _record(path: str, value: Dict[str, Any]) -> None:
    """Write one of the shepherd's records atomically and durably (durable.write_atomic)."""
    write_atomic(path, dumps(value).encode("ascii"))


def shepherd(jobdir: str, launch: Dict[str, Any], report_fd: int) -> None:
    """The shepherd proper: start, record, wait, record, notify."""
    for signum in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_IGN)
    os.umask(0)
    if launch["drop_privileges"]:
        try:
            _precreate_spools(jobdir, launch)
        except OSError as exc:
            os.write(report_fd, ("err cannot open output: %s" % exc).encode())
            return
    subreaper = _SUBREAPER is not None and _SUBREAPER()
    start = time.time()
    if launch.get("interactive"):
        _interactive(jobdir, launch, report_fd, start, subreaper)
        return
    sandbox_made = [False]
    try:
        spawned = _spawn_child(jobdir, launch, sandbox_made)
    except _SpawnRefused as refusal:
        os.write(report_fd, ("err %s" % refusal).encode("utf-8", "replace"))
        return
    if spawned is not None:
        child = spawned
    else:
        exec_r, exec_w = os.pipe2(os.O_CLOEXEC)
        child = os.fork()
        if child == 0:
            os.close(exec_r)
            _exec_child(jobdir, launch, exec_w, sandbox_made=sandbox_made[0])
        os.close(exec_w)
        failure = _read_all(exec_r)
        if failure:
            os.waitpid(child, 0)
            os.write(report_fd, b"err " + failure)
            return
    _record(os.path.join(jobdir, "shepherd.json"), {
        "shepherd_pid": os.getpid(), "shepherd_ticks": start_ticks(os.getpid()),
        "pid": child, "ticks": start_ticks(child), "start_time": start})
    os.write(report_fd, b"ok %d" % child)
    os.close(report_fd)
    _, wait_status, usage = os.wait4(child, 0)
    _ended(jobdir, launch, exit_status(wait_status), usage, subreaper)


def _ended(jobdir: str, launch: Dict[str, Any], status: int, usage: Any,
           subreaper: bool) -> None:
    """Record the job shell's end (exit.json) and tell the mom."""
    record = {"status": status, "cput": usage.ru_utime + usage.ru_stime,
              "maxrss_kb": usage.ru_maxrss, "end_time": time.time()}
    if subreaper and not _descendants_left():
        record["session_empty"] = True
    _record(os.path.join(jobdir, "exit.json"), record)
    if launch.get("mom_socket"):  # empty: the mom watches this process exit (exitwatch.py)
        _notify_mom(launch)


def _interactive(jobdir: str, launch: Dict[str, Any], report_fd: int, start: float,
                 subreaper: bool) -> None:
    """An interactive job (qsub -I): the shell on a pty, relayed to qsub (ptyrelay.py).

    Its child is the job's session leader at once, and waits for qsub there; the mom hears
    ``ok`` before qsub has come, so the job is running while qsub waits.  As PBS, a shell that
    exits gives the job Exit_status 0 whatever its code (I01/I02); a signal gives 256 + N."""
    from fake_pbs.mom import ptyrelay

    try:
        session = ptyrelay.Session(launch)
    except OSError as exc:
        os.write(report_fd, ("err interactive session: %s" % exc).encode("utf-8", "replace"))
        return
    child = os.fork()
    if child == 0:
        os.close(report_fd)
        terminal, term = session.child_wait()
        launch["env"]["TERM"] = term
        _exec_child(jobdir, launch, terminal, terminal=terminal)
    _record(os.path.join(jobdir, "shepherd.json"), {
        "shepherd_pid": os.getpid(), "shepherd_ticks": start_ticks(os.getpid()),
        "pid": child, "ticks": start_ticks(child), "start_time": start,
        "pty": session.name})
    os.write(report_fd, b"ok %d" % child)
    os.close(report_fd)
    try:
        wait_status, usage = session.run(child)
    except Exception:  # the relay failed: the job must still end, and be recorded
        if session.ended is None:
            try:
                os.kill(child, signal.SIGKILL)
            except OSError:
                pass
            _, wait_status, usage = os.wait4(child, 0)
        else:
            wait_status, usage = session.ended
    status = 256 + os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else 0
    _ended(jobdir, launch, status, usage, subreaper)


# Set by serve(): makes the calling process a child subreaper (prctl), or None.
_SUBREAPER: Optional[Callable[[], bool]] = None


def _load_subreaper() -> Optional[Callable[[], bool]]:
    """prctl(PR_SET_CHILD_SUBREAPER) through ctypes; None where it is not available.

    Only the launcher loads it (ctypes costs a one-shot shepherd more than it would save)."""
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None

    def become_subreaper() -> bool:
        return int(prctl(36, 1, 0, 0, 0)) == 0  # PR_SET_CHILD_SUBREAPER

    return become_subreaper


# How long leftovers of a job shell may take to end by themselves before the job is reported
# with a non-empty session.  A shell's helpers often outlive it by a few milliseconds: psij's
# launcher logs through a process substitution (``exec 3> >(ts ...)``) that ends at EOF, just
# after the job shell.  Waiting for them spares the mom a /proc scan (~3 ms of its CPU with
# ~150 processes) for every such job; a job that really leaves a process behind is reported
# this much later, and the mom kills what is left as before.
LINGER_SECONDS = 0.05
_LINGER_PAUSE = 0.002


def _descendants_left(linger: float = LINGER_SECONDS) -> bool:
    """True when a process orphaned by the job shell is still alive after ``linger`` seconds
    (zombies are reaped as they appear).

    As a subreaper the shepherd adopts every orphaned descendant of the job shell, and every
    member of the job's session descends from the shell; so no child left means an empty
    session, and the mom may skip its /proc scan for leftovers (docs/performance.md)."""
    deadline = time.monotonic() + linger
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid != 0:
            continue  # one reaped; look again at once
        if time.monotonic() >= deadline:
            return True
        time.sleep(_LINGER_PAUSE)


def detach(jobdir: str) -> str:
    """Start the detached shepherd of the job in ``jobdir``; report ``ok <pid>`` or ``err ...``.

    Forks the shepherd proper, which leaves this session at once.  In the launcher (:func:`serve`)
    it stays the launcher's child, reaped when it exits (one fork per job fewer than a double
    fork: ~0.3 ms of CPU); the launcher ends with the mom and the shepherd is re-parented to
    init, so it outlives both.  The one-shot form exits after the report: re-parented at once.
    """
    launch = read_json(os.path.join(jobdir, "launch.json"))
    if launch is None:
        return "err no launch record in %s" % jobdir
    read_fd, write_fd = os.pipe()
    if os.fork() > 0:
        os.close(write_fd)
        report = _read_all(read_fd).decode("utf-8", "replace")
        return report or "err shepherd died before starting the job"
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the launcher's reaper is not ours
        os.close(read_fd)
        os.setsid()
        # Let go of the caller's descriptors at once (the mom's pipes, the launcher's).
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        shepherd(jobdir, launch, write_fd)
    except BaseException as exc:
        try:
            os.write(write_fd, ("err shepherd failure: %s" % exc).encode("utf-8", "replace"))
        except OSError:
            pass
    os._exit(0)


def _preload() -> None:
    """Load once in the launcher what every forked shepherd would otherwise load again.

    ``os.wait4`` imports :mod:`resource` for its ``struct_rusage`` (a search of sys.path and
    a shared object to map); ``os.initgroups`` in the job's child reads nsswitch.conf and
    loads glibc's NSS modules (two shared objects here).  Forks inherit both loaded: strace of
    a ``qsub -- /bin/true`` job, 21 -> 9 openat and 21 -> 5 mmap in its shepherd and child.
    """
    try:
        import pwd
        import resource  # noqa: F401  (what os.wait4 imports)

        entry = pwd.getpwuid(os.getuid())
        os.getgrouplist(entry.pw_name, entry.pw_gid)  # NSS set up, as initgroups will want it
    except (ImportError, KeyError, OSError):
        pass


# The warm-up: shepherd() runs this many times in the launcher before it forks any (below).
WARM_ROUNDS = 12
WARM_PROGRAM = "/bin/true"
_WARM_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)


def _warm_up(jobs_dir: str, rounds: int = WARM_ROUNDS) -> None:
    """Run the shepherd's own code a few times in the launcher, before it forks any shepherd.

    Python 3.11 rewrites a function's bytecode in place during its first calls (warm-up
    counters, then specialised instructions), keyword parsers and the dynamic linker's lazy
    symbols are set up on first use: in a forked shepherd each such write copies a page.  Done
    here once, every shepherd inherits the settled code (as the command runner's children do:
    fake_pbs/runner/warm.py).  Each round is a real start of :data:`WARM_PROGRAM` under the same
    identity, in a scratch directory named as a discarded job's (``.gone-*``: a mom restart
    sweeps one left by a crash); what the rounds change in this process (signal dispositions,
    umask, ids and groups: _spawn_child restores those) is put back.
    """
    if not os.access(WARM_PROGRAM, os.X_OK):
        return
    try:
        import pwd
        user = pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return
    scratch = os.path.join(jobs_dir, ".gone-warm-%d" % os.getpid())
    try:
        os.mkdir(scratch, 0o700)
    except OSError:
        return
    launch = {"jobid": "warm", "argv": [WARM_PROGRAM],
              "env": {"PATH": "/usr/bin:/bin"}, "cwd": "/", "sandbox": None,
              "uid": os.getuid(), "gid": os.getgid(), "user": user,
              "drop_privileges": os.geteuid() == 0, "umask": 0o077,
              "stdout": os.path.join(scratch, "warm.OU"),
              "stderr": os.path.join(scratch, "warm.ER"), "mom_socket": ""}
    handlers = [(signum, signal.getsignal(signum)) for signum in _WARM_SIGNALS]
    mask = os.umask(0)
    try:
        for _ in range(rounds):
            read_fd, write_fd = os.pipe()
            try:
                shepherd(scratch, dict(launch), write_fd)
                report = os.read(read_fd, 4096)
            finally:
                os.close(read_fd)
            if not report.startswith(b"ok "):
                os.close(write_fd)  # the report fd is closed only once the shell runs
                break
        _descendants_left(0.0)  # no child is left: returns at once
    except OSError:
        pass
    finally:
        os.umask(mask)
        for signum, handler in handlers:
            signal.signal(signum, handler)
        try:
            for name in os.listdir(scratch):
                os.unlink(os.path.join(scratch, name))
            os.rmdir(scratch)
        except OSError:
            pass  # swept meanwhile (a mom restart removes .gone-* entries), or left to it


def _reap(signum: int, frame: Any) -> None:
    """SIGCHLD in the launcher: reap the shepherds that ended (they are its children)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(jobs_dir: str = "") -> int:
    """``--serve <jobs dir>``: the mom's launcher (fake_pbs/mom/launcher.py), started once per
    mom.

    Reads job directories on stdin, one per line, and answers each with its :func:`detach`
    report on one stdout line.  A job start is then a fork of this already-imported process
    instead of a Python start (docs/performance.md, hotspot 1).  Exits at EOF: the mom is gone.
    """
    global _SUBREAPER
    for signum in (signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, signal.SIG_IGN)
    _preload()
    # Before the SIGCHLD reaper and the subreaper: the warm-up waits for its own children.
    if jobs_dir:
        try:
            _warm_up(jobs_dir)
        except Exception:  # a warm-up only saves time: never let it stop the launcher
            pass
    gc.collect()
    gc.freeze()  # what the shepherds inherit is never scanned (nor copied) by the collector
    signal.signal(signal.SIGCHLD, _reap)
    _SUBREAPER = _load_subreaper()
    pending = b""
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            return 0
        pending += chunk
        while b"\n" in pending:
            line, _, pending = pending.partition(b"\n")
            try:
                report = detach(line.decode("utf-8", "surrogateescape"))
            except Exception as exc:  # never leave the mom without an answer
                report = "err shepherd launcher: %s" % exc
            answer = report.replace("\n", " ").encode("utf-8", "replace") + b"\n"
            while answer:
                answer = answer[os.write(1, answer):]


def main(argv: List[str]) -> int:
    if argv[:1] == ["--serve"]:
        return serve(argv[1] if len(argv) > 1 else "")
    report = detach(argv[0])
    sys.stdout.write(report + "\n")
    return 0 if report.startswith("ok ") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
