"""The fake hosts' names inside jobs: an ``LD_PRELOAD`` library (``hostnames.c``) that makes
every name of ``exec_host`` and ``PBS_NODEFILE`` resolve to a loopback address of its own, and
gives each job shell and task its host's name (``gethostname``, ``uname``): no root, no
``/etc/hosts`` (docs/multinode.md, "Host names").

``fake-pbs start`` builds it into ``<home>/libfakehosts.so`` (:func:`build`, cached by a hash
of the source and compiler, written under a temporary name and renamed, mode 0755).  The mom
puts it in a job's or task's environment (:func:`job_variables`) only when the cluster's owner
(the mom's own user: root for a root cluster) owns it and no one else may write it.  Without a
C compiler there is no library: the names do not resolve, and the mom says so in its log.
"""
import hashlib
import ipaddress
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from fake_pbs import cbuild, paths

SOURCE = Path(__file__).resolve().parent / "hostnames.c"
LIBRARY = "libfakehosts.so"
# Host number i of the cluster resolves to 127.1.0.0 + i + 1 (127/8 is loopback: this machine).
_FIRST_ADDRESS = ipaddress.IPv4Address("127.1.0.0")
NO_COMPILER = ("no C compiler (cc): the fake hosts' names do not resolve in jobs "
               "(docs/multinode.md, Host names)")

NOT_BUILT = ("no usable %s in the cluster's home: the fake hosts' names do not resolve in "
             "jobs (docs/multinode.md, Host names)" % LIBRARY)

_HOSTS_CACHE: Dict[str, Tuple[int, List[str]]] = {}


def library_path(home: Path) -> Path:
    return home / LIBRARY


def build(home: Path) -> Optional[str]:
    """Compile the library for ``home`` unless the same one is there.  None when it is in
    place, else why there is none (no compiler, a failed build)."""
    compiler = shutil.which("cc")
    if compiler is None:
        cbuild.remove(library_path(home), home / (LIBRARY + ".sha256"))
        return NO_COMPILER
    try:
        source = SOURCE.read_bytes()
    except OSError as exc:
        return "cannot read %s: %s" % (SOURCE, exc.strerror)
    command = [compiler, "-O2", "-shared", "-fPIC", "-pthread", "-o", cbuild.OUTPUT,
               str(SOURCE), "-ldl"]
    parts = [source, os.fsencode(os.path.realpath(compiler))] + [w.encode() for w in command]
    digest = hashlib.sha256(b"\0".join(parts)).hexdigest()
    done, why = cbuild.build(home, LIBRARY, digest, [command])
    return None if done else "building %s failed: %s" % (LIBRARY, why)


def trusted(home: Path) -> bool:
    """The library exists, is a regular file of this process's user (the cluster's owner) and
    no one else may write it, nor its directory."""
    try:
        info = os.lstat(str(library_path(home)))
        where = os.stat(str(home))
    except OSError:
        return False
    owner = os.geteuid()
    return (stat.S_ISREG(info.st_mode) and info.st_uid == owner
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            and where.st_uid in (owner, 0) and not where.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def readable_by_all(home: Path) -> bool:
    """Any user's process can load the library (a root cluster's jobs run as their owners; a
    library the loader cannot open would put an error on each program's stderr)."""
    path = library_path(home)
    try:
        if not os.stat(str(path)).st_mode & stat.S_IROTH:
            return False
        for parent in path.parents:
            if not os.stat(str(parent)).st_mode & stat.S_IXOTH:
                return False
    except OSError:
        return False
    return True


def cluster_hosts(home: Path) -> List[str]:
    """The cluster's host names in ``cluster.json`` order (read again when it changes)."""
    config = paths.config_file(home)
    try:
        mtime = os.stat(str(config)).st_mtime_ns
    except OSError:
        return []
    cached = _HOSTS_CACHE.get(str(config))
    if cached is not None and cached[0] == mtime:
        return cached[1]
    try:
        with open(str(config), "r", encoding="utf-8") as handle:
            names = [str(h["name"]) for h in json.load(handle).get("hosts", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return []
    _HOSTS_CACHE[str(config)] = (mtime, names)
    return names


def host_addresses(names: List[str]) -> str:
    """``FAKE_PBS_HOSTS``: ``name=address`` for each host, comma-separated."""
    return ",".join("%s=%s" % (name, _FIRST_ADDRESS + index + 1)
                    for index, name in enumerate(names))


def job_variables(home: Path, host: str, uid: int, env: Dict[str, str],
                  named: bool = True) -> Dict[str, str]:
    """What a job shell or task of user ``uid`` on ``host`` gets (nothing without a trusted
    library that user can load): the library first in ``LD_PRELOAD`` (before any the job's own
    variables name), the hosts' addresses and, when ``named``, this host's name as
    ``gethostname()``'s answer.  A job shell is not named: what it tells processes outside the
    job (ipyparallel's controller its location) must resolve there, where the fake hosts' names
    do not; a TM task is."""
    if not trusted(home) or (uid != os.geteuid() and not readable_by_all(home)):
        return {}
    names = cluster_hosts(home)
    if host not in names:
        return {}
    preload = str(library_path(home))
    theirs = env.get("LD_PRELOAD", "")
    variables = {"LD_PRELOAD": preload + (":" + theirs if theirs else ""),
                 "FAKE_PBS_HOSTS": host_addresses(names)}
    if named:
        variables["FAKE_PBS_HOSTNAME"] = host
    return variables
