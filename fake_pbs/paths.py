"""Where a fake cluster keeps its state: one ``FAKE_PBS_HOME`` directory per cluster.

Layout (see docs/internals.md)::

    <home>/cluster.json        the cluster's configuration (server name, hosts, owner)
    <home>/interpreter         the Python that started the cluster, for fake_pbs/bin (below)
    <home>/server_priv/        server.db (SQLite, WAL), accounting/YYYYMMDD
    <home>/server_logs/ sched_logs/ mom_logs/<host>/
    <home>/mom_priv/<host>/    per-host mom state: jobs/<jobid>/ (spec, shepherd records, events)
    <home>/run/                pid files; sockets unless the path is too long (then /tmp, see below)

Every PBS command imports this module, so it imports only :mod:`fake_pbs.leanos` at start-up
(not even ``os``): ``os``, ``pathlib`` and ``hashlib`` are loaded when a function needs them.
The ``*_path`` functions work on plain strings (what the commands use); the others return
:class:`pathlib.Path` and are built on them.
"""
from __future__ import annotations

from fake_pbs import leanos

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Optional, Union

# sun_path holds 108 bytes; keep a margin for the longest socket name we use.
_MAX_SOCKET_PATH = 100


def _digest(text: str, length: int) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:length]


# -- plain strings (the commands' fast path) ---------------------------------------------------
def cluster_home_path(explicit: Optional[str] = None) -> str:
    """:func:`cluster_home` as a string."""
    value = explicit or leanos.getenv("FAKE_PBS_HOME")
    if value:
        return leanos.abspath(leanos.expanduser(value))
    return leanos.join(leanos.expanduser("~"), ".fake_pbs")


def run_dir_path(home: Union[str, Path]) -> str:
    """:func:`run_dir` as a string."""
    home_text = str(home)
    candidate = leanos.join(home_text, "run")
    if len(candidate) + len("/mom-") + 40 <= _MAX_SOCKET_PATH:
        return candidate
    return leanos.join("/tmp", "fake-pbs-" + _digest(home_text, 16))


def server_socket_path(home: Union[str, Path]) -> str:
    """:func:`server_socket` as a string."""
    return leanos.join(run_dir_path(home), "server.sock")


def runner_socket_path(home: Union[str, Path]) -> str:
    """Where the command runner of the cluster in ``home`` listens (fake_pbs/runner)."""
    return leanos.join(run_dir_path(home), "runner.sock")


def interactive_socket_path(home: Union[str, Path], jobid: str) -> str:
    """Where the shepherd of the interactive job ``jobid`` waits for its ``qsub -I``
    (fake_pbs/mom/ptyrelay.py); a fixed-length name, so the run directory's margin holds."""
    return leanos.join(run_dir_path(home), "qsub-I-%s.sock" % _digest(jobid, 16))


def interpreter_record_path(home: Union[str, Path]) -> str:
    """The file naming the interpreter the commands start (one line: its absolute path).

    ``fake_pbs/bin/fake-pbs`` (every command) reads it in shell, without Python, as
    ``${FAKE_PBS_HOME:-$HOME/.fake_pbs}/interpreter``: keep the two in step.
    """
    return leanos.join(str(home), "interpreter")


def config_file_path(home: Union[str, Path]) -> str:
    """:func:`config_file` as a string."""
    return leanos.join(str(home), "cluster.json")


# -- pathlib API ---------------------------------------------------------------------------------
def _path(text: str) -> Path:
    from pathlib import Path

    return Path(text)


def cluster_home(explicit: Optional[str] = None) -> Path:
    """Resolve the cluster directory: ``explicit``, else ``$FAKE_PBS_HOME``, else the default."""
    return _path(cluster_home_path(explicit))


def run_dir(home: Path) -> Path:
    """Directory of the cluster's sockets: ``<home>/run``, or a short stand-in under /tmp.

    Both daemons and clients call this, so they always agree on the place.
    """
    return _path(run_dir_path(home))


def server_socket(home: Path) -> Path:
    return _path(server_socket_path(home))


def mom_socket(home: Path, host: str) -> Path:
    safe = _digest(host, 12) if len(host) > 24 else host
    return run_dir(home) / ("mom-%s.sock" % safe)


def config_file(home: Path) -> Path:
    return home / "cluster.json"


def server_priv(home: Path) -> Path:
    return home / "server_priv"


def sched_config(home: Path) -> Path:
    """The scheduler's ``sched_priv/sched_config`` (its ``resources:`` line)."""
    return home / "sched_priv" / "sched_config"


def mom_priv(home: Path, host: str) -> Path:
    return home / "mom_priv" / host


def bin_dir() -> Path:
    """The ``fake_pbs/bin`` directory users put first on PATH."""
    import os

    return _path(os.path.dirname(os.path.realpath(__file__))) / "bin"
