"""qsub -I's checks before it submits, and the relay's wire: no cluster needed.

OpenPBS: src/cmds/qsub.c (interactive_port, process_opts' -I/-X/-J/-W block cases),
src/cmds/qsub_sup.c (settermraw, writer's ``~.``); transcripts I03 and I04
(tests/data/fidelity/openpbs-23.06.06-resv).
"""
import os
import subprocess
import termios
from pathlib import Path
from typing import Any, Dict, List, Tuple

from fake_pbs import paths
from fake_pbs.cli import qsub_interactive
from fake_pbs.cli.qsub import USAGE
from fake_pbs.cli.qsub_options import X11_UNSUPPORTED
from fake_pbs.mom import ptyrelay

from .ptydrive import PtySession

QSUB = str(paths.bin_dir() / "qsub")


def _env(tmp_path: Path) -> Dict[str, str]:
    """No cluster: every case here ends before qsub would talk to a server."""
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    env.update(FAKE_PBS_HOME=str(tmp_path / "none"), FAKE_PBS_AUTOSTART="0")
    return env


def _pty_run(argv: List[str], env: Dict[str, str]) -> PtySession:
    session = PtySession(argv, env)
    try:
        session.wait(30)
    finally:
        session.close()
    return session


def test_no_terminal_is_pbs_message_rc1(tmp_path: Path) -> None:
    """I03 (qsub.c interactive_port): stdin not a terminal -> two tabbed lines, rc 1."""
    done = subprocess.run([QSUB, "-I", "-l", "walltime=00:01:00"], stdin=subprocess.DEVNULL,
                          capture_output=True, env=_env(tmp_path), timeout=60)
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr == (b"qsub:\tstandard input and output must be a terminal for\n"
                           b"\tinteractive job submission\n")


def test_X_without_display_is_usage_rc2(tmp_path: Path) -> None:
    """I04 (qsub.c case 'X'): under a terminal, no DISPLAY -> message and usage, rc 2."""
    session = _pty_run([QSUB, "-I", "-X", "-l", "walltime=00:01:00"], _env(tmp_path))
    assert session.returncode == 2
    expected = "qsub: DISPLAY not set\n" + USAGE
    assert session.output == expected.replace("\n", "\r\n").encode()


def test_X_with_display_is_refused(tmp_path: Path) -> None:
    """X11 forwarding is not implemented: refused with a clear message (differences.md),
    never accepted and ignored."""
    env = dict(_env(tmp_path), DISPLAY=":0")
    session = _pty_run([QSUB, "-I", "-X", "--", "/bin/true"], env)
    assert session.returncode == 1
    assert session.output == (X11_UNSUPPORTED + "\r\n").encode()


def test_X_without_I_is_refused(tmp_path: Path) -> None:
    """qsub.c: -X on the command line without -I -> 'X11 Forwarding possible only for
    interactive jobs', rc 1."""
    env = dict(_env(tmp_path), DISPLAY=":0")
    done = subprocess.run([QSUB, "-X", "--", "/bin/true"], stdin=subprocess.DEVNULL,
                          capture_output=True, env=env, timeout=60)
    assert (done.returncode, done.stderr) == (
        1, b"qsub: X11 Forwarding possible only for interactive jobs\n")


def test_I_with_J_is_usage_rc2(tmp_path: Path) -> None:
    """qsub.c case 'I'/'J': INTER_ARRAY, then usage, rc 2 (either order)."""
    for argv in (["-I", "-J", "1-2"], ["-J", "1-2", "-I"]):
        session = _pty_run([QSUB] + argv + ["--", "/bin/true"], _env(tmp_path))
        assert session.returncode == 2
        expected = ("qsub: interactive and array job submission cannot be used together\n"
                    + USAGE)
        assert session.output == expected.replace("\n", "\r\n").encode()


def test_frames_cut_at_any_boundary() -> None:
    """The qsub -> shepherd frames (ptyrelay) survive any split of the stream."""
    stream = (ptyrelay.frame(b"t", b"xterm") + ptyrelay.frame(b"w", b"24,80,0,0")
              + ptyrelay.frame(b"d", b"echo hi\r"))
    for cut in range(len(stream) + 1):
        reader = ptyrelay.FrameReader()
        got = reader.feed(stream[:cut]) + reader.feed(stream[cut:])
        assert got == [(b"t", b"xterm"), (b"w", b"24,80,0,0"), (b"d", b"echo hi\r")]
    assert ptyrelay.winsize_bytes(b"24,80,0,0") is not None
    assert ptyrelay.winsize_bytes(b"24,80") is None
    assert ptyrelay.winsize_bytes(b"a,b,c,d") is None


def test_tilde_dot_leaves_only_at_line_start() -> None:
    """qsub_sup.c writer(): ``~.`` at the start of a line ends the session; a tilde
    elsewhere, or followed by another character, is sent."""
    saved = termios.tcgetattr(0) if os.isatty(0) else None
    chars = saved[6] if saved else [b"\x00"] * 32
    if not saved:
        chars[termios.VKILL], chars[termios.VINTR] = b"\x15", b"\x03"
    keys = qsub_interactive._Keys([0, 0, 0, 0, 0, 0, chars])
    assert keys.feed(b"echo a~.b\r") == b"echo a~.b\r"
    assert keys.feed(b"~x") == b"~x"
    assert keys.feed(b"\r~") == b"\r"
    assert keys.feed(b".") is None


def test_relay_alone_takes_keys_sent_with_the_handshake(tmp_path: Path) -> None:
    """ptyrelay.Session without a cluster: the job id first, TERM and the window size reach
    the job's terminal before its program runs, and keys sent in the same write as the
    handshake are not lost; the stream ends when the program does (its status: exit 0)."""
    import socket
    import threading

    path = str(tmp_path / "s.sock")
    launch: Dict[str, Any] = {"jobid": "7.vm", "uid": os.getuid(), "gid": os.getgid(),
                              "drop_privileges": False, "interactive": {"socket": path}}
    session = ptyrelay.Session(launch)
    child = os.fork()
    if child == 0:  # the job: what the shepherd's child does, with a small program
        try:
            slave, term = session.child_wait()
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.execve("/bin/sh", ["sh", "-c", 'echo "T=$TERM"; stty size; read x; '
                                  'echo "got $x"'], {"TERM": term, "PATH": "/usr/bin:/bin"})
        finally:
            os._exit(127)
    result: List[Tuple[int, Any]] = []
    relay = threading.Thread(target=lambda: result.append(session.run(child)))
    relay.start()
    try:
        conn = socket.socket(socket.AF_UNIX)
        conn.settimeout(20)
        conn.connect(path)
        conn.sendall(ptyrelay.frame(b"t", b"vt100") + ptyrelay.frame(b"w", b"7,33,0,0")
                     + ptyrelay.frame(b"d", b"hello\r"))
        data = b""
        while True:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
        conn.close()
    finally:
        relay.join(30)
    assert data.startswith(b"7.vm\n")
    text = data.decode()
    assert "T=vt100\r\n" in text and "7 33\r\n" in text and "got hello\r\n" in text
    status, _ = result[0]
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert not os.path.exists(path)
