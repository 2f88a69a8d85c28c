"""The group I transcripts replayed as captured: ``I_driver.py`` under a pty, as pbsuser2, on a
root-started cluster (tests/data/fidelity/openpbs-23.06.06-resv, README "I").

Each case's command runs with the capture's environment (``cap.py``: no TERM, TZ=UTC,
LANG=C.UTF-8, cwd the user's home) and the driver beside the transcripts; its stdout, stderr
and exit code are compared byte for byte after the replay's normalization (job numbers, times,
used resources, pids) plus the pty's number.  Intended differences are listed in
tests/fidelity/known_differences.py (``INTERACTIVE_DIFFERENCES``) and normalized away here,
each by the rule named there.  The cases' timings are the capture's except I09's driver
timeout (30 s there, 4 s here: the output is the same, a shell prompt) and the queue's
kill_delay (1 s, so I06's shell that ignores SIGTERM dies in 1 s, not 10: no output shows it).

Also here: what a second user can do to someone's session (nothing), as ptyrelay promises.
"""
import difflib
import json
import os
import pwd
import re
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterator, Tuple

import pytest

from fake_pbs import paths
from fake_pbs.mom.ptyrelay import frame

from .. import public_tree
from ..fidelity.harness.normalize import mask
from ..fidelity.known_differences import INTERACTIVE_DIFFERENCES
from ..reliability.rig import BIN, USER_PYTHON, Rig, need_users, wait_for
from .ptydrive import PtySession

pytestmark = [pytest.mark.cluster, pytest.mark.root]

DATA = Path(__file__).resolve().parent.parent / "data" / "fidelity" / "openpbs-23.06.06-resv"
DRIVER = DATA / "I_driver.py"
SESSIONS = ("I01_session_exit3", "I05_I_with_command", "I06_qdel_running", "I08_session_env",
            "I09_I_and_script", "I10_I_walltime_expire")
RECORDS = {"I02_qstat_xf": "I01_session_exit3", "I07_qstat_xf_qdeled": "I06_qdel_running",
           "I11_qstat_xf_walltime": "I10_I_walltime_expire"}
SHORTER = {"I09_I_and_script": ("--timeout 30", "--timeout 4")}


@pytest.fixture(scope="module")
def rig() -> Iterator[Rig]:
    need_users()
    cluster = Rig(hosts=("vm:ncpus=2",))
    try:
        cluster.start()
        cluster.qmgr("set queue workq kill_delay = 1")
        yield cluster
    finally:
        cluster.close()


def _case(name: str) -> Dict[str, Any]:
    return dict(json.loads((DATA / (name + ".json")).read_text()))


def _cap_env(rig: Rig, user: str) -> Dict[str, str]:
    """cap.py's environment, with this cluster's commands first on PATH."""
    entry = pwd.getpwnam(user)
    return {"PATH": BIN + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": entry.pw_dir, "USER": user, "LOGNAME": user, "SHELL": "/bin/bash",
            "LANG": "C.UTF-8", "TZ": "UTC", "FAKE_PBS_HOME": str(rig.home),
            "FAKE_PBS_PYTHON": USER_PYTHON, "FAKE_PBS_AUTOSTART": "0"}


def _run_as(rig: Rig, user: str, command: str) -> "subprocess.CompletedProcess[bytes]":
    entry = pwd.getpwnam(user)
    return subprocess.run(["/bin/bash", "-c", command], cwd=entry.pw_dir,
                          env=_cap_env(rig, user), stdin=subprocess.DEVNULL,
                          capture_output=True, user=entry.pw_uid, group=entry.pw_gid,
                          extra_groups=[], timeout=120)


_JOBID = re.compile(r"\b\d+\.vm\b")


def _normal(text: str) -> str:
    """The replay's masks, then what this set adds: job numbers (one job per case), the
    pty's number, the walltime used when the mom saw it, vnode slot numbers, and qstat -f's
    wrapped lines joined (where Variable_List wraps depends on the length of the PATH the
    test gives the user, which holds the checkout's path; the values are masked anyway)."""
    text = mask(_JOBID.sub("<JOBID>", text))
    text = text.replace(",\n\t", ",")
    text = re.sub(r"/dev/pts/\d+", "/dev/pts/<N>", text)
    text = re.sub(r"(walltime )\d+( exceeded limit)", r"\1<USED>\2", text)
    text = re.sub(r"(exec_host = vm/)\d+", r"\1<SLOT>", text)
    for rule in INTERACTIVE_DIFFERENCES.values():
        text = re.sub(rule[0], rule[1], text)
    return text


_ran: Dict[str, str] = {}


def _replay(rig: Rig, name: str) -> Tuple[Dict[str, Any], Tuple[int, str, str]]:
    case = _case(name)
    command = case["command"].replace("python3 I_driver.py",
                                      "%s %s" % (USER_PYTHON, public_tree.reachable(DRIVER)))
    old, new = SHORTER.get(name, ("", ""))
    command = command.replace(old, new) if old else command
    if name == "I09_I_and_script":
        home = pwd.getpwnam(case["user"]).pw_dir
        _run_as(rig, case["user"], "printf '#!/bin/sh\\necho hello\\n' > %s/hello.sh" % home)
    try:
        done = _run_as(rig, case["user"], command)
    finally:
        if name == "I09_I_and_script":
            _run_as(rig, case["user"], "rm -f ~/hello.sh")
    stdout = done.stdout.decode("utf-8", "backslashreplace")
    found = _JOBID.search(stdout)
    if found:
        _ran[name] = found.group(0)
    return case, (done.returncode, stdout, done.stderr.decode("utf-8", "backslashreplace"))


