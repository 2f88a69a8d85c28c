"""Compile a small C program or library into a cluster's home, once per source and compiler.

Used by the command runner's client (fake_pbs/runner/build.py) and the mom's host-name library
(fake_pbs/mom/hostnames.py).  Two caches, both keyed by digests the caller computes:

- in the home, ``<home>/<name>.sha256`` names what ``<home>/<name>`` was made from, so a start
  of the same cluster does nothing;
- per user, ``~/.cache/fake-pbs/build/<digest>`` keeps the compiler's output, so that a new
  cluster of the same user copies it instead of compiling again (a compile costs ~0.2 s of CPU;
  a test suite starts a few hundred clusters).  A caller whose file differs per cluster (the
  runner's socket path) compiles a generic one and passes ``fill``, which makes the home's file
  from it.

Files are written under a temporary name and renamed into place (no process ever sees half a
file); the home's file is mode 0755.  The user cache is trusted only as a cluster's home is
(docs/security.md): a directory of this process's user, mode 0700, under parents that only
root or this user may change; a cached file is used only when this user owns it and no one
else may write it.  Where no such directory can be had, every build compiles.
"""
import os
import pwd
import stat
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

BUILD_SECONDS = 60.0
OUTPUT = "{output}"  # stands for the temporary output file in a compiler command
# Cached outputs not used for this long are removed when a new one is stored.
CACHE_KEEP_SECONDS = 30 * 24 * 3600.0

Fill = Callable[[bytes], Optional[bytes]]


def build(home: Path, name: str, digest: str, attempts: Sequence[Sequence[str]],
          fill: Optional[Fill] = None, stamp: str = "") -> Tuple[bool, str]:
    """``<home>/<name>`` made, unless the one of ``stamp`` is there: (done, why not).

    ``digest`` names the compiler's output, made by the first of ``attempts`` (compiler
    commands, ``OUTPUT`` for the output file) that succeeds, or taken from the user cache.
    ``fill`` makes the home's file from that output (None: it cannot); ``stamp`` names the
    result (default ``digest``)."""
    stamp = stamp or digest
    target, stamp_file = home / name, home / (name + ".sha256")
    try:
        if (stamp_file.read_text(encoding="ascii").strip() == stamp and target.is_file()
                and not target.is_symlink()):
            return True, ""
    except OSError:
        pass
    compiled = cached(digest)
    if compiled is None:
        compiled, why = _compile(home, name, attempts)
        if compiled is None:
            remove(target, stamp_file)
            return False, why
        store(digest, compiled)
    content = fill(compiled) if fill else compiled
    if content is None:
        remove(target, stamp_file)
        return False, "the compiled %s has no place for this cluster's settings" % name
    try:
        _write(target, content, 0o755)
        _write(stamp_file, stamp.encode("ascii") + b"\n", 0o644)
    except OSError as exc:
        return False, str(exc)
    return True, ""


def _compile(home: Path, name: str,
             attempts: Sequence[Sequence[str]]) -> Tuple[Optional[bytes], str]:
    """The output of the first attempt that succeeds, compiled in ``home``, or (None, why)."""
    tmp = home / (".%s.%d.out.tmp" % (name, os.getpid()))
    why = "no compiler command"
    try:
        for attempt in attempts:
            done = subprocess.run([str(tmp) if word == OUTPUT else word for word in attempt],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=BUILD_SECONDS, cwd=str(home))
            if done.returncode == 0:
                with open(str(tmp), "rb") as handle:
                    return handle.read(), ""
            lines: List[str] = done.stderr.decode(errors="replace").strip().splitlines()
            why = lines[-1] if lines else "exit %d" % done.returncode
        return None, why
    except (OSError, subprocess.SubprocessError) as exc:
        return None, str(exc)
    finally:
        remove(tmp)


def _write(path: Path, content: bytes, mode: int) -> None:
    """``path`` replaced atomically by ``content`` with ``mode`` (whatever the umask)."""
    tmp = path.with_name(".%s.%d.%d.tmp" % (path.name, os.getpid(), threading.get_ident()))
    remove(tmp)
    try:
        fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        try:
            os.fchmod(fd, mode)
            view = memoryview(content)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(str(tmp), str(path))
    except OSError:
        remove(tmp)
        raise


# -- the user cache -------------------------------------------------------------------------------
def cache_dir() -> Optional[Path]:
    """This user's build cache, ``<home>/.cache/fake-pbs/build`` with the home directory of the
    password database (not ``$HOME``: under sudo that may be another user's), created mode 0700
    where missing; None when it cannot be made or is not to be trusted."""
    uid = os.geteuid()
    try:
        home = pwd.getpwuid(uid).pw_dir
    except KeyError:
        return None
    if not home or not os.path.isabs(home):
        return None
    folder = Path(home, ".cache", "fake-pbs", "build")
    if not _safe_parents(Path(home).parent, uid):
        return None
    current = Path(home)
    for part in (None, ".cache", "fake-pbs", "build"):
        if part is not None:
            current = current / part
            try:
                os.mkdir(str(current), 0o700)
            except FileExistsError:
                pass
            except OSError:
                return None
        if not _own_directory(current, uid, private=part is not None and part != ".cache"):
            return None
    return folder


def _safe_parents(path: Path, uid: int) -> bool:
    """Each ancestor is owned by root or ``uid`` and writable by no one else unless sticky."""
    for folder in [path] + list(path.parents):
        try:
            info = os.stat(str(folder))
        except OSError:
            return False
        if info.st_uid not in (0, uid):
            return False
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            return False
    return True


def _own_directory(path: Path, uid: int, private: bool) -> bool:
    """A directory (not a link) of ``uid`` (root's too, for the home), writable by no one else;
    no access for anyone else when ``private``."""
    try:
        info = os.lstat(str(path))
    except OSError:
        return False
    owners = (uid,) if private else (uid, 0)
    forbidden = 0o077 if private else 0o022
    return (stat.S_ISDIR(info.st_mode) and info.st_uid in owners
            and not info.st_mode & forbidden)


def cached(digest: str) -> Optional[bytes]:
    """The cached output named ``digest``, when this user's cache has one it may trust."""
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / digest
    try:
        fd = os.open(str(path), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid()
                or info.st_mode & 0o022):
            return None
        chunks: List[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        os.utime(fd)  # in use: kept by the pruning below
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def store(digest: str, content: bytes) -> None:
    """Keep ``content`` as ``digest`` in this user's cache (best effort), and remove outputs
    unused for :data:`CACHE_KEEP_SECONDS` (a source or compiler changed since)."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        _write(folder / digest, content, 0o600)
    except OSError:
        return
    too_old = time.time() - CACHE_KEEP_SECONDS
    try:
        entries = list(os.scandir(str(folder)))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=False) and entry.stat(
                    follow_symlinks=False).st_mtime < too_old:
                os.unlink(entry.path)
        except OSError:
            pass


def remove(*files: Path) -> None:
    for path in files:
        try:
            path.unlink()
        except OSError:
            pass
