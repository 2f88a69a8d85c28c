"""A hand-made client of the command runner (fake_pbs/runner/), for tests.

It speaks the runner's wire as ``fake_pbs/runner/runclient.c`` does, and can also send what
that client never would (wrong magic, missing descriptors, cut bodies), as a hostile user
could.  Run as a script (``python3 -S -m tests.runwire``, as another user) it reads a JSON list
of cases on stdin and prints one JSON answer per case; see :func:`main`.
"""
import json
import os
import socket
import struct
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

MAGIC = b"FPR1"


def body(argv: Sequence[str], env: Dict[str, str], mask: int = 0o022) -> bytes:
    """A well-formed request body (after the 8-byte header)."""
    strings = b"".join(os.fsencode(s) + b"\0" for s in list(argv)
                       + ["%s=%s" % item for item in env.items()])
    return struct.pack("=II", mask, len(argv)) + strings


def send(path: str, payload: bytes, fds: Sequence[int], magic: bytes = MAGIC,
         length: Optional[int] = None) -> socket.socket:
    """Connect to the runner at ``path`` and send ``payload`` with ``fds`` attached."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(30.0)
    conn.connect(path)
    header = magic + struct.pack("=I", len(payload) if length is None else length)
    ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("%di" % len(fds), *fds))]
    try:
        conn.sendmsg([header + payload], ancillary if fds else [])
    except (BrokenPipeError, ConnectionResetError):
        pass  # answered and closed before the request was read (refused): read the answer
    return conn


# Connections of ``keep`` cases: held open until the hand-made client exits.
KEPT: List[socket.socket] = []


def answers(conn: socket.socket, data: bytes = b"", keep: bool = False
            ) -> Tuple[str, int, Optional[int]]:
    """The runner's answer: (``P``/``X``/``B``/``""`` for none, pid or 0, wait status or None);
    ``data``: what was already read of it; ``keep``: hold the connection open afterwards, as
    a client that has not yet read its status (or hangs) does."""
    while True:
        if keep and len(data) >= 10:
            break
        try:
            chunk = conn.recv(64)
        except (socket.timeout, ConnectionResetError):  # reset: the runner closed with
            break                                       # request bytes left unread
        if not chunk:
            break
        data += chunk
    if keep:
        KEPT.append(conn)
    else:
        conn.close()
    if not data:
        return "", 0, None
    if data[:1] != b"P":
        return data[:1].decode(), 0, None
    pid = struct.unpack("=I", data[1:5])[0]
    status = struct.unpack("=i", data[6:10])[0] if data[5:6] == b"S" else None
    return "P", pid, status


def proc_ids(pid: int) -> Dict[str, List[int]]:
    """Uid, Gid and Groups of ``pid`` from /proc (empty when it is gone)."""
    found: Dict[str, List[int]] = {}
    try:
        with open("/proc/%d/status" % pid) as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key in ("Uid", "Gid", "Groups"):
                    found[key] = [int(v) for v in value.split()]
    except OSError:
        pass
    return found


def run_case(path: str, case: Dict[str, Any]) -> Dict[str, Any]:
    """One case: ``argv``, ``env``; optional ``magic``, ``length``, ``cut`` (bytes of the body
    kept), ``nfds`` (descriptors sent), ``raw`` (hex bytes sent instead of a body),
    ``hold`` (keep stdin open and report the child's /proc ids before letting it go),
    ``keep`` (hold the connection open after the status, until the client exits)."""
    read_end, write_end = os.pipe()
    out_r, out_w = os.pipe()
    cwd = os.open(".", os.O_RDONLY)
    fds = [read_end, out_w, out_w, cwd] + [cwd] * max(0, case.get("nfds", 4) - 4)
    fds = fds[:case.get("nfds", 4)]
    if "raw" in case:
        payload = bytes.fromhex(case["raw"])
    else:
        payload = body(case["argv"], case.get("env", {}), case.get("mask", 0o022))
        payload = payload[:case.get("cut", len(payload))]
    conn = send(path, payload, fds, case.get("magic", "FPR1").encode(), case.get("length"))
    for fd in (read_end, out_w, cwd):
        os.close(fd)
    ids: Dict[str, List[int]] = {}
    if case.get("hold"):
        first = conn.recv(5)
        pid = struct.unpack("=I", first[1:5])[0] if first[:1] == b"P" else 0
        for _ in range(200):  # until the child has dropped its identity (bounded: 10 s)
            ids = proc_ids(pid)
            if ids.get("Uid", [0])[0] != 0 or not ids:
                break
            time.sleep(0.05)
        os.write(write_end, case.get("stdin", "").encode())
        os.close(write_end)
        kind, pid, status = answers(conn, first, case.get("keep", False))
        result: Dict[str, Any] = {"kind": kind, "pid": pid, "status": status, "ids": ids}
    else:
        os.close(write_end)
        kind, pid, status = answers(conn, keep=case.get("keep", False))
        result = {"kind": kind, "pid": pid, "status": status}
    chunks = []
    while True:
        chunk = os.read(out_r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(out_r)
    result["output"] = b"".join(chunks).decode("utf-8", "replace")
    return result


def main() -> None:
    """stdin: ``{"socket": path, "cases": [...]}``; stdout: one JSON list of results (a case
    whose connection fails gives ``{"error": "<errno name>"}``)."""
    request = json.loads(sys.stdin.read())
    results = []
    for case in request["cases"]:
        try:
            results.append(run_case(request["socket"], case))
        except OSError as err:
            import errno
            results.append({"error": errno.errorcode.get(err.errno or 0, str(err))})
    print(json.dumps(results))


if __name__ == "__main__":
    main()
