"""The replay's world: a fake cluster like the capture's, its users, and how commands run.

The capture ran on host ``vm``: server and one node ``vm`` (ncpus=2), users ``pbsuser`` and
``pbsuser2`` (plus ``root`` for qmgr), ``TZ=UTC``, ``LANG=C.UTF-8``, cwd the user's home and
``PATH=/opt/pbs/bin:/opt/pbs/sbin:...`` (scenario/cap.py).  The replay rebuilds that:

* the cluster is started by root in conformance mode, ``fake-pbs start --server-name vm
  --host vm:ncpus=2:mem=24684084kb --pace pbs`` (the capture machine's memory, e01; the
  capture server's end-of-job timing, fake_pbs/pace.py), in a temporary FAKE_PBS_HOME (0755,
  so every user reaches it);
* ``pbsuser`` and ``pbsuser2`` are created with ``useradd -m`` when missing (as
  tools/make_fidelity_users.sh does); commands run as them through setuid/setgid;
* PATH starts with two shims of exactly the capture's lengths (``/tmp/fpbXXXX`` links to
  fake_pbs/bin, ``/tmp/fpsXXXXX`` is empty), so that ``qstat -f`` wraps ``PBS_O_PATH`` at the
  same columns; the normalizer maps them back to ``/opt/pbs/bin`` and ``/opt/pbs/sbin``;
* job scripts go to the user's home, hook files to a temporary directory standing for
  ``/srv/hooks``; ``/var/spool/pbs`` in commands is rewritten to the fake's home layout.

Without root, every command runs as the invoking user (standing for ``pbsuser``, with a scratch
home ``/tmp/fphXXXXX`` so that the user's own home is never written) and the cases of other users
are skipped.  A later chain of a set (chains.py), replayed while the first chain holds the golden
users' homes, gives ``pbsuser`` and ``pbsuser2`` such scratch homes too, owned by them.
"""
import atexit
import json
import os
import pwd
import random
import re
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from fake_pbs import paths

from .cases import DATA_DIR, set_dir
from .homelock import HomeLock

FAKE_BIN = paths.bin_dir()  # a public copy when the checkout is closed (tests/public_tree.py)
GOLDEN_USERS = ("pbsuser", "pbsuser2")
# The capture's one node: 2 cpus and that machine's memory (e01: resources_available.mem).
CAPTURE_HOST = "vm:ncpus=2:mem=24684084kb"
STOCK_PBS_ENVIRONMENT = "# the capture host's: no MPI launcher settings\n"

# Created users carry this file in their home: only their homes are ever cleaned.
USER_MARKER = ".fake_pbs_fidelity_user"
GOLDEN_PATH_TAIL = ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
GOLDEN_SPOOL = "/var/spool/pbs"
GOLDEN_HOOKS = "/srv/hooks"
COMMAND_TIMEOUT = 120.0
# The first job number of each capture (fidelity README; jobids.py).
FIRST_JOB_SEQ = {"release": 0, "extra": 323, "resv": 858}


@dataclass
class Account:
    """A local user standing for one of the transcript's users."""

    golden: str
    name: str
    uid: int
    gid: int
    home: str


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str


def ensure_users() -> Optional[str]:
    """Create pbsuser and pbsuser2 if missing (root only); the reason when it is not possible."""
    if os.geteuid() != 0:
        return "not running as root: cannot run commands as pbsuser/pbsuser2"
    for name in GOLDEN_USERS:
        try:
            pwd.getpwnam(name)
            continue
        except KeyError:
            pass
        done = subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            return "cannot create user %s: useradd said %r" % (name, done.stderr.strip())
        home = Path(pwd.getpwnam(name).pw_dir)
        (home / USER_MARKER).touch()
    return None


def _unique_path(prefix: str, length: int) -> Path:
    """A free /tmp path of exactly ``length`` characters."""
    room = length - len(prefix)
    for _ in range(100):
        tail = "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(room))
        candidate = Path(prefix + tail)
        if not os.path.lexists(candidate):
            return candidate
    raise RuntimeError("no free path like %s* of %d characters" % (prefix, length))


