"""Durable files: what the mom relies on after a crash is written atomically or appended with fsync.

A ``kill -9`` of the mom, or of a shepherd, may come between any two instructions; readers therefore
see either the old or the new content of a record, never half of it (write tmp, fsync, rename).
"""
import json
import os
from pathlib import Path
from typing import Any, Dict, Optional


def fsync_dir(path: Path) -> None:
    """Make a rename or a new entry in ``path`` durable."""
    fd = os.open(str(path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace ``path`` by ``data`` atomically and durably."""
    tmp = path.with_name(".%s.tmp%d" % (path.name, os.getpid()))
    fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(str(tmp), str(path))
    fsync_dir(path.parent)


def write_json(path: Path, value: Any, mode: int = 0o600) -> None:
    write_atomic(path, json.dumps(value, sort_keys=True).encode("utf-8", "surrogateescape"), mode)


def read_json(path: Path) -> Optional[Dict[str, Any]]:
    """The JSON object stored in ``path``, or None when it does not exist (yet)."""
    try:
        with open(str(path), "rb") as handle:
            value = json.loads(handle.read().decode("utf-8", "surrogateescape"))
    except FileNotFoundError:
        return None
    return value if isinstance(value, dict) else None


def append_line(path: Path, line: bytes) -> None:
    """Append one newline-terminated record and fsync it before returning."""
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line if line.endswith(b"\n") else line + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
