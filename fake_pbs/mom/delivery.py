"""Output delivery (stage-out): copy the spooled stdout/stderr to their final paths as the owner.

PBS's mom copies with ``/bin/cp`` as the job owner; so does the fake (a subprocess with the
owner's uid/gid and the job's umask, which is fork-safe in the threaded mom) when that identity
differs from the mom's; otherwise it copies in-process with ``cp``'s file-mode rules. Like PBS,
a file that cannot be delivered (missing directory, no permission) is kept in the host's
``undelivered/`` directory and the stage-out is reported failed (Stageout_status = 0).
"""
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Mapping, Tuple

from fake_pbs.mom.streams import Stream

CP = "/bin/cp"
SH = "/bin/sh"


def copy_as(src: str, dst: str, launch: Mapping[str, Any], as_owner: bool) -> bool:
    """Copy ``src`` to ``dst``; with ``as_owner`` under the job owner's identity."""
    if _same_identity(launch, as_owner) and not os.path.isdir(dst):
        return _copy_here(src, dst, int(launch.get("umask", 0o077)))
    extra: Dict[str, Any] = {}
    if as_owner:
        extra = {"user": int(launch["uid"]), "group": int(launch["gid"]), "extra_groups": []}
    try:
        done = subprocess.run([CP, "--", src, dst], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              umask=int(launch.get("umask", 0o077)), timeout=60, **extra)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _same_identity(launch: Mapping[str, Any], as_owner: bool) -> bool:
    """True when ``cp`` would run with the mom's own identity, so the mom can copy itself.

    Two process starts per job were a third of a busy mom's time (docs/performance.md,
    hotspot 2); only a root mom must still drop to the owner's identity through ``cp``.
    """
    if not as_owner:
        return True
    return int(launch["uid"]) == os.geteuid() and int(launch["gid"]) == os.getegid()


def _copy_here(src: str, dst: str, umask: int) -> bool:
    """What ``cp -- src dst`` does for a regular file: an existing ``dst`` is truncated and keeps
    its mode; a new one gets ``src``'s permission bits less ``umask``."""
    try:
        mode = os.stat(src).st_mode & 0o777 & ~umask
        fd_in = os.open(src, os.O_RDONLY)
        try:
            fd_out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
            try:
                while True:
                    block = os.read(fd_in, 1 << 20)
                    if not block:
                        break
                    view = memoryview(block)
                    while view:
                        view = view[os.write(fd_out, view):]
            finally:
                os.close(fd_out)
        finally:
            os.close(fd_in)
    except OSError:
        return False
    return True


def append_as_owner(path: str, jobdir: str, launch: Mapping[str, Any], data: bytes) -> bool:
    """Append ``data`` (the walltime message) to one of the job's stream files.

    A spool file sits in the root-owned job directory and is written in place, never through a
    link; a file anywhere else (``-k``, sandbox) is written by ``sh`` running as the owner when
    the mom is root: a root mom never opens a user-controlled path on the owner's behalf."""
    spooled = os.path.dirname(path) == jobdir.rstrip("/")
    if spooled or _same_identity(launch, bool(launch.get("drop_privileges"))):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | (os.O_NOFOLLOW if spooled else 0))
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError:
            return False
        return True
    try:
        done = subprocess.run([SH, "-c", 'exec cat >> "$1"', "sh", path], input=data,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
                              user=int(launch["uid"]), group=int(launch["gid"]),
                              extra_groups=[])
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def deliver(streams: List[Stream], launch: Mapping[str, Any], undelivered: Path,
            as_owner: bool) -> Tuple[int, int]:
    """Deliver each stream that has a destination; return (delivered, attempted)."""
    done = attempted = 0
    for stream in streams:
        if stream.deliver_to is None or not os.path.exists(stream.write_to):
            continue
        attempted += 1
        if copy_as(stream.write_to, stream.deliver_to, launch, as_owner):
            done += 1
        else:
            undelivered.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(stream.write_to, str(undelivered / os.path.basename(stream.write_to)))
    return done, attempted
