"""The mom's lines about a job's hosts and vnodes as it sets the job up (golden f04, h01):

    exechost2=vm:15002/0
    Adding mom vm:15003 to job
    Creating entry for vnode=vm, mom=vm                        (first job after a vnode change)
    Found! vnodemap entry for vnode=vm: mom-name=vm, hostname=vm            (every later job)

PBS's mom rebuilds its vnode map when the server sends new vnode information (after a mom start,
or ``qmgr -c 'set node ...'``); the fake's server marks such changes by touching
``server_priv/vnodemap.stamp`` (:func:`touch`) and the mom compares its time per vnode.
The port numbers are PBS's defaults (15002 mom, 15003 mom-to-mom): the fake has no ports.
"""
import os
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Tuple

MOM_PORT = 15002
MOM_RM_PORT = 15003
_DEBUG3 = 0x0400

_lock = threading.Lock()
_known: Dict[Tuple[str, str], int] = {}  # (home, vnode) -> the stamp the entry was built from


def stamp_file(home: Path) -> Path:
    return home / "server_priv" / "vnodemap.stamp"


def _stamp(home: Path) -> int:
    try:
        return os.stat(str(stamp_file(home))).st_mtime_ns
    except OSError:
        return 0


def job_hosts(job: Mapping[str, Any], local: str) -> List[str]:
    hosts: List[str] = []
    for chunk in job.get("hosts") or [{"host": local}]:
        name = str(chunk.get("host", local))
        if name not in hosts:
            hosts.append(name)
    return hosts


def log_setup(home: Path, job: Mapping[str, Any], local: str,
              log: Callable[[str, str, int], None]) -> None:
    """Write the set-up lines for ``job`` through ``log(jobid, message, eventtype)``."""
    jobid = str(job.get("id", ""))
    hosts = job_hosts(job, local)
    exec_host = str((job.get("attrs") or {}).get("exec_host", ""))
    parts = []
    for index, part in enumerate(exec_host.split("+") if exec_host else hosts):
        host, _, slot = part.partition("/")
        parts.append("%s:%d/%s" % (host, MOM_PORT, slot or str(index)))
    log(jobid, "exechost2=%s" % "+".join(parts), _DEBUG3)
    for host in hosts:
        log(jobid, "Adding mom %s:%d to job" % (host, MOM_RM_PORT), _DEBUG3)
    current = _stamp(home)
    for host in hosts:
        key = (str(home), host)
        with _lock:
            fresh = _known.get(key) != current
            _known[key] = current
        if fresh:
            log(jobid, "Creating entry for vnode=%s, mom=%s" % (host, host), _DEBUG3)
        else:
            log(jobid, "Found! vnodemap entry for vnode=%s: mom-name=%s, hostname=%s"
                % (host, host, host), _DEBUG3)


def touch(home: Path) -> None:
    """The server's side: vnode information changed (the moms rebuild their entries)."""
    path = stamp_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(str(path), "a"):
        pass
    os.utime(str(path))
