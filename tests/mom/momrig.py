"""A rig that runs real mom daemons in a scratch FAKE_PBS_HOME and talks the exec protocol to them.

Everything it starts (moms, shepherds, job sessions) is killed by :meth:`MomRig.close`, which the
fixture calls in a finalizer even when a test fails. Every wait is bounded.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from fake_pbs import paths
from fake_pbs.model.errors import PbsError
from fake_pbs.mom.durable import read_json
from fake_pbs.mom.procs import same_process_alive, signal_session
from fake_pbs.protocol import LineChannel, call, connect

REPO = Path(__file__).resolve().parents[2]
EVENT_TIMEOUT = 60.0


class MomRig:
    def __init__(self) -> None:
        # Short path under /tmp: sockets live in <home>/run; world-traversable for job owners.
        self.home = Path(tempfile.mkdtemp(prefix="fpmom", dir="/tmp"))
        self.home.chmod(0o755)
        self.user_home = self.home / "user"
        self.user_home.mkdir()
        self.moms: Dict[str, subprocess.Popen] = {}  # type: ignore[type-arg]
        self.channels: List[LineChannel] = []

    # ---- daemons -------------------------------------------------------------------------------

    def start(self, host: str) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO)
        self.moms[host] = subprocess.Popen(
            [sys.executable, "-m", "fake_pbs.mom", "--home", str(self.home), "--host", host],
            cwd=str(REPO), env=env, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                channel = connect(paths.mom_socket(self.home, host), timeout=5)
                try:
                    call(channel, "status")
                    return
                finally:
                    channel.close()
            except (OSError, ValueError):
                time.sleep(0.05)
        raise AssertionError("mom for %s did not answer within 20 s" % host)

    def kill9(self, host: str) -> None:
        proc = self.moms.pop(host)
        proc.kill()
        proc.wait(timeout=10)

    def channel(self, host: str) -> LineChannel:
        channel = connect(paths.mom_socket(self.home, host), timeout=EVENT_TIMEOUT)
        self.channels.append(channel)
        return channel

    def request(self, host: str, op: str, **args: Any) -> Any:
        return call(self.channel(host), op, **args)

    # ---- jobs ----------------------------------------------------------------------------------

    def spec(self, jobid: str, script: str, hosts: Optional[List[Dict[str, Any]]] = None,
             attrs: Optional[Dict[str, str]] = None, **extra: Any) -> Dict[str, Any]:
        name = jobid.split(".")[0]
        base = {"Job_Name": "job", "queue": "workq", "Resource_List.ncpus": "1",
                "Output_Path": "vm:%s/job.o%s" % (self.user_home, name),
                "Error_Path": "vm:%s/job.e%s" % (self.user_home, name),
                "Variable_List": "PBS_O_HOME=%s,PBS_O_WORKDIR=/tmp,PBS_O_QUEUE=workq"
                                 % self.user_home}
        base.update(attrs or {})
        job = {"id": jobid, "run_count": 1, "attrs": base, "script": script,
               "exec_vnode": "(node1:ncpus=1)",
               "hosts": hosts or [{"host": "node1", "ncpus": 1, "mpiprocs": 1}],
               "uid": os.getuid(), "gid": os.getgid(), "user": "root",
               "home": str(self.user_home), "kill_delay": 10}
        job.update(extra)
        return job

    def submit(self, host: str, job: Dict[str, Any]) -> LineChannel:
        channel = self.channel(host)
        channel.send({"op": "start", "job": job})
        return channel

    @staticmethod
    def copy_files(channel: LineChannel, finish: Dict[str, Any]) -> None:
        """What the server does on an obit: the copy file request (the mom stages out)."""
        copy = connect(str(channel.sock.getpeername()), timeout=EVENT_TIMEOUT)
        try:
            call(copy, "copy", job=finish["job"], run_count=finish["run_count"])
        except (OSError, ValueError, PbsError):
            pass  # a job the mom no longer has: nothing to copy
        finally:
            copy.close()

    @staticmethod
    def read_until(channel: LineChannel, kind: str) -> List[Dict[str, Any]]:
        """Events up to and including the first ``kind`` (or the final release)."""
        events: List[Dict[str, Any]] = []
        for msg in channel.messages():
            events.append(msg)
            if "ev" not in msg:
                return events
            if msg["ev"] == "finish":
                MomRig.copy_files(channel, msg)
            if msg["ev"] == kind or (msg["ev"] == "release" and msg.get("final")):
                return events
        return events

    def run(self, host: str, job: Dict[str, Any]) -> List[Dict[str, Any]]:
        """Start ``job`` and return its whole event stream."""
        return self.read_until(self.submit(host, job), "release-final")

    def job_dir(self, host: str, jobid: str) -> Path:
        return paths.mom_priv(self.home, host) / "jobs" / jobid

    # ---- cleanup -------------------------------------------------------------------------------

    def close(self) -> None:
        for channel in self.channels:
            try:
                channel.close()
            except OSError:
                pass
        for proc in self.moms.values():
            proc.kill()
            proc.wait(timeout=10)
        self.moms.clear()
        for record_path in (self.home / "mom_priv").glob("*/jobs/*/shepherd.json"):
            record = read_json(record_path) or {}
            sid = int(record.get("pid", 0))
            if sid > 0:
                signal_session(sid, signal.SIGKILL)
            shepherd = int(record.get("shepherd_pid", 0))
            if same_process_alive(shepherd, record.get("shepherd_ticks")):
                os.kill(shepherd, signal.SIGKILL)
        shutil.rmtree(str(self.home), ignore_errors=True)


def kinds(events: List[Dict[str, Any]]) -> List[str]:
    return [str(e.get("ev")) for e in events]


def event(events: List[Dict[str, Any]], kind: str) -> Dict[str, Any]:
    """The first event of ``kind`` in ``events``."""
    for item in events:
        if item.get("ev") == kind:
            return item
    raise AssertionError("no %s event in %r" % (kind, events))
