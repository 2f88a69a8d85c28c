"""``fake-pbs``: start, stop and inspect a fake PBS cluster; the commands' embedded autostart.

    fake-pbs start [--server-name NAME] [--host NAME[:ncpus=N][:mem=SIZE][:ngpus=G]]...
    fake-pbs stop [--now] | status | env | restart | kill server | kill mom HOST
    fake-pbs fault HOST fork|join|jobdir|comm|slow|bottomup | fake-pbs fault clear [HOST]
    fake-pbs crashpoint server|HOST POINT (the daemon SIGKILLs itself there, once)

``start`` writes ``cluster.json`` (when options are given or none exists), starts whichever of the
server and the moms are not running, detached, and waits until each answers.  ``stop`` asks the
server to shut down, then the moms, and waits (bounded) for every process to exit.
:func:`ensure_running` is what the first PBS command calls when no server answers; a file lock
makes concurrent first commands start one cluster, not several.
"""
import argparse
import fcntl
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from fake_pbs import crashpoints, paths, protocol, verified_connect
from fake_pbs.mom import hostnames, siteenv
from fake_pbs.pace import PACES
from fake_pbs.server import config as cluster_config

_WAIT_SECONDS = 30.0
_STOP_SECONDS = 15.0
_POLL = 0.05
_SWEEP_PASSES = 5


class ControlError(Exception):
    """A cluster operation failed; the message says what was checked and what to do."""


# -- process bookkeeping ------------------------------------------------------------------------
def _pids_file(home: Path) -> Path:
    return paths.run_dir(home) / "daemons.json"


def _read_pids(home: Path) -> Dict[str, int]:
    try:
        with open(str(_pids_file(home)), "r", encoding="utf-8") as handle:
            data = json.load(handle)
        return {str(k): int(v) for k, v in data.items()}
    except (OSError, ValueError):
        return {}


def _write_pids(home: Path, pids: Dict[str, int]) -> None:
    path = _pids_file(home)
    tmp = path.with_name(path.name + ".%d.tmp" % os.getpid())
    fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(pids, sort_keys=True))
    os.replace(str(tmp), str(path))


def _alive(pid: int, home: Path) -> bool:
    """True when ``pid`` runs and is one of the daemons of the cluster in ``home``.

    Pids are reused quickly on a busy machine: a pid from the pid file may by now be another
    process, even another cluster's daemon, which a stop or kill must not touch.
    """
    if pid <= 0:
        return False
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            argv = handle.read().split(b"\0")
    except OSError:
        return False
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            if handle.read().split(b") ")[-1][:1] == b"Z":
                return False
    except OSError:
        return False
    if not any(arg.startswith(b"fake_pbs.") for arg in argv) or b"--home" not in argv:
        return False
    named = argv[argv.index(b"--home") + 1:][:1]
    return bool(named) and os.path.realpath(os.fsdecode(named[0])) == os.path.realpath(str(home))


def _daemon_key(kind: str, host: str = "") -> str:
    return kind if kind in ("server", "runner") else "mom:" + host


# -- liveness ----------------------------------------------------------------------------------
def server_answers(home: Path, timeout: float = 2.0) -> bool:
    return protocol.answers(paths.server_socket(home), "ping", timeout)


def mom_answers(home: Path, host: str, timeout: float = 2.0) -> bool:
    return protocol.answers(paths.mom_socket(home, host), "status", timeout)


def runner_answers(home: Path) -> bool:
    """The command runner accepts connections (an empty one: its worker reads no request and
    exits)."""
    try:
        verified_connect.connect(paths.runner_socket_path(str(home)), 1.0).close()
        return True
    except OSError:
        return False


