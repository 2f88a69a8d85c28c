"""``before*`` dependencies and ``on:N`` (src/server/req_register.c: ``req_register``,
``register_dep``, ``post_doq``, ``depend_on_term``, ``set_depend_hold``).

A job submitted with ``-W depend=on:N`` is held (H, 22, Hold_Types s) until N jobs registered a
``before*`` on it; each registration gives it the mirror ``after*`` (``afterok:B@server``) and
one ``on`` fewer.  The ``before*`` job's end releases it (``beforeok`` and exit 0,
``beforenotok`` and a failure, ``beforeany``) or deletes it (F, substate 92).  A ``before*`` on
a job with no ``on`` left is refused with PBSE_BADDEPEND: post_doq aborts the new job.
"""
from typing import Dict

import pytest

from fake_pbs.testing import FakeCluster

CASES = [("beforeok", "0", True), ("beforeok", "3", False), ("beforenotok", "3", True),
         ("beforenotok", "0", False), ("beforeany", "3", True)]


def _fields(cluster: FakeCluster, jobid: str) -> Dict[str, str]:
    attrs = cluster.job(jobid)
    return {k: attrs.get(k, "") for k in ("job_state", "substate", "depend", "Hold_Types")}


@pytest.mark.parametrize("kind,status,runs", CASES)
def test_before_releases_or_deletes_the_on_job(fake_pbs: FakeCluster, kind: str, status: str,
                                               runs: bool) -> None:
    first = fake_pbs.qsub("true", "-W", "depend=on:1")
    assert _fields(fake_pbs, first) == {"job_state": "H", "substate": "22",
                                        "depend": "on:1", "Hold_Types": "s"}
    fake_pbs.qmgr("set server scheduling = False")
    before = fake_pbs.qsub("exit %s" % status, "-W", "depend=%s:%s" % (kind, first))
    mirror = kind.replace("before", "after")
    assert _fields(fake_pbs, first)["depend"] == "%s:%s@vm" % (mirror, before)
    assert fake_pbs.job(before)["depend"] == "%s:%s@vm" % (kind, first)
    fake_pbs.qmgr("set server scheduling = True")
    assert fake_pbs.wait(before)["Exit_status"] == status
    attrs = fake_pbs.wait(first)
    if runs:
        assert attrs["Exit_status"] == "0"
    else:
        assert attrs["substate"] == "92" and "Exit_status" not in attrs


def test_on_counts_registrations(fake_pbs: FakeCluster) -> None:
    """on:2 expects two ``before*`` jobs: after one it still shows ``on:1``."""
    fake_pbs.qmgr("set server scheduling = False")
    first = fake_pbs.qsub("true", "-W", "depend=on:2")
    one = fake_pbs.qsub("true", "-W", "depend=beforeany:%s" % first)
    assert fake_pbs.job(first)["depend"] == "afterany:%s@vm,on:1" % one


def test_before_without_on_aborts_the_new_job(fake_pbs: FakeCluster) -> None:
    """No ``on`` to register against (PBSE_BADDEPEND): the submission succeeds, post_doq
    logs ``Dependency request for job rejected by`` and aborts the new job (F, 92); the other
    job is untouched."""
    fake_pbs.qmgr("set server scheduling = False")
    plain = fake_pbs.qsub("true")
    new = fake_pbs.qsub("true", "-W", "depend=beforeok:%s" % plain)
    assert fake_pbs.wait(new)["substate"] == "92"
    assert fake_pbs.job(plain)["job_state"] == "Q" and "depend" not in fake_pbs.job(plain)
    assert any("Dependency request for job rejected by %s" % plain in line
               for line in fake_pbs.log_lines("server"))
