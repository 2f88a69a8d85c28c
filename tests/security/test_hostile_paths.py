"""Fuzz-style: a hostile user points every job path at every file of the daemons (issue 21).

As ``pbsuser``, jobs aim ``-o``/``-e`` (kept with ``-k oed``, and spooled then delivered) at
every file and directory of ``mom_priv`` and ``server_priv``, at the record names a job
directory may hold (their own job's and another user's running job's), and at links to all of
them; ``-W sandbox=PRIVATE`` jobs find their sandbox name already a link into ``mom_priv``, or
swap it for one while they run.  None of those files becomes the user's, none changes, and
nothing of them reaches the user: OpenPBS's mom creates only its fixed spool names itself and
opens every other path as the owner (start_exec.c ``open_std_file``), copies output as the
owner (stage_func.c ``sys_copy``) and removes the sandbox as the owner (``rmjobdir``).

Stage-in and stage-out lists (``-W stagein``/``stageout``) are attacked in
tests/staging/test_staging_identity.py.
"""
import hashlib
import os
import pwd
import shutil
import stat
from pathlib import Path
from typing import Dict, List, Tuple

from ..reliability.rig import Rig, need_users, wait_for
from .owners import user_owned

SERVER = "secfuzz"  # its own job ids: the sandbox names in pbsuser's home clash with no rig's
SECRET = "root-only-canary-7f3a"
RECORD_NAMES = ("spec.json", "launch.json", "shepherd.json", "exit.json", "kill.json",
                "events.jsonl", "discard.json", "stageout.json", "hook_execjob_epilogue.json",
                "hook_execjob_end.json", "hook_execjob_end.start.json")


def _snapshot(home: Path) -> Dict[str, Tuple[int, int, str]]:
    """Owner, mode and (for root's files that do not change by themselves) content digest of
    every file of the daemons' private directories."""
    seen: Dict[str, Tuple[int, int, str]] = {}
    for top in ("mom_priv", "server_priv"):
        for root, dirs, files in os.walk(str(home / top)):
            for name in dirs + files:
                path = os.path.join(root, name)
                info = os.lstat(path)
                digest = ""
                if stat.S_ISREG(info.st_mode) and (name.endswith((".json", "canary"))):
                    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                seen[path] = (info.st_uid, stat.S_IMODE(info.st_mode), digest)
    return seen


def _as_user(rig: Rig, user: str, script: str) -> None:
    done = rig.run(["/bin/sh", "-c", script], user=user)
    assert done.returncode == 0, done.stderr


def _targets(rig: Rig, victim: str) -> List[str]:
    """Every file and directory of the daemons' private directories (a directory as ``dir/``,
    which a job's path turns into ``dir/<jobid>.OU``), and the record names the victim's job
    directory may hold."""
    found = []
    for top in ("mom_priv", "server_priv"):
        for root, dirs, files in os.walk(str(rig.home / top)):
            found += [os.path.join(root, d) + "/" for d in dirs]
            found += [os.path.join(root, f) for f in files]
    jobdir = rig.home / "mom_priv" / "n1" / "jobs" / victim
    found += [str(jobdir / name) for name in RECORD_NAMES]
    return sorted(set(found))


def test_hostile_paths_never_reach_the_daemons_files() -> None:
    need_users()
    rig = Rig(server_name=SERVER)
    sandboxes: List[Path] = []
    try:
        rig.start()
        _attack(rig, sandboxes)
    finally:
        rig.close()
        for path in sandboxes:
            if path.is_symlink():
                path.unlink()
            elif path.exists():
                shutil.rmtree(str(path), ignore_errors=True)