class FidelityEnv:
    """One fake cluster set up like the capture machine, for one transcript set."""

    def __init__(self, set_name: str, server_name: str = "vm", first_job_seq: Optional[int] = None,
                 own_homes: bool = False) -> None:
        self.set_name = set_name
        self.server_name = server_name
        self.first_job_seq = (FIRST_JOB_SEQ.get(set_name, 0) if first_job_seq is None
                              else first_job_seq)
        self.is_root = os.geteuid() == 0
        self.users_problem = ensure_users() if self.is_root else (
            "not running as root: cross-user cases need pbsuser and pbsuser2")
        self.workdir = Path(tempfile.mkdtemp(prefix="fidelity-%s-" % set_name))
        self.workdir.chmod(0o755)
        self.home = self.workdir / "spool"
        self.hooks = self.workdir / "hooks"
        self.bin_shim = _unique_path("/tmp/fpb", len("/opt/pbs/bin"))
        self.sbin_shim = _unique_path("/tmp/fps", len("/opt/pbs/sbin"))
        # Scratch homes standing for /home/<user>, of its length (see _accounts).
        self.home_shims = {golden: _unique_path("/tmp/fph", len("/home/" + golden))
                           for golden in GOLDEN_USERS}
        self.own_homes = own_homes or not self.is_root
        self.accounts = self._accounts()
        self.started = False
        self.locked = False
        atexit.register(self.stop)  # even when the test session dies before its finalizers

    # ---- users -------------------------------------------------------------------------------

    def _accounts(self) -> Dict[str, Account]:
        me = pwd.getpwuid(os.geteuid())
        accounts = {}
        for golden in ("root",) + GOLDEN_USERS:
            if self.is_root and self.users_problem is None:
                entry = pwd.getpwnam(golden)
            elif golden == "pbsuser":
                entry = me
            else:
                continue
            home = entry.pw_dir
            if self.own_homes and golden != "root":
                # The invoking user's own home (or the golden users', which another replay may
                # hold) is never written: a scratch home stands for /home/<user> (scripts,
                # submissions, output files), of the same length so that qstat -f wraps
                # PBS_O_HOME and PBS_O_WORKDIR at the same columns.
                home = str(self.home_shims[golden])
            accounts[golden] = Account(golden, entry.pw_name, entry.pw_uid, entry.pw_gid, home)
        return accounts

    def skip_reason(self, golden_user: str) -> Optional[str]:
        if golden_user in self.accounts:
            return None
        return self.users_problem or "no local user stands for %s" % golden_user

    # ---- set-up ------------------------------------------------------------------------------

    def prepare(self) -> None:
        """Shims, hook files, job scripts in the users' homes, then the cluster."""
        os.symlink(str(FAKE_BIN), str(self.bin_shim))
        self.sbin_shim.mkdir(mode=0o755)
        self.hooks.mkdir(mode=0o755)
        for source in self._data_dirs("hooks"):
            for path in source.iterdir():
                if path.is_file():
                    shutil.copy(path, self.hooks / path.name)
        user = self.accounts.get("pbsuser")
        if self.is_root and self.users_problem is None and user is not None \
                and not self.own_homes:
            HomeLock.acquire(user.home, user.uid, user.gid)  # the homes are shared: homelock.py
            self.locked = True
        for account in self.accounts.values():
            if account.golden != "root":
                self._prepare_home(account)
        self.start()

    def _data_dirs(self, kind: str) -> List[Path]:
        dirs = [DATA_DIR / "scenario" / kind]
        if self.set_name != "release":
            dirs.append(set_dir(self.set_name) / kind)
        return [d for d in dirs if d.is_dir()]

    def _prepare_home(self, account: Account) -> None:
        home = Path(account.home)
        home.mkdir(mode=0o755, exist_ok=True)
        if self.is_root and account.home != "/home/" + account.golden:
            os.chown(home, account.uid, account.gid)  # a scratch home: the user's, as its own
        if (home / USER_MARKER).exists():
            for entry in home.iterdir():  # a created test user: start from a clean home
                if not entry.name.startswith("."):
                    if entry.is_dir() and not entry.is_symlink():
                        shutil.rmtree(entry)
                    else:
                        entry.unlink()
        for source in self._data_dirs("scripts"):
            for path in source.iterdir():
                target = home / path.name
                shutil.copy(path, target)
                if self.is_root:
                    os.chown(target, account.uid, account.gid)

    def base_env(self, account: Account) -> Dict[str, str]:
        return {
            "PATH": "%s:%s%s" % (self.bin_shim, self.sbin_shim, GOLDEN_PATH_TAIL),
            "HOME": account.home, "USER": account.name, "LOGNAME": account.name,
            "SHELL": "/bin/bash", "LANG": "C.UTF-8", "TZ": "UTC",
            "FAKE_PBS_HOME": str(self.home), "FAKE_PBS_AUTOSTART": "0",
        }

    def start(self) -> None:
        root = self.accounts.get("root") or self.accounts["pbsuser"]
        self.started = True  # from here on, stop() must clean up even if start fails half-way
        # Number jobs from the capture's first number, so that job ids have the capture's width
        # and fixed-width columns (qstat's default table) line up as they did; and create no
        # site resource (the capture server had PBS's built-ins only: no ngpus, n02).
        self.home.mkdir(mode=0o755, exist_ok=True)
        (self.home / "cluster.json").write_text(
            json.dumps({"first_job_seq": self.first_job_seq,
                        "site_resources": []}))
        # The capture host's pbs_environment was a stock install's: no MPI launcher settings,
        # which jobs' environment dumps would show (extra j09c, n02m grep for ^OMP)
        (self.home / "pbs_environment").write_text(STOCK_PBS_ENVIRONMENT)
        done = subprocess.run(
            [sys.executable, str(FAKE_BIN / "fake-pbs"), "start", "--server-name",
             self.server_name, "--host", CAPTURE_HOST, "--pace", "pbs"],
            env=self.base_env(root), capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise RuntimeError("fake-pbs start failed (exit %d): %s%s\nfix fake_pbs/control.py or "
                               "run `fake-pbs start` by hand with FAKE_PBS_HOME=%s"
                               % (done.returncode, done.stdout, done.stderr, self.home))

    def stop(self) -> None:
        """Stop the cluster, make sure none of its processes survive, remove the shims."""
        if self.started:
            root = self.accounts.get("root") or self.accounts["pbsuser"]
            try:
                subprocess.run([sys.executable, str(FAKE_BIN / "fake-pbs"), "stop"],
                               env=self.base_env(root), capture_output=True, timeout=60,
                               check=False)
            except subprocess.TimeoutExpired:
                pass
            # A daemon still detaching when `stop` ran would escape one sweep: sweep a few times.
            for _ in range(5):
                if not kill_leftovers(self.home):
                    break
                time.sleep(0.4)
            self.started = False
        for shim in (self.bin_shim, self.sbin_shim, *self.home_shims.values()):
            if shim.is_symlink():
                shim.unlink()
            elif shim.is_dir():
                shutil.rmtree(shim, ignore_errors=True)
        if self.workdir.exists():
            shutil.rmtree(self.workdir, ignore_errors=True)
        if self.locked:
            self.locked = False
            HomeLock.release()

    # ---- commands ----------------------------------------------------------------------------

    def golden_to_local(self, text: str, golden_date: str) -> str:
        """Rewrite a transcript command's capture-machine paths for this set-up."""
        today = time.strftime("%Y%m%d", time.gmtime())
        spool = str(self.home)
        for log in ("server_logs", "sched_logs") if golden_date else ():
            text = text.replace("%s/%s/%s" % (GOLDEN_SPOOL, log, golden_date),
                                "%s/%s/%s" % (spool, log, today))
        if golden_date:
            text = text.replace("%s/mom_logs/%s" % (GOLDEN_SPOOL, golden_date),
                                "%s/mom_logs/vm/%s" % (spool, today))
            text = text.replace("%s/server_priv/accounting/%s" % (GOLDEN_SPOOL, golden_date),
                                "%s/server_priv/accounting/%s" % (spool, today))
        text = text.replace(GOLDEN_SPOOL, spool).replace(GOLDEN_HOOKS, str(self.hooks))
        for account in self.accounts.values():
            golden_home = "/home/" + account.golden
            if account.golden != "root" and account.home != golden_home:
                # not /home/pbsuser2 for pbsuser's
                text = re.sub(r"%s(?![\w.-])" % re.escape(golden_home), account.home, text)
            if account.name != account.golden:
                # the user named in a command (qstat -u pbsuser) is the one standing for it
                text = re.sub(r"(?<![\w/.-])%s(?![\w.-])" % re.escape(account.golden),
                              account.name, text)
        return text

    def substitutions(self) -> List[Tuple[str, str]]:
        """(local, transcript) strings the normalizer maps back."""
        subs = [(str(self.bin_shim), "/opt/pbs/bin"), (str(self.sbin_shim), "/opt/pbs/sbin"),
                (str(self.hooks), GOLDEN_HOOKS), (str(self.home), GOLDEN_SPOOL)]
        for account in self.accounts.values():
            if account.golden != "root" and account.home != "/home/" + account.golden:
                subs.append((account.home, "/home/" + account.golden))
            if account.name != account.golden:
                subs.append((account.name, account.golden))
                subs.extend(truncated_names(account.name, account.golden))
        return subs

    def host_names(self) -> List[str]:
        short = socket.gethostname()
        return [short, short.split(".")[0], socket.getfqdn()]

    def run(self, golden_user: str, cwd: str, command: str,
            timeout: float = COMMAND_TIMEOUT) -> Result:
        """Run a shell command as the local stand-in for ``golden_user`` (as cap.py did)."""
        account = self.accounts[golden_user]
        if cwd in ("/home/" + golden_user, "/root"):
            cwd = account.home
        extra: Dict[str, object] = {}
        if self.is_root and account.uid != 0:
            extra = {"user": account.uid, "group": account.gid, "extra_groups": []}
        proc = subprocess.Popen(["/bin/bash", "-c", command], cwd=cwd,
                                env=self.base_env(account), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, **extra)  # type: ignore[call-overload]
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            err += b"\n[fidelity harness: killed after %d s]\n" % int(timeout)
        return Result(proc.returncode, out.decode("utf-8", "backslashreplace"),
                      err.decode("utf-8", "backslashreplace"))


def kill_leftovers(home: Path) -> List[int]:
    """Kill processes still serving ``home`` (started by this harness's cluster); their pids."""
    marker = ("FAKE_PBS_HOME=%s" % home).encode()
    killed = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        # The home is a fresh temporary path: whatever names it is this cluster's (daemons,
        # shepherds, job shells, a command still blocked on it).
        if marker + b"\0" in environ + b"\0" or str(home).encode() in cmdline:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
                killed.append(int(entry.name))
            except OSError:
                pass
    return killed


# The user columns of qstat's tables: -a (8), -a -w (15), the default table (16).  A longer name
# is cut to one less and ends in "*" (qstat.c: the column printers), so a stand-in longer than the
# column shows as e.g. "plainus*" where the transcript has "pbsuser ".
_USER_COLUMNS = (8, 15, 16)


def truncated_names(name: str, golden: str) -> List[Tuple[str, str]]:
    """(shown stand-in, shown transcript user) for each user column the stand-in overflows."""
    return [(name[:width - 1] + "*", golden.ljust(width))
            for width in _USER_COLUMNS if len(name) > width >= len(golden)]
