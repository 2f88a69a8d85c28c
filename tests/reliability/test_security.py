"""Security (issue 6): private state, identity from peer credentials, no network port, users
kept apart (transcripts c08, d10g, k05m, k01f: ``Unauthorized Request``, exit 159), job shells
with their owner's privileges only."""
import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import List, Set

import pytest

from fake_pbs import control, paths

from .rig import BIN, USER_PYTHON, Rig, need_users, sweep, wait_for


def _socket_inodes(pid: int) -> Set[str]:
    inodes: Set[str] = set()
    fd_dir = "/proc/%d/fd" % pid
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    return inodes


def _network_inodes() -> Set[str]:
    inodes: Set[str] = set()
    for table in ("tcp", "tcp6", "udp", "udp6", "raw", "raw6"):
        try:
            with open("/proc/net/" + table) as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 9:
                inodes.add(fields[9])
    return inodes


def test_no_daemon_uses_a_network_socket(rig: Rig) -> None:
    """Daemons listen on Unix sockets only: none of their socket fds is in /proc/net/tcp*,
    udp* or raw* (checked with a job running, so the exec streams are open too)."""
    jobid = rig.qsub("sleep 1")
    rig.wait(jobid, "R")
    pids: List[int] = list(control._read_pids(rig.home).values())
    assert len(pids) == 4  # the server, two moms and the command runner
    owned: Set[str] = set()
    for pid in pids:
        owned |= _socket_inodes(pid)
    assert owned, "the daemons hold no socket at all?"
    assert not owned & _network_inodes()


@pytest.mark.root
def test_users_cannot_touch_each_others_jobs(rig: Rig) -> None:
    """pbsuser2 may not delete, alter, hold, signal, message or rerun pbsuser's job; the owner
    may."""
    need_users()
    jobid = rig.qsub("sleep 30", user="pbsuser")
    rig.wait(jobid, "R")
    for argv in (["qdel", jobid], ["qalter", "-N", "x", jobid], ["qhold", jobid],
                 ["qsig", "-s", "SIGSTOP", jobid], ["qmsg", "pwned", jobid], ["qrerun", jobid]):
        done = rig.run(argv, user="pbsuser2")
        assert done.returncode == 159, (argv, done.returncode, done.stderr)
        assert done.stderr == "%s: Unauthorized Request  %s\n" % (argv[0], jobid), done.stderr
    assert rig.job(jobid)["job_state"] == "R"
    assert rig.run(["qdel", jobid], user="pbsuser").returncode == 0
    rig.wait(jobid)


@pytest.mark.root
def test_only_managers_change_configuration(rig: Rig) -> None:
    """qmgr set by an ordinary user: ``Unauthorized Request``, 159 (d10g); nothing changes."""
    need_users()
    done = rig.run(["qmgr", "-c", "set server scheduling=false"], user="pbsuser")
    assert done.returncode == 159
    assert done.stderr == ("qmgr obj= svr=default: Unauthorized Request \n"
                           "qmgr: Error (15007) returned from server\n")
    assert dict(rig.call("statsvr")["attrs"])["scheduling"] == "True"


@pytest.mark.root
def test_job_shell_runs_as_its_owner(rig: Rig) -> None:
    """A root-run cluster starts each job shell as the job's owner, never as root."""
    need_users()
    out = rig.work / "ids"
    jobid = rig.qsub("id -u > %s; id -g >> %s" % (out, out), user="pbsuser")
    rig.wait(jobid)
    entry = pwd.getpwnam("pbsuser")
    assert out.read_text().split() == [str(entry.pw_uid), str(entry.pw_gid)]


@pytest.mark.root
def test_a_users_cluster_is_private() -> None:
    """A cluster started by an ordinary user: home and run directory 0700, sockets 0600, so
    no other user can even connect (DESIGN.md "Process model")."""
    need_users()
    entry = pwd.getpwnam("pbsuser")
    home = Path(tempfile.mkdtemp(prefix="fprelu", dir="/tmp"))
    os.chown(str(home), entry.pw_uid, entry.pw_gid)

    def as_user(*args: str) -> "subprocess.CompletedProcess[str]":
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
               "FAKE_PBS_HOME": str(home), "FAKE_PBS_PYTHON": USER_PYTHON}

        def become() -> None:
            os.setgid(entry.pw_gid)
            os.setgroups([])
            os.setuid(entry.pw_uid)
        return subprocess.run([USER_PYTHON, BIN + "/fake-pbs"] + list(args), env=env,
                              cwd=str(home), preexec_fn=become, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=90)
    try:
        done = as_user("start", "--server-name", "uvm", "--host", "u1:ncpus=1")
        assert done.returncode == 0, done.stderr
        run_dir = paths.run_dir(home)
        assert stat.S_IMODE(os.stat(str(home)).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(str(run_dir)).st_mode) == 0o700
        for sock in (paths.server_socket(home), paths.mom_socket(home, "u1")):
            info = os.stat(str(sock))
            assert stat.S_ISSOCK(info.st_mode) and info.st_uid == entry.pw_uid
            assert stat.S_IMODE(info.st_mode) == 0o600
        # Asked as its owner: root's own clients talk to no socket of another user's
        # (docs/security.md, "Trust model").
        wait_for(lambda: as_user("status").returncode == 0, 10, lambda: "no answer")
        assert as_user("stop").returncode == 0
    finally:
        sweep(home)
        shutil.rmtree(str(home), ignore_errors=True)
