"""A job's paths never reach the mom's own records (issue 21).

OpenPBS's mom creates only the fixed spool names itself (start_exec.c ``open_std_file``: a spool
file is created securely with ``create_file_securely`` and anything suspect there is removed),
and opens every other standard file (``-k``, direct write, sandbox) as the job owner
(``open_file_as_user``).  No record of the mom (``mom_priv/jobs/*.JB``, ``*.TK``) is ever the
user's.  Here the job directory holds the mom's records next to the spool files, so a ``-k d``
path pointed at a record would hand that record to the user if the root shepherd created it.
"""
import os
import pwd
from pathlib import Path
from typing import List

from ..reliability.rig import Rig, wait_for

USERS = ("pbsuser", "pbsuser2")


def user_owned(home: Path, jobid: str) -> List[str]:
    """Files under the cluster's private directories that a test user owns, apart from what
    PBS gives the owner there: the job's spool files and script, its TMPDIR."""
    uids = {pwd.getpwnam(name).pw_uid for name in USERS}
    allowed = {jobid + ".OU", jobid + ".ER", jobid + ".SC", "pbs." + jobid}
    found: List[str] = []
    for top in ("mom_priv", "server_priv"):
        for root, dirs, files in os.walk(str(home / top)):
            for name in dirs + files:
                path = os.path.join(root, name)
                try:
                    uid = os.lstat(path).st_uid
                except FileNotFoundError:
                    continue
                if uid in uids and name not in allowed and "/tmp/pbs." not in path:
                    found.append(path)
    return found


def test_kept_paths_cannot_take_the_mom_records(rig: Rig) -> None:
    """``qalter -k oed -o <jobdir>/launch.json -e <jobdir>/spec.json``: the owner cannot open
    the mom's records, so the start fails and is retried as PBS's does ("Unable to open
    standard output/error", JOB_EXEC_RETRY); the records stay root's and keep their content."""
    jobid = rig.qsub("echo forged > launch.json; sleep 30", "-h", user="pbsuser")
    jobdir = rig.home / "mom_priv" / "n1" / "jobs" / jobid
    done = rig.run(["qalter", "-k", "oed", "-l", "select=host=n1", "-o",
                    str(jobdir / "launch.json"), "-e", str(jobdir / "spec.json"), jobid],
                   user="pbsuser")
    assert done.returncode == 0, done.stderr
    assert rig.run(["qrls", jobid], user="pbsuser").returncode == 0
    seen: List[str] = []

    def settled() -> bool:
        seen.extend(user_owned(rig.home, jobid))
        attrs = rig.job(jobid)
        return int(attrs.get("run_count", "0")) >= 2 or "session_id" in attrs
    wait_for(settled, 60, lambda: "neither started nor retried: %r" % rig.job(jobid))
    seen.extend(user_owned(rig.home, jobid))
    assert "session_id" not in rig.job(jobid), "the job ran with a mom record as its output"
    assert not seen, seen
    wait_for(lambda: rig.run(["qdel", jobid], user="pbsuser").returncode == 0
             or rig.job(jobid).get("job_state") == "F", 30, lambda: "qdel kept failing")
    rig.wait(jobid)