def _compare(case: Dict[str, Any], got: Tuple[int, str, str]) -> None:
    want = (case["exit_code"], _normal(case["stdout"]), _normal(case["stderr"]))
    have = (got[0], _normal(got[1]), _normal(got[2]))
    diff = "".join(difflib.unified_diff(want[1].splitlines(True), have[1].splitlines(True),
                                        "transcript", "fake"))
    assert have == want, diff or repr(have)


@pytest.mark.parametrize("name", SESSIONS + ("I03_no_tty", "I04_X_no_display"))
def test_session_transcript(rig: Rig, name: str) -> None:
    """I01, I03, I04, I05, I06, I08, I09, I10 byte for byte (normalized)."""
    case, got = _replay(rig, name)
    _compare(case, got)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_record_after_session(rig: Rig, name: str) -> None:
    """I02, I07, I11: ``qstat -xf`` of the session's job once it is over."""
    session = RECORDS[name]
    if session not in _ran:
        _replay(rig, session)
    jobid = _ran[session]
    rig.wait(jobid, "F", 40)
    case = _case(name)
    done = _run_as(rig, case["user"], "qstat -xf %s" % jobid)
    _compare(case, (done.returncode, done.stdout.decode(), done.stderr.decode()))


def test_other_user_cannot_reach_the_session(rig: Rig) -> None:
    """ptyrelay: while pbsuser's held job waits for its qsub, pbsuser2 connecting to the
    session's socket is closed on without a byte; pbsuser2 cannot open the job's pty; the
    owner's qsub then attaches and runs the session."""
    entry = pwd.getpwnam("pbsuser")
    env = _cap_env(rig, "pbsuser")
    env["FAKE_PBS_RUNNER"] = "0"  # qsub is the pty's child itself, so SIGSTOP holds it
    session = PtySession(["qsub", "-I", "-h", "-l", "walltime=00:01:00"], env,
                         cwd=entry.pw_dir, user=entry.pw_uid, group=entry.pw_gid)
    try:
        found = session.expect(re.compile(rb"waiting for job (\S+) to start\r\n"), 30)
        jobid = found.group(1).decode()
        os.kill(session.pid, 19)  # SIGSTOP: qsub cannot attach while we knock
        rig.sh("qrls", jobid)
        rig.wait(jobid, "R", 30)
        sock = paths.interactive_socket_path(str(rig.home), jobid)
        wait_for(lambda: os.path.exists(sock), 20, "the session's socket did not appear")
        knock = ("import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.settimeout(10)\n"
                 "s.connect(sys.argv[1])\ntry:\n    s.sendall(bytes.fromhex(sys.argv[2]))\n"
                 "    print(repr(s.recv(100)))\nexcept (BrokenPipeError, ConnectionResetError):\n"
                 "    print(repr(b''))\n")
        frames = (frame(b"t", b"dumb") + frame(b"w", b"24,80,0,0")
                  + frame(b"d", b"id -un > /tmp/x\r")).hex()
        done = rig.run([USER_PYTHON, "-c", knock, sock, frames], user="pbsuser2")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "b''"
        pty = rig.job(jobid).get("Output_Path", "")
        assert re.fullmatch(r"/dev/pts/\d+", pty)
        peek = rig.run([USER_PYTHON, "-c", "open(%r, 'rb')" % pty], user="pbsuser2")
        assert "PermissionError" in peek.stderr
        os.kill(session.pid, 18)  # SIGCONT: the owner's qsub attaches
        ready = session.expect(re.compile(rb"job \S+ ready\r\n\r\n"), 30)
        session.expect("$ ", 15, start=ready.end())
        mark = len(session.output)
        session.send("id -un; exit\n")
        assert session.wait(30) == 0
        assert b"\r\npbsuser\r\nlogout\r\n" in session.output[mark:]
    finally:
        session.close()


def test_session_outlives_a_mom_restart(rig: Rig) -> None:
    """The session lives under the job's shepherd, not the mom (docs/design.md): a mom killed
    with -9 and started again leaves the session running; the restarted mom adopts the job and
    its end is recorded as for any job (Exit_status 0)."""
    entry = pwd.getpwnam("pbsuser2")
    session = PtySession(["qsub", "-I", "-l", "walltime=00:01:00"], _cap_env(rig, "pbsuser2"),
                         cwd=entry.pw_dir, user=entry.pw_uid, group=entry.pw_gid)
    try:
        ready = session.expect(re.compile(rb"job (\S+) ready\r\n\r\n"), 30)
        jobid = ready.group(1).decode()
        session.expect("$ ", 15, start=ready.end())
        rig.kill("mom", "vm")
        rig.restart_missing()
        mark = len(session.output)
        session.send("echo still $((20+22)); exit\n")
        assert session.wait(30) == 0
        assert b"still 42\r\nlogout\r\n" in session.output[mark:]
        attrs = rig.wait(jobid, "F", 40)
        assert attrs["Exit_status"] == "0"
    finally:
        session.close()
