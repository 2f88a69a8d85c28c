"""The command runner's trust rules (docs/security.md, "The command runner"; fake_pbs/runner/).

The runner is a process of the cluster that runs PBS commands for whoever connects to its
socket.  It must give nobody more than running the command themselves would: the caller is who
SO_PEERCRED says, a root-started runner's child becomes that caller (uid, gid, groups) before it
reads the request, a user-started runner serves its user only, and no request, however
malformed, stops it from serving the next.  Every request below is sent by a hand-made client
(tests/runwire.py) running as pbsuser, as a hostile local user would.
"""
import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fake_pbs import control, paths
from .. import public_tree
from ..reliability.rig import BIN, USER_PYTHON, Rig, need_users


def _wire(rig_env: Dict[str, str], sock: str, cases: List[Dict[str, Any]], user: str,
          cwd: str) -> List[Dict[str, Any]]:
    """Send ``cases`` to the runner at ``sock`` as ``user``; the hand-made client's answers."""
    entry = pwd.getpwnam(user)

    def become() -> None:
        os.initgroups(user, entry.pw_gid)
        os.setgid(entry.pw_gid)
        os.setuid(entry.pw_uid)
    env = dict(rig_env, PYTHONPATH=str(public_tree.root()))
    preexec = None if user == "root" else become
    done = subprocess.run([USER_PYTHON, "-S", "-m", "tests.runwire"],
                          input=json.dumps({"socket": sock, "cases": cases}), env=env, cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120, preexec_fn=preexec)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def _runner_pid(rig: Rig) -> int:
    return control._read_pids(rig.home)["runner"]


def test_the_command_runs_as_the_caller_whatever_the_request_claims(rig: Rig) -> None:
    """pbsuser's request claiming to be pbsuser2 or root (USER, LOGNAME, HOME, PBS_O_*) runs
    with pbsuser's uid, gid and groups only, and the job is pbsuser's (the server sees the
    child's peer credentials)."""
    need_users()
    user = pwd.getpwnam("pbsuser")
    groups = sorted(os.getgrouplist("pbsuser", user.pw_gid))
    work = "/tmp"
    claims = [{"USER": "pbsuser2", "LOGNAME": "pbsuser2", "HOME": "/home/pbsuser2"},
              {"USER": "root", "LOGNAME": "root", "HOME": "/root", "PBS_O_LOGNAME": "root"}]
    cases = [{"argv": ["qsub", "-N", "claim%d" % i],
              "env": dict(rig.env, **claim), "hold": True,
              "stdin": "#!/bin/sh\ntrue\n"} for i, claim in enumerate(claims)]
    sock = paths.runner_socket_path(str(rig.home))
    results = _wire(rig.env, sock, cases, "pbsuser", work)
    for result in results:
        assert result["kind"] == "P" and result["status"] == 0, result
        ids = result["ids"]
        assert ids["Uid"] == [user.pw_uid] * 4 and ids["Gid"] == [user.pw_gid] * 4, ids
        assert sorted(ids["Groups"]) == groups, ids
    jobs = rig.jobs()
    assert sorted(attrs["Job_Name"] for attrs in jobs.values()) == ["claim0", "claim1"]
    for attrs in jobs.values():
        assert attrs["Job_Owner"].split("@")[0] == "pbsuser"


def test_the_real_client_runs_commands_as_the_caller(rig: Rig) -> None:
    """Through fake_pbs/bin and the built client: pbsuser's qsub is pbsuser's job, and
    pbsuser may not delete root's."""
    need_users()
    assert (rig.home / "runclient").is_file()
    mine = rig.qsub("true", "-h", user="pbsuser")
    roots = rig.qsub("true", "-h")
    assert rig.jobs()[mine]["Job_Owner"].split("@")[0] == "pbsuser"
    done = rig.run(["qdel", roots], user="pbsuser")
    assert done.returncode != 0 and "Unauthorized Request" in done.stderr, done.stderr
    assert rig.jobs()[roots]["job_state"] == "H"


def test_a_worker_runs_one_callers_commands_only(rig: Rig) -> None:
    """The runner keeps a worker per caller identity and hands it further requests: pbsuser's
    commands, before and after pbsuser2's, run in pbsuser's worker (uid, gid and groups
    pbsuser's), pbsuser2's never in it."""
    need_users()
    sock = paths.runner_socket_path(str(rig.home))
    good = {"argv": ["qstat", "--version"], "env": rig.env, "hold": True}
    first = _wire(rig.env, sock, [good, good], "pbsuser", "/tmp")
    other = _wire(rig.env, sock, [good], "pbsuser2", "/tmp")[0]
    last = _wire(rig.env, sock, [good], "pbsuser", "/tmp")[0]
    for result, name in ((first[0], "pbsuser"), (first[1], "pbsuser"),
                         (other, "pbsuser2"), (last, "pbsuser")):
        assert (result["kind"], result["status"]) == ("P", 0), result
        entry = pwd.getpwnam(name)
        assert result["ids"]["Uid"] == [entry.pw_uid] * 4, (name, result)
        assert result["ids"]["Gid"] == [entry.pw_gid] * 4, (name, result)
    assert first[0]["pid"] == first[1]["pid"] == last["pid"]
    assert other["pid"] != first[0]["pid"]


