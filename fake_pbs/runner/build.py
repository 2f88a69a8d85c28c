"""Build the command runner's client (``fake_pbs/runner/runclient.c``) into a cluster's home.

The runner calls :func:`build` as it starts: with a C compiler (``cc`` on PATH) it compiles the
client, with the runner's socket path and this tree's wrapper compiled in (the commands of
another checkout must run their own code), to ``<home>/runclient``, which
``fake_pbs/bin/fake-pbs`` then execs instead of Python (docs/performance.md).  The build is
cached by a hash of the source, the socket path and the compiler (``<home>/runclient.sha256``),
written to a temporary name and renamed into place (a command never sees half a binary), and
mode 0755: ``fake-pbs`` trusts the file only as it trusts ``<home>/interpreter`` (owned by the
user running the command, or by root and writable by no one else).  Without a compiler, or
when the build fails, there is no client and every command takes the Python path.
"""
import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

from fake_pbs import paths

SOURCE = Path(__file__).resolve().parent / "runclient.c"
# The commands' wrapper of this tree: only its commands are run by this tree's runner.
WRAPPER = Path(__file__).resolve().parent.parent / "bin" / "fake-pbs"
CLIENT_NAME = "runclient"
_BUILD_SECONDS = 60.0


def client_path(home: Path) -> Path:
    """Where ``fake_pbs/bin/fake-pbs`` looks for the client: ``<home>/runclient``."""
    return home / CLIENT_NAME


def _c_string(text: str) -> str:
    """``text`` as a C string literal of octal escapes (any byte, no quoting to get wrong)."""
    return '"%s"' % "".join("\\%03o" % byte for byte in os.fsencode(text))


def build(home: Path) -> Optional[Path]:
    """Compile the client for the cluster in ``home`` unless the same one is there; its path,
    or None (no compiler, a failed build: the commands then take the Python path)."""
    compiler = shutil.which("cc")
    target = client_path(home)
    stamp = home / (CLIENT_NAME + ".sha256")
    if compiler is None:
        _remove(target, stamp)  # a client left from an earlier start would be a stale one
        return None
    try:
        source = SOURCE.read_bytes()
    except OSError:
        return None
    defines = ["-DRUNNER_SOCKET=" + _c_string(paths.runner_socket_path(str(home))),
               "-DRUNNER_WRAPPER=" + _c_string(os.path.realpath(str(WRAPPER)))]
    parts = ([source, os.fsencode(os.path.realpath(compiler)), b"static, else dynamic"]
             + [d.encode() for d in defines])
    digest = hashlib.sha256(b"\0".join(parts)).hexdigest()
    try:
        if (stamp.read_text(encoding="ascii").strip() == digest and target.is_file()
                and not target.is_symlink()):
            return target
    except OSError:
        pass
    tmp = home / (".%s.%d.tmp" % (CLIENT_NAME, os.getpid()))
    try:
        # Linked statically where the C library allows it: no dynamic loader at each start
        # (~0.15 ms of a command's ~1.1 ms through the runner, measured 300 runs each).
        for link in (["-static"], []):
            done = subprocess.run([compiler, "-O2"] + link + ["-o", str(tmp)] + defines
                                  + [str(SOURCE)],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=_BUILD_SECONDS, cwd=str(home))
            if done.returncode == 0:
                break
        if done.returncode != 0:
            _remove(tmp, target, stamp)
            return None
        os.chmod(str(tmp), 0o755)
        os.replace(str(tmp), str(target))
        stamp_tmp = home / (".%s.sha256.%d.tmp" % (CLIENT_NAME, os.getpid()))
        stamp_tmp.write_text(digest + "\n", encoding="ascii")
        os.replace(str(stamp_tmp), str(stamp))
        return target
    except (OSError, subprocess.SubprocessError):
        _remove(tmp)
        return None


def _remove(*files: Path) -> None:
    for path in files:
        try:
            path.unlink()
        except OSError:
            pass
