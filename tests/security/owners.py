"""Which files of a cluster's own directories a job's user has come to own (issue 21)."""
import os
import pwd
import re
from pathlib import Path
from typing import List

USERS = ("pbsuser", "pbsuser2")
_JOB_FILE = re.compile(r"^(?P<id>.+)\.(OU|ER|SC)$")
# A discarded run's job directory while the mom deletes it (fake_pbs/mom/layout.py): the same
# files, under ``.gone-<jobid>-<pid>``.
_GONE_DIR = re.compile(r"^\.gone-(?P<id>.+)-\d+$")


def user_owned(home: Path) -> List[str]:
    """Files of the cluster (outside the shared ``work`` area) that a test user owns, apart
    from what the mom gives a job's owner, as PBS's does: the job's spool files and script in
    its own job directory (or in that directory of a discarded run while it is deleted), its
    TMPDIR, its output kept in ``undelivered/``."""
    uids = {pwd.getpwnam(name).pw_uid for name in USERS}
    found = []
    for root, dirs, files in os.walk(str(home)):
        if root == str(home):
            dirs[:] = [d for d in dirs if d != "work"]
        for name in dirs + files:
            path = os.path.join(root, name)
            try:
                uid = os.lstat(path).st_uid
            except FileNotFoundError:
                continue
            if uid not in uids or ("/mom_priv/" in path and "/tmp/pbs." in path):
                continue
            own = _JOB_FILE.match(name)
            folder = os.path.basename(root)
            gone = _GONE_DIR.match(folder)
            if own and own.group("id") in (folder, gone.group("id") if gone else None):
                continue
            if own and folder == "undelivered" and not name.endswith(".SC"):
                continue  # output kept back from delivery stays its owner's (mom/delivery.py)
            found.append(path)
    return found