# -- start -------------------------------------------------------------------------------------
def parse_host(spec: str) -> Dict[str, Any]:
    """``node1:ncpus=4:mem=8gb:ngpus=1`` -> host entry with the §2 defaults filled in."""
    name, *options = spec.split(":")
    if not name:
        raise ControlError("--host needs a name, e.g. --host node1:ncpus=4 (got %r)" % spec)
    host: Dict[str, Any] = {"name": name, "ncpus": 8, "mem": "16gb", "ngpus": 0}
    for option in options:
        key, _, value = option.partition("=")
        if key in ("ncpus", "ngpus"):
            host[key] = int(value)
        elif key == "mem":
            host[key] = value
        else:
            raise ControlError("unknown host option %r in %r (use ncpus=, mem=, ngpus=)"
                               % (key, spec))
    return host


def _prepare_home(home: Path) -> None:
    """Create or check the cluster's home and run directory before anything is written there.

    As PBS's daemons refuse an unsafe PBS_HOME, a cluster starts only from directories that
    its starter owns and no one else may write, under parents that only root or the starter
    may change (or that are sticky, as /tmp is): otherwise another local user could have
    prepared them, with links to follow or sockets of their own (docs/security.md)."""
    shared = os.getuid() == 0
    _safe_dir(home, 0o755 if shared else 0o700)
    _safe_dir(paths.run_dir(home), 0o755 if shared else 0o700)


def _safe_dir(path: Path, mode: int) -> None:
    uid = os.getuid()
    _check_parents(path.parent, uid)
    try:
        os.mkdir(str(path), mode)
    except FileExistsError:
        pass
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(str(path), mode)
    info = os.lstat(str(path))
    if not stat.S_ISDIR(info.st_mode):
        raise ControlError("refusing %s: not a directory (a link or file someone else may have "
                           "put there); remove it or choose another FAKE_PBS_HOME" % path)
    if info.st_uid != uid:
        raise ControlError("refusing %s: owned by uid %d, not by you (uid %d); remove it or "
                           "choose another FAKE_PBS_HOME" % (path, info.st_uid, uid))
    if info.st_mode & 0o022:
        raise ControlError("refusing %s: writable by others (mode %o), who may have put links "
                           "or sockets in it; remove it or choose another FAKE_PBS_HOME"
                           % (path, stat.S_IMODE(info.st_mode)))
    if stat.S_IMODE(info.st_mode) != mode:
        os.chmod(str(path), mode)


def _check_parents(path: Path, uid: int) -> None:
    """Each existing ancestor is owned by root or ``uid`` and writable by no one else unless
    sticky (PBS's chk_file_sec rule for PBS_HOME's path)."""
    current = Path(os.path.abspath(str(path)))
    for folder in [current] + list(current.parents):
        try:
            info = os.stat(str(folder))
        except FileNotFoundError:
            continue
        if info.st_uid not in (0, uid):
            raise ControlError("refusing %s: its parent %s belongs to uid %d, who could replace "
                               "it; choose another FAKE_PBS_HOME" % (path, folder, info.st_uid))
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            raise ControlError("refusing %s: its parent %s is writable by others (mode %o); "
                               "choose another FAKE_PBS_HOME"
                               % (path, folder, stat.S_IMODE(info.st_mode)))


def _spawn(home: Path, args: List[str], log_name: str, flags: Optional[List[str]] = None) -> int:
    env = dict(os.environ)
    env["FAKE_PBS_HOME"] = str(home)
    package_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = package_root + (os.pathsep + env["PYTHONPATH"]
                                        if env.get("PYTHONPATH") else "")
    logs = home / "daemon_logs"
    logs.mkdir(mode=0o750, exist_ok=True)  # a daemon's traceback may quote job data
    out = os.fdopen(os.open(str(logs / log_name),
                            os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o640), "ab")
    try:
        proc = subprocess.Popen([sys.executable] + (flags or []) + ["-m"] + args, cwd="/", env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                start_new_session=True, close_fds=True)
    finally:
        out.close()
    return proc.pid


def record_interpreter(home: Path) -> None:
    """Write ``<home>/interpreter``: this process's interpreter, for fake_pbs/bin's commands.

    ``python3`` on PATH may be a shim (pyenv, asdf, conda: a shell script costing ~65 ms a
    command); this process runs in the interpreter behind it.  The file is created by this
    user, mode 0644, replaced atomically: the commands trust it only when it is owned by the
    user running them, or by root and writable by no one else, so no user can choose what
    another runs.  Best effort: a home this user may not write keeps what it has.
    """
    exe = sys.executable
    if not exe or not os.path.isabs(exe) or "\n" in exe:
        return
    record = paths.interpreter_record_path(home)
    try:
        with open(record, "r", encoding="utf-8", errors="surrogateescape") as handle:
            if handle.read() == exe + "\n" and os.fstat(handle.fileno()).st_uid == os.geteuid():
                return
    except OSError:
        pass
    tmp = "%s.%d.tmp" % (record, os.getpid())
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.fchmod(fd, 0o644)  # whatever the umask: every user's commands read it
            os.write(fd, os.fsencode(exe) + b"\n")
        finally:
            os.close(fd)
        os.replace(tmp, record)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def start(home: Path, server_name: Optional[str] = None,
          hosts: Optional[List[Dict[str, Any]]] = None,
          pace: Optional[str] = None) -> Dict[str, int]:
    """Start the daemons that are not running and wait until every one answers.

    ``pace`` (``fast`` or ``pbs``, fake_pbs/pace.py) is stored in cluster.json; daemons
    already running keep the pace they started with."""
    home = Path(os.path.abspath(str(home)))  # the daemons run in /; _alive matches --home
    _prepare_home(home)
    with _lock(home):
        return _start_locked(home, server_name, hosts, pace)


def _start_locked(home: Path, server_name: Optional[str],
                  hosts: Optional[List[Dict[str, Any]]],
                  pace: Optional[str] = None) -> Dict[str, int]:
    config_path = paths.config_file(home)
    if server_name or hosts or pace or not config_path.exists():
        config = cluster_config.load(home)
        if server_name:
            config["server_name"] = server_name
        if hosts:
            config["hosts"] = hosts
        if pace:
            config["pace"] = pace
        config["owner_uid"] = os.getuid()
        cluster_config.save(home, config)
    config = cluster_config.load(home)
    record_interpreter(home)
    # Compiled while the server starts; in place before any mom (it logs when it is not).
    shim = threading.Thread(target=hostnames.build, args=(home,), name="hostnames-build")
    shim.start()
    siteenv.write_default(home)  # PBS's pbs_environment: MPI launchers use pbs_tmrsh
    pids = _read_pids(home)
    if not server_answers(home, 0.5):
        old = pids.get("server", 0)
        if not _alive(old, home):
            pids["server"] = _spawn(home, ["fake_pbs.server", "--home", str(home)],
                                    "server.out")
    shim.join()
    for host in config["hosts"]:
        name = str(host["name"])
        key = _daemon_key("mom", name)
        if not mom_answers(home, name, 0.5) and not _alive(pids.get(key, 0), home):
            pids[key] = _spawn(home, ["fake_pbs.mom", "--home", str(home), "--host", name],
                               "mom-%s.out" % name)
    _start_runner(home, pids)
    _write_pids(home, pids)
    _wait_until(lambda: server_answers(home), "the server", home, pids.get("server", 0),
                "server.out")
    for host in config["hosts"]:
        name = str(host["name"])
        _wait_until(lambda: mom_answers(home, name), "mom %s" % name, home,
                    pids.get(_daemon_key("mom", name), 0), "mom-%s.out" % name)
    _wait_for_runner(home, pids.get("runner", 0))
    return pids


def _start_runner(home: Path, pids: Dict[str, int]) -> None:
    """Start the command runner (fake_pbs/runner), which builds the commands' client, unless
    it runs.  Both are a fast path only: a command without them starts Python itself."""
    if _alive(pids.get("runner", 0), home) and runner_answers(home):
        return
    # -S: no `site`, as the commands run; a smaller process is also cheaper to fork.
    pids["runner"] = _spawn(home, ["fake_pbs.runner", "--home", str(home)], "runner.out",
                            ["-S"])


def _wait_for_runner(home: Path, pid: int) -> None:
    """Wait (bounded) until the runner listens; a runner that does not come up leaves the
    commands on the Python path, and the start does not fail for it."""
    deadline = time.monotonic() + _WAIT_SECONDS
    while time.monotonic() < deadline and pid and not _gone(pid, home):
        if runner_answers(home):
            return
        time.sleep(_POLL)


def _wait_until(check: Any, what: str, home: Path, pid: int, log_name: str) -> None:
    deadline = time.monotonic() + _WAIT_SECONDS
    how = "did not answer within %ds" % int(_WAIT_SECONDS)
    while time.monotonic() < deadline:
        if check():
            return
        if pid and _gone(pid, home) and not check():
            how = "is not running (pid %d)" % pid
            break
        time.sleep(_POLL)
    # The daemon's own output says why; quote it, since a test rig removes the home after.
    raise ControlError("%s of the fake cluster in %s %s; %s:\n%s"
                       % (what, home, how, home / "daemon_logs" / log_name,
                          _tail(home / "daemon_logs" / log_name)))


def _gone(pid: int, home: Path) -> bool:
    """The daemon ``pid`` has exited.

    A daemon this process just spawned is its child: ask waitpid.  Until the child's exec has
    set up its arguments, /proc/PID/cmdline reads empty (most often still so right after
    Popen returns), and :func:`_alive` would take the new daemon for another process: a start
    then failed at once, seldom on an idle machine, more often on a loaded one.
    """
    try:
        ended, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return not _alive(pid, home)  # not our child: started by an earlier command
    return ended == pid


def _tail(path: Path, size: int = 2000) -> str:
    """The end of a daemon's output file (empty when there is none)."""
    try:
        with open(str(path), "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - size))
            return handle.read().decode(errors="replace")
    except OSError:
        return ""


class _lock:
    """An exclusive ``flock`` on ``<run_dir>/control.lock`` (one starter at a time)."""

    def __init__(self, home: Path) -> None:
        self.path = paths.run_dir(home) / "control.lock"
        self.fd = -1

    def __enter__(self) -> "_lock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(str(self.path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: Any) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


# What a cluster home this user cannot use raises: someone else's directory, a read-only one,
# or a path through a file.
_HOME_ERRORS = (PermissionError, NotADirectoryError, FileExistsError)


def home_error(home: Path, err: OSError) -> ControlError:
    """One line for a cluster home this user may not use (someone else's, or read-only)."""
    where = "" if str(err.filename or home) == str(home) else " (%s)" % err.filename
    return ControlError(
        "cannot use the cluster home %s: %s%s; FAKE_PBS_HOME must name a directory this user "
        "may create or write, or a running cluster (unset, it is ~/.fake_pbs)"
        % (home, err.strerror or err, where))


def ensure_running(home: Path) -> None:
    """Start the cluster of ``home`` unless its server already answers (race-safe)."""
    if server_answers(home, 1.0):
        return
    try:
        _prepare_home(home)
        with _lock(home):
            if server_answers(home, 1.0):
                return
            _start_locked(home, None, None)
    except _HOME_ERRORS as err:
        raise home_error(home, err) from None


# -- stop and kill -----------------------------------------------------------------------------
def _terminate(pid: int, sig: int, home: Path) -> None:
    if _alive(pid, home):
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def _wait_exit(pids: List[int], seconds: float, home: Path) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_alive(p, home) for p in pids):
            return True
        time.sleep(_POLL)
    return not any(_alive(p, home) for p in pids)


def stop(home: Path, now: bool = False) -> None:
    """Phased stop: the server starts nothing new and lets in-flight starts settle (bounded),
    then exits; then each mom refuses new starts, finishes its in-flight set-ups, hooks and
    cleanups (bounded) and exits.  Job shells run on under their shepherds; the next start
    re-adopts them.  ``now``: no waiting (the server exits at once, the moms are killed); the
    next start recovers whatever was in flight.  SIGKILL for what outlives the bounds."""
    with _lock(home):
        pids = _read_pids(home)
        server = pids.get("server", 0)
        try:
            channel = protocol.connect(paths.server_socket(home), timeout=_STOP_SECONDS + 5)
            try:
                protocol.call(channel, "shutdown", now=now)
            finally:
                channel.close()
        except Exception:
            _terminate(server, signal.SIGTERM, home)
        if not _wait_exit([server], _STOP_SECONDS, home):
            _terminate(server, signal.SIGKILL, home)
        moms = [pid for key, pid in pids.items() if key.startswith("mom:")]
        for pid in moms:
            _terminate(pid, signal.SIGKILL if now else signal.SIGTERM, home)
        if not _wait_exit(moms, _STOP_SECONDS, home):
            for pid in moms:
                _terminate(pid, signal.SIGKILL, home)
            _wait_exit(moms, 5.0, home)
        # The runner lets the commands it runs end (bounded: its STOP_SECONDS), then exits.
        command_runner = pids.get("runner", 0)
        _terminate(command_runner, signal.SIGKILL if now else signal.SIGTERM, home)
        if not _wait_exit([command_runner], _STOP_SECONDS, home):
            _terminate(command_runner, signal.SIGKILL, home)
            _wait_exit([command_runner], 5.0, home)
        _write_pids(home, {})


def kill(home: Path, kind: str, host: str = "") -> None:
    """``kill -9`` one daemon (crash tests); ``start`` brings it back."""
    pids = _read_pids(home)
    key = _daemon_key(kind, host)
    pid = pids.get(key, 0)
    if not _alive(pid, home):
        raise ControlError("no running %s in %s (known: %s)" % (key, home, sorted(pids)))
    os.kill(pid, signal.SIGKILL)
    _wait_exit([pid], 5.0, home)


def sweep(home: Path) -> List[int]:
    """SIGKILL every process that names ``home`` in its command line or environment: daemons,
    shepherds and job shells of that cluster (test clean-up, crash drills); returns the pids.

    Passes repeat (bounded) until one finds nothing: a process forked after a pass listed
    /proc, or caught in the middle of its exec (empty command line and environment), escaped
    a single pass."""
    killed: List[int] = []
    for _ in range(_SWEEP_PASSES):
        found = _sweep_once(home)
        if not found:
            break
        killed.extend(found)
        time.sleep(_POLL)
    return killed


