"""``-u`` and ``-W group_list`` follow PBS: a job runs as its owner, in a group the owner
belongs to (issue 10).

OpenPBS's set_objexid: another user name (no .rhosts trust) or one without a password entry is
``Bad UID for job execution`` (PBSE_BADUSER 15023, exit 175: transcript a12's message), a group
that does not exist or does not contain the user is ``Bad GID for job execution`` (PBSE_BADGRP
15045, exit 197).
"""
import grp
import pwd

from typing import List

import pytest

from ..reliability.rig import Rig

BAD_UID = "qsub: Bad UID for job execution\n"
BAD_GID = "qsub: Bad GID for job execution\n"


@pytest.mark.parametrize("option, stderr, code", [
    (["-u", "pbsuser2"], BAD_UID, 175),
    (["-u", "root"], BAD_UID, 175),
    (["-u", "no_such_user_x9"], BAD_UID, 175),
    (["-u", "pbsuser2@vm,pbsuser"], BAD_UID, 175),
    (["-W", "group_list=pbsuser2"], BAD_GID, 197),
    (["-W", "group_list=root"], BAD_GID, 197),
    (["-W", "group_list=no_such_group_x9"], BAD_GID, 197),
])
def test_foreign_user_or_group_is_refused(rig: Rig, option: List[str], stderr: str,
                                          code: int) -> None:
    done = rig.run(["qsub"] + option, input="#!/bin/sh\ntrue\n", user="pbsuser")
    assert (done.returncode, done.stderr, done.stdout) == (code, stderr, "")
    assert rig.jobs() == {}


def test_own_user_and_login_group_are_accepted(rig: Rig) -> None:
    """The owner's own name and login group are fine; the job runs with that group."""
    out = rig.work / "ids"
    group = grp.getgrgid(pwd.getpwnam("pbsuser").pw_gid).gr_name
    jobid = rig.qsub("id -g > %s" % out, "-u", "pbsuser", "-W", "group_list=" + group,
                     user="pbsuser")
    rig.wait(jobid)
    assert out.read_text().strip() == str(pwd.getpwnam("pbsuser").pw_gid)


def test_qalter_checks_the_same_rules(rig: Rig) -> None:
    jobid = rig.qsub("true", "-h", user="pbsuser")
    done = rig.run(["qalter", "-W", "group_list=pbsuser2", jobid], user="pbsuser")
    assert done.returncode == 197, done.stderr
    assert done.stderr.startswith("qalter: Bad GID for job execution"), done.stderr
    done = rig.run(["qalter", "-u", "pbsuser2", jobid], user="pbsuser")
    assert done.returncode == 175, done.stderr
    assert "group_list" not in rig.job(jobid) and "User_List" not in rig.job(jobid)
    rig.run(["qdel", jobid], user="pbsuser")
