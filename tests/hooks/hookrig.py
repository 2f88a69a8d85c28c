"""A three-host fake cluster for execjob_abort scenarios (reference §9.1: PBS's own test uses
three moms and ``select=3:ncpus=1 -l place=scatter``), on fake_pbs.testing's harness.

Scheduling is off: a test runs its job once with ``qrun -H`` on node1 (primary), node2, node3,
so a job that fails to start goes back to Q and stays there to be looked at.
"""
import os
import pwd
import subprocess
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

from fake_pbs import control, paths, protocol
from fake_pbs.testing import FakeCluster

HOSTS = ("node1", "node2", "node3")
ALL_HOSTS_SPEC = "+".join("(%s:ncpus=1)" % h for h in HOSTS)


class Cluster(FakeCluster):
    """One started 3-host cluster; :meth:`fresh` gives each test a clean one."""

    def __init__(self, home: Path) -> None:
        super().__init__(home, "vm", [{"name": h, "ncpus": 2, "mem": "1gb", "ngpus": 0}
                                      for h in HOSTS])
        self.hookdir = home / "test_hooks"

    def fresh(self) -> None:
        """No jobs, no hooks, no faults, scheduling off; logs read from here on."""
        control.clear_faults(self.home)
        self.call("reset")
        self.set_server("scheduling", "False")
        self.hookdir.mkdir(exist_ok=True)
        self.mark_logs()

    # -- commands ---------------------------------------------------------------------------
    def run(self, argv: Sequence[str], input: Optional[str] = None,
            cwd: Optional[str] = None) -> "subprocess.CompletedProcess[str]":
        """Commands run in the cluster's home (job output lands there, not in the checkout)."""
        return super().run(argv, input=input, cwd=cwd or str(self.home))

    def set_server(self, name: str, value: str) -> None:
        """``qmgr -c "set server NAME = VALUE"``, as the request qmgr sends."""
        self.call("manager", command="set", objtype="server", name="",
                  attrs=[[name, "=", value]])

    def fault(self, host: str, name: str) -> None:
        control.fault(self.home, host, name)

    def mom_faults(self, host: str) -> List[str]:
        """The faults armed on the mom of ``host`` (its ``status`` reply)."""
        status = protocol.call_once(paths.mom_socket(self.home, host), "status", 30.0)
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


def index_of(lines: Sequence[str], needle: str, start: int = 0) -> Optional[int]:
    for number in range(start, len(lines)):
        if needle in lines[number]:
            return number
    return None
