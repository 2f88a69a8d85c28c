"""Build the command runner's client (``fake_pbs/runner/runclient.c``) into a cluster's home.

The runner calls :func:`build` as it starts: with a C compiler (``cc`` on PATH) it makes
``<home>/runclient``, which ``fake_pbs/bin/fake-pbs`` then execs instead of Python
(docs/performance.md).  The client is compiled with this tree's wrapper in it (the commands of
another checkout must run their own code) and a slot for the runner's socket path, which is
written into each cluster's copy: one compile, kept in the user's build cache
(fake_pbs/cbuild.py), serves every cluster of the same source, compiler and tree.  The home's
copy is named by a hash of those and the socket path (``<home>/runclient.sha256``), written to
a temporary name and renamed into place (a command never sees half a binary), and mode 0755:
``fake-pbs`` trusts the file only as it trusts ``<home>/interpreter`` (owned by the user
running the command, or by root and writable by no one else).  Without a compiler, or when
the build fails, there is no client and every command takes the Python path.
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
# The client's socket slot (runclient.c's runner_socket): as compiled it starts with this mark,
# then zeros; each cluster's copy holds its socket path there instead, NUL-padded.
SLOT_MARK = b"fake-pbs: the command runner's socket path goes here"
SLOT_SIZE = 108  # sizeof(struct sockaddr_un.sun_path) on Linux


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
    socket = os.fsencode(paths.runner_socket_path(str(home)))
    defines = ["-DRUNNER_SOCKET_SLOT=" + _c_string(os.fsdecode(SLOT_MARK)),
               "-DRUNNER_WRAPPER=" + _c_string(os.path.realpath(str(WRAPPER)))]
    parts = ([source, os.fsencode(os.path.realpath(compiler)), b"static, else dynamic"]
             + [d.encode() for d in defines])
    digest = hashlib.sha256(b"\0".join(parts)).hexdigest()
    stamp = hashlib.sha256(digest.encode("ascii") + b"\0" + socket).hexdigest()
    # Linked statically where the C library allows it: no dynamic loader at each start
    # (~0.15 ms of a command's ~1.1 ms through the runner, measured 300 runs each).
    attempts = [[compiler, "-O2"] + link + ["-o", cbuild.OUTPUT] + defines + [str(SOURCE)]
                for link in (["-static"], [])]
    done, _ = cbuild.build(home, CLIENT_NAME, digest, attempts,
                           fill=lambda client: fill_socket(client, socket), stamp=stamp)
    return target if done else None


def fill_socket(client: bytes, socket: bytes) -> Optional[bytes]:
    """The compiled ``client`` with ``socket`` in its slot; None unless the slot is there once,
    as compiled (the mark, then zeros), and the path fits with its NUL."""
    at = client.find(SLOT_MARK)
    if at < 0 or client.find(SLOT_MARK, at + 1) >= 0 or len(socket) >= SLOT_SIZE:
        return None
    slot = client[at:at + SLOT_SIZE]
    if len(slot) != SLOT_SIZE or slot[len(SLOT_MARK):].strip(b"\0"):
        return None
    return client[:at] + socket.ljust(SLOT_SIZE, b"\0") + client[at + SLOT_SIZE:]