def processes_of(home: Path) -> List[int]:
    """Live processes (not zombies) other than this one that name ``home`` in their command
    line or environment: the cluster's daemons, shepherds and job shells."""
    marker = str(home).encode()
    found: List[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as handle:
                if handle.read().rsplit(b") ", 1)[-1][:1] == b"Z":
                    continue
            with open("/proc/%s/cmdline" % name, "rb") as handle:
                cmdline = handle.read()
            with open("/proc/%s/environ" % name, "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        if marker in cmdline or marker in environ:
            found.append(int(name))
    return found


def _sweep_once(home: Path) -> List[int]:
    killed: List[int] = []
    for pid in processes_of(home):
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    return killed


def status(home: Path) -> Dict[str, Any]:
    config = cluster_config.load(home) if paths.config_file(home).exists() else {"hosts": []}
    pids = _read_pids(home)
    report: Dict[str, Any] = {"home": str(home), "server": {
        "pid": pids.get("server", 0), "answers": server_answers(home, 1.0)}}
    report["moms"] = {str(h["name"]): {"pid": pids.get(_daemon_key("mom", str(h["name"])), 0),
                                       "answers": mom_answers(home, str(h["name"]), 1.0)}
                      for h in config["hosts"]}
    report["runner"] = {"pid": pids.get("runner", 0), "answers": runner_answers(home)}
    return report


FAULTS = ("fork", "join", "jobdir", "comm", "slow", "bottomup")


def fault(home: Path, host: str, name: str) -> List[str]:
    """Arm fault ``name`` (or ``clear`` them all) on the mom of ``host``; the armed faults.

    The mom keeps a fault armed, across restarts, until it is cleared (fake_pbs/mom/faults.py).
    """
    if name not in FAULTS + ("clear",):
        raise ControlError("unknown fault %r: use one of %s, or clear" % (name, ", ".join(FAULTS)))
    try:
        channel = protocol.connect(paths.mom_socket(home, host), timeout=5.0)
    except OSError as err:
        raise ControlError("the mom of host %r in %s does not answer (%s); is the cluster "
                           "started and is %r one of its hosts?" % (host, home, err, host))
    try:
        reply = protocol.call(channel, "fault", fault=name)
    except Exception as err:
        raise ControlError("mom %s refused fault %r: %s" % (host, name, err))
    finally:
        channel.close()
    return [str(f) for f in (reply or {}).get("faults", [])]


def clear_faults(home: Path, host: str = "") -> None:
    """Disarm every fault on ``host``, or on every host of the cluster when none is given."""
    config = cluster_config.load(home) if paths.config_file(home).exists() else {"hosts": []}
    for name in [host] if host else [str(h["name"]) for h in config["hosts"]]:
        fault(home, name, "clear")


def crashpoint(home: Path, daemon: str, point: str) -> None:
    """Make ``daemon`` (``server`` or a host name) SIGKILL itself at ``point``, once
    (fake_pbs/crashpoints.py; docs/reliability.md lists the points)."""
    try:
        crashpoints.arm(home, daemon, point)
    except ValueError as err:
        raise ControlError(str(err))


def running(home: Path, kind: str, host: str = "") -> bool:
    """True while the server (``kind`` server) or the mom of ``host`` runs."""
    return _alive(_read_pids(home).get(_daemon_key(kind, host), 0), home)


def env_lines(home: Path) -> List[str]:
    """What a shell or CI job needs: the commands first on PATH, the cluster, and the real
    interpreter for the commands (so no command goes through a ``python3`` shim, even before
    the cluster has recorded its own)."""
    lines = ['export PATH="%s:$PATH"' % paths.bin_dir(), 'export FAKE_PBS_HOME="%s"' % home]
    if sys.executable and os.path.isabs(sys.executable):
        lines.append('export FAKE_PBS_PYTHON="%s"' % sys.executable)
    return lines


# -- command line ------------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fake-pbs", description="Control a fake PBS cluster.")
    parser.add_argument("--home", help="cluster directory (default: $FAKE_PBS_HOME or "
                                       "~/.fake_pbs)")
    sub = parser.add_subparsers(dest="command")
    start_p = sub.add_parser("start", help="start the server and the moms")
    start_p.add_argument("--server-name")
    start_p.add_argument("--host", action="append", default=[],
                         help="NAME[:ncpus=N][:mem=SIZE][:ngpus=G] (repeatable)")
    start_p.add_argument("--pace", choices=PACES,
                         help="end-of-job timing: fast (default) or pbs (OpenPBS's, for "
                              "fidelity; docs/differences.md)")
    stop_p = sub.add_parser("stop", help="stop every daemon (phased: in-flight work settles)")
    stop_p.add_argument("--now", action="store_true",
                        help="no waiting: what was in flight is recovered at the next start")
    sub.add_parser("restart", help="stop, then start")
    sub.add_parser("status", help="show which daemons answer")
    sub.add_parser("env", help="print the export lines for PATH, FAKE_PBS_HOME and "
                               "FAKE_PBS_PYTHON (eval \"$(fake-pbs env)\")")
    kill_p = sub.add_parser("kill", help="kill -9 the server or one mom")
    kill_p.add_argument("what", choices=("server", "mom"))
    kill_p.add_argument("host", nargs="?", default="")
    fault_p = sub.add_parser("fault", help="inject a fault into one mom: fake-pbs fault HOST "
                                           "fork|join|jobdir|comm|slow|bottomup; "
                                           "fake-pbs fault clear [HOST]")
    fault_p.add_argument("target", help="a host name, or clear")
    fault_p.add_argument("arg", nargs="?", default="", help="the fault (or, after clear, a host)")
    crash_p = sub.add_parser("crashpoint", help="make a daemon kill itself (SIGKILL) at a "
                                                "step of the job end, once: fake-pbs "
                                                "crashpoint server|HOST POINT")
    crash_p.add_argument("daemon", help="server, or a host name (its mom)")
    crash_p.add_argument("point", help="server: %s; mom: %s" % (
        " ".join(crashpoints.SERVER_POINTS), " ".join(crashpoints.MOM_POINTS)))
    return parser


def main(argv: Optional[List[str]] = None) -> None:
    parser = _parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    home = paths.cluster_home(args.home)
    try:
        if args.command in ("stop", "restart", "kill", "fault"):
            _check_owner(home, args.command)
        if args.command == "start":
            hosts = [parse_host(h) for h in args.host] or None
            start(home, args.server_name, hosts, args.pace)
            print("fake PBS cluster running in %s" % home)
        elif args.command == "stop":
            stop(home, now=args.now)
        elif args.command == "restart":
            stop(home)
            start(home)
        elif args.command == "status":
            report = status(home)
            up = report["server"]["answers"] and all(m["answers"]
                                                     for m in report["moms"].values())
            print(json.dumps(report, indent=1, sort_keys=True))
            raise SystemExit(0 if up else 1)
        elif args.command == "env":
            print("\n".join(env_lines(home)))
        elif args.command == "kill":
            if args.what == "mom" and not args.host:
                raise ControlError("kill mom needs a host name: fake-pbs kill mom node1")
            kill(home, args.what, args.host)
        elif args.command == "fault":
            _fault_command(home, args.target, args.arg)
        elif args.command == "crashpoint":
            crashpoint(home, args.daemon, args.point)
        else:
            parser.print_help()
            raise SystemExit(2)
    except _HOME_ERRORS as err:
        sys.stderr.write("fake-pbs: %s\n" % home_error(home, err))
        raise SystemExit(1)
    except ControlError as err:
        sys.stderr.write("fake-pbs: %s\n" % err)
        raise SystemExit(1)
    except OSError as err:  # e.g. another user's cluster: one line, never a traceback
        sys.stderr.write("fake-pbs: %s: %s\n" % (args.command or "", err))
        raise SystemExit(1)


def _check_owner(home: Path, verb: str) -> None:
    """Only the user who started a cluster (or root) may stop, kill or fault it."""
    uid = os.getuid()
    try:
        owner = int(cluster_config.load(home).get("owner_uid", uid))
    except (OSError, ValueError):
        return  # nothing readable to protect; the verb reports what it finds
    if uid not in (0, owner):
        raise ControlError("the cluster in %s belongs to uid %d: only its owner or root may %s "
                           "it" % (home, owner, verb))


def _fault_command(home: Path, target: str, arg: str) -> None:
    if target == "clear":
        clear_faults(home, arg)
        return
    if not arg:
        raise ControlError("fault needs a host and a fault: fake-pbs fault node1 join "
                           "(faults: %s)" % ", ".join(FAULTS))
    armed = fault(home, target, arg)
    print("%s: %s" % (target, " ".join(armed) or "no faults armed"))
