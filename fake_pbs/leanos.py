"""The few :mod:`os` services a PBS command needs, from the built-in ``posix`` module.

Importing :mod:`os` costs a command about 1 ms of its ~12 ms (it builds ``_collections_abc``'s
abstract classes for ``os.environ``; docs/performance.md, "The command start-up path").  The
commands therefore take the environment, the working directory and path arithmetic from here.
Each function gives exactly what its :mod:`os` namesake gives (``tests/cli/test_leanos.py`` pins
them against :mod:`os` and :mod:`posixpath`).

In a process that has imported :mod:`os` (a daemon, a test) the environment is read from
``os.environ``, which ``putenv``/``monkeypatch.setenv`` keep current; a command never imports
:mod:`os`, so there the start-up snapshot in ``posix.environ`` is the same thing.
"""
from __future__ import annotations

import posix
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Mapping, Optional

_S_IFMT = 0o170000
_S_IFDIR = 0o040000
_S_IFREG = 0o100000

_snapshot: Optional[Dict[str, str]] = None

getcwd = posix.getcwd
uname = posix.uname
stat = posix.stat
_exit = posix._exit


def environ() -> Mapping[str, str]:
    """``os.environ``: the live one when :mod:`os` is loaded, else the start-up snapshot."""
    global _snapshot
    loaded = sys.modules.get("os")
    if loaded is not None:
        return loaded.environ  # type: ignore[no-any-return]
    if _snapshot is None:
        encoding = sys.getfilesystemencoding()  # os.environ decodes exactly so
        _snapshot = {key.decode(encoding, "surrogateescape"):
                     value.decode(encoding, "surrogateescape")
                     for key, value in posix.environ.items()}
    return _snapshot


def forget_environ() -> None:
    """Drop the start-up snapshot: the next :func:`environ` reads ``posix.environ`` again (a
    runner worker that has put the next caller's environment there)."""
    global _snapshot
    _snapshot = None


def getenv(name: str, default: Optional[str] = None) -> Optional[str]:
    """``os.environ.get(name, default)``."""
    return environ().get(name, default)


def join(first: str, *rest: str) -> str:
    """``os.path.join`` for strings."""
    path = first
    for part in rest:
        if part.startswith("/"):
            path = part
        elif not path or path.endswith("/"):
            path += part
        else:
            path += "/" + part
    return path


def _normpath(path: str) -> str:
    # posixpath.normpath's algorithm (Pythons before 3.11 have no posix._path_normpath)
    if not path:
        return "."
    slashes = 2 if path.startswith("//") and not path.startswith("///") else int(
        path.startswith("/"))
    kept: List[str] = []
    for comp in path.split("/"):
        if comp in ("", "."):
            continue
        if comp != ".." or (not slashes and not kept) or (kept and kept[-1] == ".."):
            kept.append(comp)
        elif kept:
            kept.pop()
    return ("/" * slashes + "/".join(kept)) or "."


def normpath(path: str) -> str:
    """``os.path.normpath`` for strings."""
    native = getattr(posix, "_path_normpath", None)
    if native is not None:
        return str(native(path)) or "."
    return _normpath(path)


def abspath(path: str) -> str:
    """``os.path.abspath`` for strings."""
    if not path.startswith("/"):
        path = join(posix.getcwd(), path)
    return normpath(path)


def expanduser(path: str) -> str:
    """``os.path.expanduser`` for strings: ``~`` from ``$HOME`` or the password database."""
    if not path.startswith("~"):
        return path
    cut = path.find("/", 1)
    if cut < 0:
        cut = len(path)
    import pwd  # built in: no file to load

    try:
        if cut == 1:
            home = getenv("HOME")
            if home is None:
                home = pwd.getpwuid(posix.getuid()).pw_dir
        else:
            home = pwd.getpwnam(path[1:cut]).pw_dir
    except KeyError:
        return path
    home = home.rstrip("/")
    return (home + path[cut:]) or "/"


def is_regular(mode: int) -> bool:
    """``stat.S_ISREG(mode)``."""
    return mode & _S_IFMT == _S_IFREG


def isdir(path: str) -> bool:
    """``os.path.isdir``."""
    try:
        return posix.stat(path).st_mode & _S_IFMT == _S_IFDIR
    except (OSError, ValueError):
        return False
