"""``cluster.json``: the cluster's configuration, written by ``fake-pbs start`` (internals §2)."""
import json
import os
import socket
from pathlib import Path
from typing import Any, Dict, List

from fake_pbs import PBS_VERSION, paths

ClusterConfig = Dict[str, Any]

DEFAULT_HOSTS: List[Dict[str, Any]] = [
    {"name": "node1", "ncpus": 8, "mem": "16gb", "ngpus": 0},
    {"name": "node2", "ncpus": 8, "mem": "16gb", "ngpus": 0},
]


def short_hostname() -> str:
    return socket.gethostname().split(".")[0] or "localhost"


def default_config() -> ClusterConfig:
    return {"server_name": short_hostname(), "hosts": [dict(h) for h in DEFAULT_HOSTS],
            "owner_uid": os.getuid(), "version": PBS_VERSION}


def load(home: Path) -> ClusterConfig:
    """The cluster's configuration, completed with the defaults for anything missing."""
    config = default_config()
    path = paths.config_file(home)
    if path.exists():
        with open(str(path), "r", encoding="utf-8") as handle:
            config.update(json.load(handle))
    return config


def save(home: Path, config: ClusterConfig) -> None:
    """Write ``cluster.json`` atomically (write, fsync, rename)."""
    path = paths.config_file(home)
    tmp = path.with_name(path.name + ".tmp.%d" % os.getpid())
    with open(str(tmp), "w", encoding="utf-8") as handle:
        json.dump(config, handle, indent=1, sort_keys=True)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(str(tmp), str(path))
