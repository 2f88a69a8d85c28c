"""No user value forges a line of the server log or of the accounting log (issue 21).

PBS takes Job_Owner's host and Submit_Host from the authenticated connection (req_quejob.c:
``rq_user@rq_host``, ``cn_physhost``), never from the request's body.  It accepts any character
in ``-A`` (decode_str) and refuses ``/[]";:|<>+,?*`` in ``-P`` (attr_func.c decode_project,
ETLIM_INVALIDCHAR: 15014); the fake's log writers keep one record a line whatever a value holds
(control characters written as ``^X``, fake_pbs/server/logs.py).
"""
from pathlib import Path
from typing import List

from fake_pbs import paths
from ..reliability.rig import Rig
from .conftest import raw_as

FORGED = "01/01/2030 00:00:00;0008;Server@vm;Job;1.vm;forged"
FORGED_ACCT = "01/01/2030 00:00:00;E;1.vm;user=root"


def _lines(directory: Path) -> List[str]:
    out: List[str] = []
    for day in sorted(directory.glob("2*")):
        out += day.read_text(encoding="utf-8", errors="replace").split("\n")
    return out


def _accounting(rig: Rig) -> List[str]:
    return _lines(paths.server_priv(rig.home) / "accounting")


def test_account_and_job_values_stay_on_their_line(rig: Rig) -> None:
    jobid = rig.qsub("true", "-h", "-A", "acct\n" + FORGED_ACCT, user="pbsuser")
    assert rig.job(jobid)["Account_Name"] == "acct\n" + FORGED_ACCT  # PBS accepts it
    done = rig.run(["qalter", "-A", "x\r\n" + FORGED, jobid], user="pbsuser")
    assert done.returncode == 0, done.stderr
    records = _accounting(rig)
    assert not any(line.startswith(FORGED_ACCT[:20]) for line in records), records
    queued = [line for line in records if ";Q;%s;" % jobid in line]
    assert len(queued) == 1 and 'account="acct^J01/01/2030' in queued[0], queued
    assert any(";a;%s;Account_Name=x^M^J01/01/2030" % jobid in line for line in records)
    server = _lines(rig.home / "server_logs")
    assert not any(line.startswith(FORGED[:20]) for line in server)
    rig.run(["qdel", jobid], user="pbsuser")


def test_project_names_follow_decode_project(rig: Rig) -> None:
    for bad in ("a;b", "x|y", "p/q", 'say"hi'):
        done = rig.run(["qsub", "-P", bad], input="#!/bin/sh\ntrue\n", user="pbsuser")
        assert done.returncode == 15014 % 256, (bad, done.stderr)
        assert "Illegal attribute or resource value" in done.stderr
    # a forged record needs ';', which a project may not hold; a newline it may
    jobid = rig.qsub("true", "-h", "-P", "proj\nFORGED", user="pbsuser")
    records = _accounting(rig)
    assert not any(line.startswith("FORGED") for line in records)
    assert any(";Q;%s;" % jobid in line and "project=proj^JFORGED" in line for line in records)
    rig.run(["qdel", jobid], user="pbsuser")


def test_the_submit_host_comes_from_the_connection(rig: Rig) -> None:
    """A raw queuejob naming another host (and a forged log line in it) changes nothing:
    the owner is pbsuser@<server host>, as PBS's authenticated rq_host."""
    answer = raw_as(rig, "pbsuser", "queuejob", attrs={"Hold_Types": "u"},
                    script="#!/bin/sh\ntrue\n", cwd="/tmp",
                    host="trusted.example.com\n" + FORGED)
    assert answer["ok"], answer
    jobid = answer["data"]["jobid"]
    job = rig.job(jobid)
    assert job["Job_Owner"] == "pbsuser@vm"
    assert job["Submit_Host"] == "vm"
    assert "trusted.example.com" not in job["Output_Path"]
    server = _lines(rig.home / "server_logs")
    assert not any("trusted.example.com" in line for line in server)
    assert not any(line.startswith(FORGED[:20]) for line in server)
    rig.run(["qdel", jobid], user="pbsuser")
