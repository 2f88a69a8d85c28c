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
from pathlib import Path
from typing import Optional

from fake_pbs import cbuild, paths

SOURCE = Path(__file__).resolve().parent / "runclient.c"
# The commands' wrapper of this tree: only its commands are run by this tree's runner.
WRAPPER = Path(__file__).resolve().parent.parent / "bin" / "fake-pbs"
CLIENT_NAME = "runclient"


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
    if compiler is None:
        # a client left from an earlier start would be a stale one
        cbuild.remove(target, home / (CLIENT_NAME + ".sha256"))
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
    # Linked statically where the C library allows it: no dynamic loader at each start
    # (~0.15 ms of a command's ~1.1 ms through the runner, measured 300 runs each).
    attempts = [[compiler, "-O2"] + link + ["-o", cbuild.OUTPUT] + defines + [str(SOURCE)]
                for link in (["-static"], [])]
    done, _ = cbuild.build(home, CLIENT_NAME, digest, attempts)
    return target if done else None
