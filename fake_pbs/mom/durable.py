"""Durable files: what the mom relies on after a crash is written atomically, or appended whole.

Records are read only when they are this daemon's own (:func:`read_bytes`): a regular file of
its user, writable by that user alone, reached without a link.

A ``kill -9`` of the mom, or of a shepherd, may come between any two instructions; readers therefore
see either the old or the new content of a record, never half of it (write tmp, rename).  What a
process wrote is in the kernel's page cache before it can die, so a daemon crash loses nothing.

``fsync`` would guard only against the machine itself crashing, when every job of the fake cluster
dies with it; on this project's machines it cost the mom and the shepherds ~2-3 ms of CPU per job
(ext4 flushes on a virtio disk: docs/performance.md).  ``FAKE_PBS_FSYNC=1`` in the environment of
``fake-pbs start`` (the daemons and the shepherds inherit it) restores it.
"""
from __future__ import annotations

import errno  # built in: no file to load
import os

from fake_pbs.jsonwire import loads

# No json/pathlib/typing at run time: every shepherd imports this module (one per job).
TYPE_CHECKING = False
FSYNC = os.environ.get("FAKE_PBS_FSYNC") == "1"
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Dict, List, Optional, Union


def fsync_dir(path: Union[str, Path]) -> None:
    """Make a rename or a new entry in ``path`` durable (when :data:`FSYNC`)."""
    if not FSYNC:
        return
    fd = os.open(os.fspath(path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Union[str, Path], data: bytes, mode: int = 0o600) -> None:
    """Replace ``path`` by ``data`` atomically (and durably, when :data:`FSYNC`)."""
    target = os.fspath(path)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, ".%s.tmp%d" % (name, os.getpid()))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        if FSYNC:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, target)
    fsync_dir(folder or ".")


def write_json(path: Union[str, Path], value: Any, mode: int = 0o600) -> None:
    import json  # loaded on use: the shepherd writes its records without it (jsonwire)

    write_atomic(path, json.dumps(value, sort_keys=True).encode("utf-8", "surrogateescape"), mode)


def read_json(path: Union[str, Path]) -> Optional[Dict[str, Any]]:
    """The JSON object stored in ``path``, or None when it does not exist (yet)."""
    return _decode(read_bytes(path))


def _decode(data: Optional[bytes]) -> Optional[Dict[str, Any]]:
    if data is None:
        return None
    value = loads(data.decode("utf-8", "surrogateescape"))
    return value if isinstance(value, dict) else None


class UntrustedRecord(ValueError):
    """A record someone other than this daemon's own user could have written or chosen."""


def untrusted(info: os.stat_result) -> str:
    """Why a record with this ``fstat`` must not be believed ("" when it may): it must be a
    regular file with one name, of this process's user, writable by that user alone.  Every
    record is written so (:func:`write_atomic`, :func:`append_line`) in directories only that
    user may change; a record that is not was made or swapped in by someone else (a job's path
    pointed at it, a link), as PBS's mom refuses a job file that is not its own."""
    if info.st_mode & 0o170000 != 0o100000:
        return "not a regular file"
    if info.st_uid != os.geteuid():
        return "owned by uid %d" % info.st_uid
    if info.st_mode & 0o022:
        return "writable by others (mode %o)" % (info.st_mode & 0o777)
    if info.st_nlink != 1:
        return "%d names" % info.st_nlink
    return ""


def read_bytes(path: Union[str, Path]) -> Optional[bytes]:
    """The content of the record ``path``, or None when it does not exist; UntrustedRecord
    when it is a link or fails :func:`untrusted`.  Plain ``os`` calls: the mom reads ~15
    records a job, and ``open()`` adds an fstat, an ioctl and an lseek to each."""
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a link
            raise UntrustedRecord("%s: a symbolic link" % name)
        raise
    try:
        problem = untrusted(os.fstat(fd))
        if problem:
            raise UntrustedRecord("%s: %s" % (name, problem))
        chunks: List[bytes] = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def append_line(path: Union[str, Path], line: bytes) -> None:
    """Append one newline-terminated record (fsynced before returning, when :data:`FSYNC`)."""
    fd = os.open(os.fspath(path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line if line.endswith(b"\n") else line + b"\n")
        if FSYNC:
            os.fsync(fd)
    finally:
        os.close(fd)
