"""Stored job data is readable by root only (issue 10).

PBS keeps job scripts and environments under server_priv (0750, root) and mom_priv (0751),
in files of mode 0600; logs stay readable as PBS keeps them (0644 in 0755 directories).  The
fake keeps the same things in server_priv/server.db (SQLite, with -wal and -shm files) and in
each host's job directories.
"""
import stat
from pathlib import Path
from typing import List

from ..reliability.rig import USER_PYTHON, Rig

SECRET = "secret-token-7f3a"


def _readable_by(rig: Rig, user: str, files: List[Path]) -> List[str]:
    """The files of ``files`` that ``user`` can open for reading (tried as that user)."""
    probe = ("import sys\nfor name in sys.argv[1:]:\n    try:\n        open(name, 'rb').read(1)\n"
             "        print(name)\n    except OSError:\n        pass\n")
    done = rig.run([USER_PYTHON, "-c", probe] + [str(f) for f in files], user=user)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_server_store_is_root_only(rig: Rig) -> None:
    jobid = rig.qsub("echo %s; sleep 30" % SECRET, "-v", "TOKEN=" + SECRET, user="pbsuser")
    rig.wait(jobid, "R")
    priv = rig.home / "server_priv"
    assert stat.S_IMODE(priv.stat().st_mode) == 0o750
    stored = [p for p in priv.iterdir() if p.name.startswith("server.db")]
    assert {p.name for p in stored} >= {"server.db", "server.db-wal"}
    for path in stored:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    jobdir = next(rig.home.glob("mom_priv/*/jobs/%s" % jobid))
    mom_files = [p for p in jobdir.iterdir() if p.suffix == ".json"]
    assert mom_files
    daemon_logs = list((rig.home / "daemon_logs").iterdir())
    assert _readable_by(rig, "pbsuser2", stored + mom_files + daemon_logs) == []
    # What PBS lets everyone read stays readable: the logs.
    logs = list((rig.home / "server_logs").iterdir())
    assert _readable_by(rig, "pbsuser2", logs) == [str(p) for p in logs]
    assert rig.run(["qdel", jobid], user="pbsuser").returncode == 0
    rig.wait(jobid)
