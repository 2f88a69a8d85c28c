"""A private fake cluster per test (fake_pbs.testing's harness), with crash controls and a sweep
of its processes.

Each :class:`Rig` owns a fresh ``FAKE_PBS_HOME`` under /tmp (short, so the sockets fit), starts
its daemons through ``fake_pbs.control`` (as ``fake-pbs start`` does) and, in :meth:`Rig.close`,
stops them and SIGKILLs whatever still names the home (daemons, shepherds, job shells, hook
runs), so a failing test leaves nothing behind.  Every wait is bounded.
"""
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Sequence

import pytest

from fake_pbs import control, paths
from fake_pbs.model.errors import PbsError
from fake_pbs.testing import FakeCluster, wait_for

BIN = str(paths.bin_dir())
# An interpreter every user may run (the venv's may live under root's home).
USER_PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


class Rig(FakeCluster):
    """One fake cluster in its own home: ``hosts`` like ``["n1:ncpus=4"]``."""

    def __init__(self, hosts: Sequence[str] = ("n1:ncpus=4", "n2:ncpus=4"),
                 server_name: str = "vm", config: Optional[Dict[str, Any]] = None) -> None:
        home = Path(tempfile.mkdtemp(prefix="fprel", dir="/tmp"))
        home.chmod(0o755)
        # Fake-only settings (node_down_after, ...) go into cluster.json before the start.
        paths.config_file(home).write_text(json.dumps(dict(config or {})))
        super().__init__(home, server_name, [control.parse_host(h) for h in hosts])
        self.work = self.home / "work"
        self.work.mkdir()
        self.work.chmod(0o777)
        # The commands start as ``python3 -S``; a pyenv shim would cost more than the command.
        self.env.setdefault("FAKE_PBS_PYTHON", sys.executable)

    # -- life -----------------------------------------------------------------------------------
    def restart_missing(self) -> None:
        """``fake-pbs start``: bring back whichever daemons are not running."""
        done = self.run([sys.executable, BIN + "/fake-pbs", "start"])
        assert done.returncode == 0, done.stderr

    def kill(self, what: str, host: str = "") -> None:
        """``fake-pbs kill server`` / ``fake-pbs kill mom HOST`` (SIGKILL to that daemon)."""
        argv = [sys.executable, BIN + "/fake-pbs", "kill", what] + ([host] if host else [])
        done = self.run(argv)
        assert done.returncode == 0, done.stderr

    def close(self) -> None:
        try:
            control.stop(self.home)
        except Exception:
            pass
        sweep(self.home)
        shutil.rmtree(str(self.home), ignore_errors=True)

    # -- talking to it ----------------------------------------------------------------------------
    def run(self, argv: Sequence[str], input: Optional[str] = None, cwd: Optional[str] = None,
            user: Optional[str] = None,
            env: Optional[Dict[str, str]] = None) -> "subprocess.CompletedProcess[str]":
        """Run a command against this cluster (as ``user`` when given: needs root)."""
        extra: Dict[str, Any] = {}
        if user is not None:
            import pwd
            entry = pwd.getpwnam(user)
            extra = {"preexec_fn": _become(entry.pw_uid, entry.pw_gid, user)}
            env = dict(env or self.env)
            env["FAKE_PBS_PYTHON"] = USER_PYTHON
        return subprocess.run(list(argv), input=input, env=env or self.env,
                              cwd=cwd or str(self.work), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                              **extra)

    def qsub(self, body: str, *options: str, cwd: Optional[str] = None,
             user: Optional[str] = None) -> str:
        """Submit ``body`` on qsub's standard input (as ``user`` when given)."""
        done = self.run(["qsub"] + list(options), input="#!/bin/sh\n" + body + "\n", cwd=cwd,
                        user=user)
        assert done.returncode == 0, "qsub %s: rc %d %s" % (
            options, done.returncode, done.stderr)
        return done.stdout.strip()

    def jobs(self) -> Dict[str, Dict[str, str]]:
        return {r["id"]: dict(r["attrs"]) for r in self.call("statjob", id=None, extend="x")}

    def node(self, name: str) -> Dict[str, str]:
        return dict(self.call("statnode", name=name, vnodes=False)[0]["attrs"])

    def wait(self, jobid: str, states: str = "F", timeout: float = 40.0, run_count: int = 0,
             started: bool = True) -> Dict[str, str]:
        """As :meth:`FakeCluster.wait`; R counts once the mom reported the run started: R alone
        is only the server's send, and a crash test must hit a job that really runs."""
        return super().wait(jobid, states, timeout, run_count, started)

    def wait_all(self, jobids: Sequence[str], timeout: float = 60.0) -> Dict[str, Dict[str, str]]:
        seen: Dict[str, Dict[str, str]] = {}

        def finished() -> bool:
            nonlocal seen
            try:
                seen = self.jobs()
            except (PbsError, OSError):
                return False
            return all(seen.get(j, {}).get("job_state") == "F" for j in jobids)
        wait_for(finished, timeout, lambda: "not finished: %r" % {
            j: seen.get(j, {}).get("job_state") for j in jobids
            if seen.get(j, {}).get("job_state") != "F"})
        return seen


def need_users() -> None:
    """Skip unless this process is root and both test users exist (the transcripts' users)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to start a shared cluster and act as pbsuser and pbsuser2")
    for name in ("pbsuser", "pbsuser2"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            pytest.skip("user %s does not exist (tools/make_fidelity_users.sh)" % name)


def _become(uid: int, gid: int, user: str) -> Callable[[], None]:
    def change() -> None:
        os.initgroups(user, gid)
        os.setgid(gid)
        os.setuid(uid)
    return change


sweep = control.sweep
__all__ = ["BIN", "USER_PYTHON", "Rig", "sweep", "wait_for"]
