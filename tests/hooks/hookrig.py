"""A three-host fake cluster for execjob_abort scenarios (reference §9.1: PBS's own test uses
three moms and ``select=3:ncpus=1 -l place=scatter``), and helpers to read what happened.

Scheduling is off: a test runs its job once with ``qrun -H`` on node1 (primary), node2, node3,
so a job that fails to start goes back to Q and stays there to be looked at.
"""
import os
import pwd
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence

from fake_pbs import control, paths, protocol

HOSTS = ("node1", "node2", "node3")
ALL_HOSTS_SPEC = "+".join("(%s:ncpus=1)" % h for h in HOSTS)
POLL = 0.1


class Cluster:
    """One started 3-host cluster; :meth:`fresh` gives each test a clean one."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.env = dict(os.environ, FAKE_PBS_HOME=str(home), FAKE_PBS_AUTOSTART="0",
                        PATH="%s:%s" % (paths.bin_dir(), os.environ.get("PATH", "")))
        self.marks: Dict[Path, int] = {}
        self.hookdir = home / "test_hooks"

    def start(self) -> None:
        hosts = [{"name": h, "ncpus": 2, "mem": "1gb", "ngpus": 0} for h in HOSTS]
        control.start(self.home, "vm", hosts)

    def stop(self) -> None:
        control.stop(self.home)

    def fresh(self) -> None:
        """No jobs, no hooks, no faults, scheduling off; logs read from here on."""
        control.clear_faults(self.home)
        self.call("reset")
        self.set_server("scheduling", "False")
        self.hookdir.mkdir(exist_ok=True)
        self.marks = {log: log.stat().st_size for log in self._logs()}

    # -- commands ---------------------------------------------------------------------------
    def call(self, op: str, **args: object) -> object:
        channel = protocol.connect(paths.server_socket(self.home), timeout=30.0)
        try:
            return protocol.call(channel, op, **args)
        finally:
            channel.close()

    def run(self, *argv: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run(list(argv), env=self.env, cwd=str(self.home),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60)

    def sh(self, *argv: str) -> str:
        done = self.run(*argv)
        assert done.returncode == 0, "%s exited %d\nstdout: %s\nstderr: %s" % (
            " ".join(argv), done.returncode, done.stdout, done.stderr)
        return done.stdout

    def qmgr(self, directive: str) -> str:
        return self.sh("qmgr", "-c", directive)

    def set_server(self, name: str, value: str) -> None:
        """``qmgr -c "set server NAME = VALUE"``, as the request qmgr sends."""
        self.call("manager", command="set", objtype="server", name="",
                  attrs=[[name, "=", value]])

    def hook(self, name: str, events: str, body: str, **attrs: str) -> None:
        """Create hook ``name`` for ``events`` (comma separated) with the Python ``body``: the
        requests of ``qmgr -c 'create hook ...'``, ``set hook`` and ``import hook`` (sent
        directly, to keep the tests quick; tests/cli and the fidelity replay cover qmgr)."""
        settings = [["event", "=", events]] + [[k, "=", v] for k, v in attrs.items()]
        self.call("manager", command="create", objtype="hook", name=name, attrs=settings)
        self.call("hookio", command="import", name=name, content_type="application/x-python",
                  encoding="default", content="import pbs\ne = pbs.event()\n" + body)

    def fault(self, host: str, name: str) -> None:
        control.fault(self.home, host, name)

    def mom_faults(self, host: str) -> List[str]:
        """The faults armed on the mom of ``host`` (its ``status`` reply)."""
        channel = protocol.connect(paths.mom_socket(self.home, host), timeout=30.0)
        try:
            status = protocol.call(channel, "status")
        finally:
            channel.close()
        return [str(f) for f in status.get("faults", [])]

    def submit(self, *options: str, body: str = "sleep 1", user: str = "") -> str:
        """qsub a script with ``body`` (as ``user`` when given: the cluster is root's)."""
        script = Path(tempfile.mkdtemp(prefix="job-", dir=str(self.home))) / "job.sh"
        script.write_text("#!/bin/sh\n%s\n" % body)
        script.parent.chmod(0o755)
        script.chmod(0o755)
        if not user:
            return self.sh("qsub", *options, str(script)).strip()
        owner = pwd.getpwnam(user)
        for path in (script.parent, script):
            os.chown(str(path), owner.pw_uid, owner.pw_gid)
        done = subprocess.run(["qsub"] + list(options) + [str(script)], env=self.env,
                              cwd=str(script.parent), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                              user=owner.pw_uid, group=owner.pw_gid, extra_groups=[])
        assert done.returncode == 0, (done.stdout, done.stderr)
        return done.stdout.strip()

    def run_everywhere(self, jobid: str) -> None:
        """``qrun -H`` on node1 (primary), node2, node3 (select=3:ncpus=1, place=scatter)."""
        self.runjob(jobid, ALL_HOSTS_SPEC)

    def runjob(self, jobid: str, vnodes: str) -> None:
        """``qrun -H VNODES JOBID``, as the request qrun sends."""
        self.call("runjob", id=jobid, vnodes=vnodes)

    def attrs(self, jobid: str) -> Dict[str, str]:
        records = self.call("statjob", id=jobid, extend="x")
        assert isinstance(records, list)
        return {str(k): str(v) for k, v in records[0]["attrs"]}

    def wait_state(self, jobid: str, states: str, timeout: float = 30.0,
                   min_run_count: int = 1) -> Dict[str, str]:
        """Poll (bounded) until the job is in one of ``states`` after ``min_run_count`` runs."""
        deadline = time.monotonic() + timeout
        seen: Dict[str, str] = {}
        while time.monotonic() < deadline:
            seen = self.attrs(jobid)
            if (seen.get("job_state", "?") in states
                    and int(seen.get("run_count", "0")) >= min_run_count):
                return seen
            time.sleep(POLL)
        raise AssertionError("job %s not in %s within %.0f s: %r" % (jobid, states, timeout, seen))

    # -- logs -------------------------------------------------------------------------------
    def _logs(self) -> Iterator[Path]:
        for pattern in ("server_logs/*", "mom_logs/*/*"):
            for log in sorted(self.home.glob(pattern)):
                if log.is_file():
                    yield log

    def log_lines(self, daemon: str) -> List[str]:
        """Lines written since :meth:`fresh` to ``server`` or ``mom:<host>``'s log."""
        if daemon == "server":
            files = sorted(self.home.glob("server_logs/*"))
        else:
            files = sorted(self.home.glob("mom_logs/%s/*" % daemon.split(":", 1)[1]))
        lines: List[str] = []
        for log in files:
            with open(str(log), "rb") as stream:
                stream.seek(self.marks.get(log, 0))
                lines += stream.read().decode("utf-8", "replace").splitlines()
        return lines

    def messages(self, daemon: str, needle: str = "") -> List[str]:
        """The message field (after the 5th ``;``) of matching log lines, in order."""
        return [line.split(";", 5)[-1] for line in self.log_lines(daemon) if needle in line]

    def wait_log(self, daemon: str, needle: str, count: int = 1,
                 timeout: float = 30.0) -> List[str]:
        """Poll (bounded) until ``needle`` appears ``count`` times in the daemon's log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in self.log_lines(daemon) if needle in line]
            if len(found) >= count:
                return found
            time.sleep(POLL)
        raise AssertionError("%r did not appear %d time(s) in the %s log within %.0f s; "
                             "log since the test began:\n%s" % (
                                 needle, count, daemon, timeout,
                                 "\n".join(self.log_lines(daemon)[-60:])))


def index_of(lines: Sequence[str], needle: str, start: int = 0) -> Optional[int]:
    for number in range(start, len(lines)):
        if needle in lines[number]:
            return number
    return None
