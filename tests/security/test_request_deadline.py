"""A runner worker waits at most 10 s for a whole request (docs/security.md, "The command
runner"; fake_pbs/runner/worker.py ``read_request``).

The limit was applied to each read: a client that sent one byte every few seconds kept a
worker, and one of its user's 48 command slots, for as long as it liked.  The client here is
pbsuser, as a hostile local user would be.
"""
import json

from fake_pbs import paths
from ..reliability.rig import USER_PYTHON, Rig

_TRICKLE = r"""
import json, os, socket, struct, sys, time
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(sys.argv[1])
cwd = os.open("/tmp", os.O_RDONLY)
fds = struct.pack("4i", 0, 1, 2, cwd)
request = b"FPR1" + struct.pack("=I", 4000) + b"\0" * 4000
conn.sendmsg([request[:1]], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
conn.settimeout(0.5)
answer, sent, ended = b"", 1, False
deadline = time.monotonic() + 30  # three times the runner's whole-request limit
while time.monotonic() < deadline and sent < len(request):
    try:
        conn.send(request[sent:sent + 1])  # one byte every half second
        sent += 1
    except OSError:
        ended = True
        break
    try:
        data = conn.recv(64)
    except socket.timeout:
        continue
    if not data:
        ended = True
        break
    answer += data
    if b"S" in answer[5:]:
        ended = True
        break
print(json.dumps({"ended": ended, "answer": answer.hex()}))
"""


def test_a_trickling_client_does_not_hold_a_runner_worker(rig: Rig) -> None:
    """The 10 s request limit covers the whole request, not each read: pbsuser sending a
    byte every half second is dropped (status 126) long before it would finish."""
    sock = paths.runner_socket_path(str(rig.home))
    done = rig.run([USER_PYTHON, "-S", "-c", _TRICKLE, sock], user="pbsuser", cwd="/tmp")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["ended"], result
    answer = bytes.fromhex(result["answer"])
    assert answer[:1] == b"P" and answer[5:6] == b"S", answer
    assert int.from_bytes(answer[6:10], "little", signed=True) == 126 << 8