def _attack(rig: Rig, sandboxes: List[Path]) -> None:
    user = pwd.getpwnam("pbsuser")
    for canary in (rig.home / "mom_priv" / "n1" / "canary",
                   rig.home / "server_priv" / "canary"):
        canary.write_text(SECRET + "\n")
        canary.chmod(0o600)
    victim = rig.qsub("sleep 300", "-l", "select=host=n1", user="pbsuser2")
    rig.wait(victim, "R")
    targets = _targets(rig, victim)
    before = _snapshot(rig.home)
    place = rig.work / "pbsuser"
    _as_user(rig, "pbsuser", "mkdir %s" % place)
    links = [str(place / ("l%d" % i)) for i in range(len(targets))]
    making = ["ln -s '%s' '%s'" % (t.rstrip("/"), link) for t, link in zip(targets, links)]
    _as_user(rig, "pbsuser", "; ".join(making))
    links = [link + "/" if t.endswith("/") else link for t, link in zip(targets, links)]
    jobs: List[str] = []
    for paths in (targets, links):
        for i in range(0, len(paths), 2):
            pair = paths[i:i + 2] * (2 // len(paths[i:i + 2]))
            for keep in (("-k", "oed"), ()):
                jobs.append(rig.qsub("echo out; echo err >&2", *keep, "-o", pair[0],
                                     "-e", pair[1], user="pbsuser"))
    # Their own job directory's records, reachable only once the id is known (held, altered).
    for i in range(0, len(RECORD_NAMES), 2):
        jobid = rig.qsub("echo out", "-h", "-l", "select=host=n1", user="pbsuser")
        jobdir = rig.home / "mom_priv" / "n1" / "jobs" / jobid
        names = RECORD_NAMES[i:i + 2] * (2 // len(RECORD_NAMES[i:i + 2]))
        done = rig.run(["qalter", "-k", "oed", "-o", str(jobdir / names[0]), "-e",
                        str(jobdir / names[1]), jobid], user="pbsuser")
        assert done.returncode == 0, done.stderr
        jobs.append(jobid)
    # Sandboxes: one already a link into mom_priv, one swapped for a link while it runs.
    home = Path(user.pw_dir)
    jobdir_of_victim = rig.home / "mom_priv" / "n1" / "jobs" / victim
    linked = rig.qsub("pwd", "-h", "-W", "sandbox=PRIVATE", user="pbsuser")
    sandboxes.append(home / ("pbs.%s.x8z" % linked))
    _as_user(rig, "pbsuser", "ln -s '%s' '%s'" % (jobdir_of_victim, sandboxes[-1]))
    swapped = rig.qsub('cd /; rm -rf "$PBS_JOBDIR"; ln -s %s "$PBS_JOBDIR"' % jobdir_of_victim,
                       "-h", "-W", "sandbox=PRIVATE", user="pbsuser")
    sandboxes.append(home / ("pbs.%s.x8z" % swapped))
    jobs += [linked, swapped]
    held = [j for j in jobs if rig.job(j).get("job_state") == "H"]
    assert rig.run(["qrls"] + held, user="pbsuser").returncode == 0
    _settle(rig, jobs)
    after = _snapshot(rig.home)
    changed = {path: (before[path], after.get(path)) for path in before
               if path in after and after[path] != before[path]
               and not path.endswith(("events.jsonl", "shepherd.json"))
               and "/tmp/pbs." not in path}
    assert not changed, changed
    assert rig.job(victim).get("job_state") == "R", rig.job(victim)
    assert not _holding(SECRET, [place, home]), "root's file read for the user"
    rig.run(["qdel", victim], user="pbsuser2")
    rig.wait(victim, timeout=60)


def _holding(text: str, tops: List[Path]) -> List[str]:
    """The regular files under ``tops`` (links not followed) that contain ``text``."""
    found = []
    for top in tops:
        for root, _, files in os.walk(str(top)):
            for name in files:
                path = os.path.join(root, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                if text in Path(path).read_text(errors="replace"):
                    found.append(path)
    return found


def _settle(rig: Rig, jobs: List[str]) -> None:
    """Until every job has finished or failed a start twice (then deleted, as a user would),
    keep checking that no daemon file has become a test user's."""
    pending = set(jobs)

    def settled() -> bool:
        foreign = user_owned(rig.home)
        assert not foreign, "daemon files given to a user: %r" % foreign
        for jobid in sorted(pending):
            attrs = rig.job(jobid)
            if attrs.get("job_state") == "F":
                pending.discard(jobid)
            elif int(attrs.get("run_count", "0")) >= 2:
                rig.run(["qdel", jobid], user="pbsuser")
        return not pending
    wait_for(settled, 240, lambda: "jobs left: %r" % {
        j: rig.job(j).get("job_state") for j in sorted(pending)})
    assert not user_owned(rig.home)
    logs = rig.home / "mom_logs"
    assert not _holding("not trusted", [logs]), "a record was tampered with"
