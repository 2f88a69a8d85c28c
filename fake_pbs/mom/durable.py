"""Durable files: what the mom relies on after a crash is written atomically, or appended whole.

A ``kill -9`` of the mom, or of a shepherd, may come between any two instructions; readers therefore
see either the old or the new content of a record, never half of it (write tmp, rename).  What a
process wrote is in the kernel's page cache before it can die, so a daemon crash loses nothing.

``fsync`` would guard only against the machine itself crashing, when every job of the fake cluster
dies with it; on this project's machines it cost the mom and the shepherds ~2-3 ms of CPU per job
(ext4 flushes on a virtio disk: docs/performance.md).  ``FAKE_PBS_FSYNC=1`` in the environment of
``fake-pbs start`` (the daemons and the shepherds inherit it) restores it.
"""
from __future__ import annotations

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


def read_bytes(path: Union[str, Path]) -> Optional[bytes]:
    """The content of ``path``, or None when it does not exist.  Plain ``os`` calls: the mom
    reads ~15 records a job, and ``open()`` adds an fstat, an ioctl and an lseek to each."""
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
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
