"""Values that would break every user's qstat are refused or shown as PBS shows them (issue 10).

``Execution_Time`` is a long in PBS: a non-number is ``Illegal attribute or resource value``
(15014).  The fake also refuses times ``ctime`` cannot show (past year 9999), which made
``qstat -f`` raise for every user.  Control characters in names and paths are stored and
shown as PBS's ``show_nonprint_chars`` shows them: ``^X`` (qstat.c); job names are checked by
the server as PBS's ECL checks them.
"""
import pytest

from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_JOBNBIG
from ..reliability.rig import Rig

from .conftest import raw_as

SCRIPT = "#!/bin/sh\ntrue\n"


@pytest.mark.parametrize("value", ["99999999999999999999", "253402300800", "1e30", "abc",
                                   "1.5", ""])
def test_out_of_range_execution_time_is_refused(rig: Rig, value: str) -> None:
    reply = raw_as(rig, "pbsuser", "queuejob", attrs={"Execution_Time": value},
                   script=SCRIPT, cwd="/tmp", host="vm")
    assert (reply["ok"], reply.get("code")) == (False, PBSE_BADATVAL), reply
    jobid = rig.qsub("true", "-h", user="pbsuser")
    reply = raw_as(rig, "pbsuser", "alterjob", id=jobid, attrs={"Execution_Time": value})
    assert (reply["ok"], reply.get("code")) == (False, PBSE_BADATVAL), reply
    done = rig.run(["qstat", "-f"], user="pbsuser2")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    rig.run(["qdel", jobid], user="pbsuser")


def test_a_far_but_valid_execution_time_renders(rig: Rig) -> None:
    reply = raw_as(rig, "pbsuser", "queuejob", attrs={"Execution_Time": "253402300799"},
                   script=SCRIPT, cwd="/tmp", host="vm")
    assert reply["ok"], reply
    done = rig.run(["qstat", "-f"], user="pbsuser2")
    assert done.returncode == 0, done.stderr
    assert "    Execution_Time = " in done.stdout


@pytest.mark.parametrize("name", ["a\x1b[2Jb\x07", "x\ny", "tab\there", "a" * 231])
def test_job_names_pass_the_servers_check(rig: Rig, name: str) -> None:
    """The server's check_job_name (ECL verify_value_jobname) refuses what qsub -N would:
    control characters (which the default qstat table prints raw, as PBS's does) are 15014,
    an over-long name 15173."""
    reply = raw_as(rig, "pbsuser", "queuejob", attrs={"Job_Name": name}, script=SCRIPT,
                   cwd="/tmp", host="vm")
    assert reply["ok"] is False and reply["code"] in (PBSE_BADATVAL, PBSE_JOBNBIG), reply
    jobid = rig.qsub("true", "-h", user="pbsuser")
    reply = raw_as(rig, "pbsuser", "alterjob", id=jobid, attrs={"Job_Name": name})
    assert reply["ok"] is False and reply["code"] in (PBSE_BADATVAL, PBSE_JOBNBIG), reply
    assert rig.job(jobid)["Job_Name"] == "STDIN"
    rig.run(["qdel", jobid], user="pbsuser")


def test_control_characters_in_paths_are_shown_as_pbs_shows_them(rig: Rig) -> None:
    """qstat -f shows control characters as ``^X`` (show_nonprint_chars in qstat.c)."""
    reply = raw_as(rig, "pbsuser", "queuejob",
                   attrs={"Output_Path": "vm:/tmp/a\x1b[2Jb\x07", "Hold_Types": "u"},
                   script=SCRIPT, cwd="/tmp", host="vm")
    assert reply["ok"], reply
    jobid = reply["data"]["jobid"]
    for argv in (["qstat", "-f", jobid], ["qstat", jobid], ["qstat", "-a"],
                 ["qstat", "-f", "-F", "json", jobid], ["qstat", "-f", "-F", "dsv", jobid]):
        done = rig.run(argv, user="pbsuser2")
        assert done.returncode == 0, (argv, done.stderr)
        assert "\x1b" not in done.stdout and "\x07" not in done.stdout, argv
    done = rig.run(["qstat", "-f", jobid], user="pbsuser2")
    assert "    Output_Path = vm:/tmp/a^[[2Jb^G\n" in done.stdout
