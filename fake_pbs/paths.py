"""Where a fake cluster keeps its state: one ``FAKE_PBS_HOME`` directory per cluster.

Layout (see docs/internals.md)::

    <home>/cluster.json        the cluster's configuration (server name, hosts, owner)
    <home>/server_priv/        server.db (SQLite, WAL), accounting/YYYYMMDD
    <home>/server_logs/ sched_logs/ mom_logs/<host>/
    <home>/mom_priv/<host>/    per-host mom state: jobs/<jobid>/ (spec, shepherd records, events)
    <home>/run/                pid files; sockets unless the path is too long (then /tmp, see below)
"""
import hashlib
import os
from pathlib import Path
from typing import Optional

# sun_path holds 108 bytes; keep a margin for the longest socket name we use.
_MAX_SOCKET_PATH = 100


def default_home() -> Path:
    """The per-user default cluster directory."""
    return Path(os.path.expanduser("~")) / ".fake_pbs"


def cluster_home(explicit: Optional[str] = None) -> Path:
    """Resolve the cluster directory: ``explicit``, else ``$FAKE_PBS_HOME``, else the default."""
    value = explicit or os.environ.get("FAKE_PBS_HOME")
    return Path(os.path.abspath(os.path.expanduser(value))) if value else default_home()


def run_dir(home: Path) -> Path:
    """Directory of the cluster's sockets: ``<home>/run``, or a short stand-in under /tmp.

    Both daemons and clients call this, so they always agree on the place.
    """
    candidate = home / "run"
    if len(str(candidate)) + len("/mom-") + 40 <= _MAX_SOCKET_PATH:
        return candidate
    digest = hashlib.sha256(str(home).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path("/tmp") / ("fake-pbs-" + digest)


def server_socket(home: Path) -> Path:
    return run_dir(home) / "server.sock"


def mom_socket(home: Path, host: str) -> Path:
    safe = hashlib.sha256(host.encode()).hexdigest()[:12] if len(host) > 24 else host
    return run_dir(home) / ("mom-%s.sock" % safe)


def config_file(home: Path) -> Path:
    return home / "cluster.json"


def server_priv(home: Path) -> Path:
    return home / "server_priv"


def mom_priv(home: Path, host: str) -> Path:
    return home / "mom_priv" / host


def bin_dir() -> Path:
    """The ``fake_pbs/bin`` directory users put first on PATH."""
    return Path(__file__).resolve().parent / "bin"