def test_malformed_requests_end_only_their_own_child(rig: Rig) -> None:
    """Each malformed request ends its own child with 126 (or is dropped: a runner closing
    with request bytes unread resets the connection) and the runner serves the next request
    as before."""
    need_users()
    before = _runner_pid(rig)
    good = {"argv": ["qstat", "--version"], "env": rig.env}
    huge = 64 << 20
    bad: List[Dict[str, Any]] = [
        dict(good, magic="XXXX"),                         # wrong magic
        dict(good, nfds=0),                               # no descriptors
        dict(good, nfds=2),                               # too few
        dict(good, nfds=6),                               # too many
        dict(good, length=huge),                          # a body longer than allowed
        dict(good, length=4),                             # shorter than its fixed fields
        dict(good, cut=12),                               # a string cut short
        dict(good, cut=12, length=100),                   # a body that never comes (10 s)
        {"raw": "0000000000000000"},                      # argc 0
        {"raw": "12000000ffffffff" + "7173746174" + "00"},  # argc > strings, mask too big
        {"raw": "1200000001000000" + "7173746174"},       # string not NUL-terminated
        {"argv": ["../../../../usr/bin/id"], "env": {}},  # not a command
        {"argv": ["os"], "env": {}},
        {"argv": ["qstat"], "env": {}, "raw": "120000000100000071737461740000"},  # "" entry
        {"argv": ["qstat", "--version"], "env": {"": "x"}},  # "=x": no name
    ]
    sock = paths.runner_socket_path(str(rig.home))
    results = _wire(rig.env, sock, bad + [good], "pbsuser", "/tmp")
    for case, result in zip(bad, results):
        assert result.get("kind") in ("P", ""), (case, result)
        assert result.get("status") in (None, 126 << 8), (case, result)
        assert result.get("output", "") == "", (case, result)
    assert results[-1]["kind"] == "P" and results[-1]["status"] == 0, results[-1]
    assert results[-1]["output"] == "pbs_version = 23.06.06\n"
    assert _runner_pid(rig) == before and control._alive(before, rig.home)


@pytest.mark.cluster  # starts a runner of its own
def test_a_user_started_runner_serves_its_user_only() -> None:
    """A runner started by pbsuser refuses root (X) and pbsuser2 (cannot even connect, or X),
    and serves pbsuser."""
    need_users()
    owner = pwd.getpwnam("pbsuser")
    home = Path(tempfile.mkdtemp(prefix="fprun", dir="/tmp"))
    proc = None
    try:
        rundir = home / "run"
        rundir.mkdir(mode=0o700)
        for folder in (home, rundir):
            os.chown(str(folder), owner.pw_uid, owner.pw_gid)
        home.chmod(0o755)

        def become() -> None:
            os.initgroups("pbsuser", owner.pw_gid)
            os.setgid(owner.pw_gid)
            os.setuid(owner.pw_uid)
        env = dict(os.environ, PYTHONPATH=str(public_tree.root()), FAKE_PBS_HOME=str(home))
        proc = subprocess.Popen([USER_PYTHON, "-S", "-m", "fake_pbs.runner", "--home", str(home)],
                                env=env, cwd="/", preexec_fn=become, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sock = paths.runner_socket_path(str(home))
        deadline = time.monotonic() + 30
        while not os.path.exists(sock) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        good = {"argv": ["qstat", "--version"], "env": {"PATH": "/usr/bin:/bin"}}
        assert _wire(env, sock, [good], "root", "/tmp")[0]["kind"] == "X"
        other = _wire(env, sock, [good], "pbsuser2", "/tmp")[0]
        assert other.get("error") in ("EACCES", "ECONNREFUSED") or other["kind"] == "X", other
        served = _wire(env, sock, [good], "pbsuser", "/tmp")[0]
        assert (served["kind"], served["status"]) == ("P", 0), served
        assert served["output"] == "pbs_version = 23.06.06\n"
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        control.sweep(home)
        shutil.rmtree(str(home), ignore_errors=True)


def test_the_runner_socket_of_a_shared_cluster_is_the_only_open_door(rig: Rig) -> None:
    """Root's runner listens for everyone (mode 0666: SO_PEERCRED decides), in a run
    directory no one else may write; its client is root's and not writable by others."""
    need_users()
    sock = Path(paths.runner_socket_path(str(rig.home)))
    assert sock.stat().st_mode & 0o777 == 0o666 and sock.stat().st_uid == 0
    assert not sock.parent.stat().st_mode & 0o022
    client = rig.home / "runclient"
    assert client.stat().st_uid == 0 and not client.stat().st_mode & 0o022


def test_other_users_take_the_fast_path_only_through_a_trusted_client(rig: Rig) -> None:
    """pbsuser's commands on root's cluster go through root's client (no Python started);
    a client that others may write is not trusted and the Python path is taken, as the
    wrapper treats ``<home>/interpreter`` (docs/security.md)."""
    need_users()
    calls = rig.home / "python-calls"
    calls.write_text("")
    calls.chmod(0o666)
    shim = rig.home / "logging-python"
    shim.write_text('#!/bin/sh\necho "$2" >> %s\nexec %s "$@"\n' % (calls, USER_PYTHON))
    shim.chmod(0o755)
    entry = pwd.getpwnam("pbsuser")

    def become() -> None:
        os.initgroups("pbsuser", entry.pw_gid)
        os.setgid(entry.pw_gid)
        os.setuid(entry.pw_uid)

    def qstat() -> "subprocess.CompletedProcess[str]":
        return subprocess.run(["qstat", "-Q"], env=dict(rig.env, FAKE_PBS_PYTHON=str(shim)),
                              cwd="/tmp", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=60, preexec_fn=become)
    done = qstat()
    assert (done.returncode, done.stderr) == (0, "") and "workq" in done.stdout
    assert calls.read_text() == ""
    client = rig.home / "runclient"
    client.chmod(0o775)  # group-writable: someone else could have replaced it
    try:
        done = qstat()
    finally:
        client.chmod(0o755)
    assert (done.returncode, done.stderr) == (0, "") and "workq" in done.stdout
    assert calls.read_text().split() == ["%s/qstat" % BIN]
