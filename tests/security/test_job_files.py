"""Files a job produces are created and written with its owner's identity (issue 10).

PBS's mom opens a job's output as the user when the file is kept in the user's space (``-k``,
sandbox) and creates spool files so that no link is followed (OpenPBS ``open_std_file``); the
walltime message is appended to the job's stderr file the same way.  A root mom that opened such
paths itself would let any user append to, or take ownership of, any file on the machine.
"""
import os
import pwd
import stat
from typing import List
from pathlib import Path

from ..reliability.rig import Rig, wait_for


def _victim(rig: Rig, name: str) -> Path:
    """A root-owned file that pbsuser may read but not write: the target of the attacks."""
    path = rig.home / name
    path.write_text("root's data\n")
    path.chmod(0o644)
    return path


def _user_dir(rig: Rig, user: str) -> Path:
    entry = pwd.getpwnam(user)
    path = rig.work / user
    path.mkdir()
    os.chown(str(path), entry.pw_uid, entry.pw_gid)
    return path


def test_direct_output_is_opened_as_the_owner(rig: Rig) -> None:
    """``-k od -o <root's file>``: the job's output goes straight to the path, opened as the
    owner, so a file the owner cannot write is neither appended to nor given away.  As in PBS
    (start_exec.c: "Unable to open standard output/error", JOB_EXEC_RETRY) the start fails and
    is retried; the test deletes the job after the first retry."""
    victim = _victim(rig, "victim-o")
    jobid = rig.qsub("echo pwned", "-k", "od", "-o", str(victim), user="pbsuser")
    wait_for(lambda: int(rig.job(jobid).get("run_count", "0")) >= 2, 60,
             lambda: "no retried start: %r" % rig.job(jobid))
    # Each failed start passes through E, where qdel is refused (168, PBS's "Request invalid
    # for state of job" too): the owner asks again, as a user would.
    deleted: List[int] = []

    def delete() -> bool:
        deleted.append(rig.run(["qdel", jobid], user="pbsuser").returncode)
        return deleted[-1] == 0 or rig.job(jobid).get("job_state") == "F"
    wait_for(delete, 30, lambda: "qdel kept failing: %r" % deleted)
    assert set(deleted) <= {0, 168}
    rig.wait(jobid)
    info = os.stat(str(victim))
    assert victim.read_text() == "root's data\n"
    assert info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o644


def test_direct_output_belongs_to_the_owner(rig: Rig) -> None:
    """The same with a path the owner may write: the file is created as the owner, with the
    job's umask (PBS: created as the user, mode 0666 less umask)."""
    place = _user_dir(rig, "pbsuser")
    jobid = rig.qsub("echo hello", "-k", "od", "-W", "umask=022", "-o",
                     str(place / "out"), user="pbsuser")
    rig.wait(jobid)
    info = os.stat(str(place / "out"))
    assert info.st_uid == pwd.getpwnam("pbsuser").pw_uid
    assert stat.S_IMODE(info.st_mode) == 0o644
    assert (place / "out").read_text() == "hello\n"


def test_walltime_message_is_written_as_the_owner(rig: Rig) -> None:
    """The walltime message goes to the job's stderr file with the owner's identity: a job that
    swaps its kept stderr file for a link to root's file gets nothing written there."""
    victim = _victim(rig, "victim-e")
    place = _user_dir(rig, "pbsuser")
    err = place / "err"
    body = "rm -f %s; ln -s %s %s; sleep 60" % (err, victim, err)
    jobid = rig.qsub(body, "-k", "ed", "-e", str(err), "-l", "walltime=00:00:02",
                     user="pbsuser")
    attrs = rig.wait(jobid, timeout=60)
    assert attrs.get("Exit_status") == "-29", attrs  # JOB_EXEC_KILL_WALLTIME
    assert victim.read_text() == "root's data\n"
    assert os.stat(str(victim)).st_uid == 0


def test_sandbox_is_made_by_the_owner(rig: Rig) -> None:
    """``-W sandbox=PRIVATE``: the job directory is created by the owner (PBS makes it as the
    user), so it is theirs, 0700, and the job runs in it."""
    entry = pwd.getpwnam("pbsuser")
    out = _user_dir(rig, "pbsuser") / "where"
    jobid = rig.qsub('pwd > %s; stat -c "%%u %%a" . >> %s' % (out, out), "-W",
                     "sandbox=PRIVATE", user="pbsuser")
    rig.wait(jobid)
    where, owner = out.read_text().splitlines()
    assert where.startswith(os.path.join(entry.pw_dir, "pbs.%s." % jobid)), where
    assert owner == "%d 700" % entry.pw_uid
    wait_for(lambda: not os.path.exists(where), 10, lambda: "sandbox %s kept" % where)


def test_spool_files_belong_to_the_owner(rig: Rig) -> None:
    """While the job runs its spooled stdout is the owner's, a regular file in the root-owned
    job directory (never reached through a link)."""
    jobid = rig.qsub("echo x; sleep 30", user="pbsuser")
    rig.wait(jobid, "R")
    spool = next(rig.home.glob("mom_priv/*/jobs/%s/%s.OU" % (jobid, jobid)))
    info = os.lstat(str(spool))
    assert stat.S_ISREG(info.st_mode) and info.st_uid == pwd.getpwnam("pbsuser").pw_uid
    assert os.stat(str(spool.parent)).st_uid == 0
    rig.run(["qdel", jobid], user="pbsuser")
    rig.wait(jobid)


def test_undelivered_output_is_the_owners_to_fetch(rig: Rig) -> None:
    """An output file the mom cannot deliver is moved into undelivered/, a sticky directory
    every user may enter (PBS: mode 1777, pbs_postinstall), and stays its owner's, mode 0600
    (extra i05v: ``-rw------- pbsuser pbsuser 336.vm.ER``; stage_func.c renames the spool
    file): the owner reads it, another user cannot."""
    place = _user_dir(rig, "pbsuser")
    jobid = rig.qsub("echo kept-for-me >&2", "-e", str(place / "missing" / "e.err"),
                     user="pbsuser")
    rig.wait(jobid)
    kept = next(rig.home.glob("mom_priv/*/undelivered/%s.ER" % jobid))
    directory = os.stat(str(kept.parent))
    assert directory.st_uid == 0 and stat.S_IMODE(directory.st_mode) == 0o1777
    info = os.lstat(str(kept))
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert info.st_uid == pwd.getpwnam("pbsuser").pw_uid
    mine = rig.run(["cat", str(kept)], user="pbsuser")
    assert (mine.returncode, mine.stdout) == (0, "kept-for-me\n"), mine.stderr
    theirs = rig.run(["cat", str(kept)], user="pbsuser2")
    assert theirs.returncode != 0 and "Permission denied" in theirs.stderr


def test_remove_files_unlinks_as_the_owner(rig: Rig) -> None:
    """``-R o`` after a job that wrote straight (``-k od``) to a root-owned file anyone may
    write, in a sticky directory: the mom's purge unlinks as the owner, who may not remove
    another's file there (PBS's mom purges as the user), so the file stays root's."""
    shared = rig.work / "sticky"
    shared.mkdir()
    shared.chmod(0o1777)
    target = shared / "roots-file"
    target.write_text("")
    target.chmod(0o666)
    jobid = rig.qsub("echo hello", "-k", "od", "-R", "o", "-o", str(target), user="pbsuser")
    rig.wait(jobid)
    assert rig.job(jobid)["Exit_status"] == "0"
    assert target.exists() and os.stat(str(target)).st_uid == 0
    assert target.read_text() == "hello\n"
