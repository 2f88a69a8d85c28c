"""A fake cluster for one benchmark run: temporary FAKE_PBS_HOME, fake_pbs/bin first on PATH."""
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Dict, List, Optional, Sequence, Type

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "fake_pbs" / "bin"


class BenchCluster:
    """Starts a cluster on enter and always stops it on exit."""

    def __init__(self, hosts: Sequence[str] = ()) -> None:
        self.hosts = list(hosts)
        self.home = Path(tempfile.mkdtemp(prefix="fake-pbs-bench-"))
        self.env: Dict[str, str] = dict(os.environ)
        self.env["FAKE_PBS_HOME"] = str(self.home)
        self.env["PATH"] = "%s%s%s" % (BIN, os.pathsep, self.env.get("PATH", ""))
        self.env["FAKE_PBS_AUTOSTART"] = "0"

    def __enter__(self) -> "BenchCluster":
        args: List[str] = [str(BIN / "fake-pbs"), "start"]
        for host in self.hosts:
            args += ["--host", host]
        subprocess.run(args, env=self.env, check=True, stdout=subprocess.DEVNULL)
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        subprocess.run([str(BIN / "fake-pbs"), "stop"], env=self.env, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.home, ignore_errors=True)

    def run(self, *argv: str, check: bool = True) -> str:
        """Run a PBS command of this cluster and return its stdout."""
        done = subprocess.run(list(argv), env=self.env, check=check, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return done.stdout

    def wait_all_finished(self, ids: Sequence[str], timeout: float) -> float:
        """Poll until every id is in state F; return the time it was first seen so."""
        import json

        deadline = time.monotonic() + timeout
        pending = set(ids)
        while pending and time.monotonic() < deadline:
            out = self.run("qstat", "-x", "-f", "-F", "json", check=False)
            jobs = json.loads(out).get("Jobs", {}) if out.strip() else {}
            pending = {i for i in pending if jobs.get(i, {}).get("job_state") != "F"}
            if pending:
                time.sleep(0.05)
        if pending:
            raise TimeoutError("%d jobs not finished after %.0f s" % (len(pending), timeout))
        return time.monotonic()
