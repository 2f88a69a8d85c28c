"""Staging in a root-started cluster is done with the job owner's identity (requests.c
``req_cpyfile`` forks to the user, fork_to_user, before any copy; docs/security.md): a user
who names another user's or root's file in a stagein/stageout list gets PBS's failure (the
stage-in: W, substate 37; the stage-out: Stageout_status 0), never the file, and no file of
theirs is written, linked through or removed."""
import os
import pwd
from pathlib import Path
from typing import Tuple

from ..reliability.rig import Rig, need_users

SECRET = "pbsuser2-secret-51c2"


def test_staging_never_reaches_another_users_or_roots_files() -> None:
    need_users()
    rig = Rig(hosts=("n1:ncpus=4",), server_name="stgsec")
    other_home = Path(pwd.getpwnam("pbsuser2").pw_dir)
    secret = other_home / "stg-secret"
    kept = other_home / "stg-kept"
    rootfile = rig.home / "root-canary"
    made = [secret, kept]
    try:
        rig.start()
        for path in (secret, kept):
            path.write_text(SECRET + "\n")
            os.chown(str(path), *_ids("pbsuser2"))
            path.chmod(0o600)
        rootfile.write_text("root\n")
        rootfile.chmod(0o644)
        place = rig.work / "stg"
        done = rig.run(["/bin/sh", "-c", "mkdir %s && echo mine > %s/mine && ln -s %s %s/link"
                        % (place, place, rootfile, place)], user="pbsuser")
        assert done.returncode == 0, done.stderr
        stolen = rig.qsub("true", "-W", "stagein=%s/got@n1:%s" % (place, secret),
                          user="pbsuser")
        through_link = rig.qsub("true", "-W", "stagein=%s/link@n1:%s/mine" % (place, place),
                                user="pbsuser")
        overwrite = rig.qsub("echo x > %s/mine" % place,
                             "-W", "stageout=%s/mine@n1:%s" % (place, kept), user="pbsuser")
        remove = rig.qsub("true", "-W", "stageout=%s@n1:%s/taken" % (kept, place),
                          user="pbsuser")
        for jobid in (stolen, through_link):
            attrs = rig.wait(jobid, states="W", started=False)
            assert attrs["substate"] == "37", attrs
        for jobid in (overwrite, remove):
            assert rig.wait(jobid)["Stageout_status"] == "0"
        assert not (place / "got").exists() and not (place / "taken").exists()
        assert secret.read_text() == kept.read_text() == SECRET + "\n"
        assert rootfile.read_text() == "root\n"
        assert (place / "mine").read_text() == "x\n"  # kept: its stage-out failed
    finally:
        rig.close()
        for path in made:
            if path.exists():
                path.unlink()


def _ids(user: str) -> Tuple[int, int]:
    entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid
