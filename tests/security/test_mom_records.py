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
from .owners import user_owned


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
        seen.extend(user_owned(rig.home))
        attrs = rig.job(jobid)
        return int(attrs.get("run_count", "0")) >= 2 or "session_id" in attrs
    wait_for(settled, 60, lambda: "neither started nor retried: %r" % rig.job(jobid))
    seen.extend(user_owned(rig.home))
    assert "session_id" not in rig.job(jobid), "the job ran with a mom record as its output"
    assert not seen, seen
    wait_for(lambda: rig.run(["qdel", jobid], user="pbsuser").returncode == 0
             or rig.job(jobid).get("job_state") == "F", 30, lambda: "qdel kept failing")
    rig.wait(jobid)


def _running(rig: Rig, body: str, user: str = "pbsuser") -> str:
    jobid = rig.qsub(body, "-l", "select=host=n1", user=user)
    rig.wait(jobid, "R")
    return jobid


def _jobdir(rig: Rig, jobid: str) -> Path:
    return rig.home / "mom_priv" / "n1" / "jobs" / jobid


def _give(path: Path, user: str, text: str) -> None:
    """Replace ``path`` by a file of ``user`` holding ``text``: what a job could do to a record
    its path had reached."""
    entry = pwd.getpwnam(user)
    path.unlink()
    path.write_text(text)
    os.chown(str(path), entry.pw_uid, entry.pw_gid)


def test_restart_sets_aside_records_it_cannot_trust(rig: Rig) -> None:
    """A restarted mom believes a job directory only when it and its records are the mom's
    own and the record names the directory's job (OpenPBS mom_main.c/job_recov: a job file
    that cannot be read is logged and skipped, the mom goes on).  A user-owned spec, a
    corrupted one, a link and a spec naming another job are each moved aside and logged; the
    restart succeeds and the sound job beside them runs to its end."""
    good = _running(rig, "sleep 8")
    bad = [_running(rig, "sleep 60") for _ in range(4)]
    specs = [_jobdir(rig, jobid) / "spec.json" for jobid in bad]
    sound = specs[0].read_text()
    _give(specs[0], "pbsuser", sound)
    specs[1].write_text('{"role": "primary", "job": {"id": ')
    specs[2].unlink()
    specs[2].symlink_to(_jobdir(rig, good) / "spec.json")
    specs[3].write_text(sound)  # the first bad job's record: names another job id
    rig.kill("mom", "n1")
    rig.restart_missing()
    jobs = rig.home / "mom_priv" / "n1" / "jobs"

    def aside() -> List[str]:
        return sorted(name.split("-")[1] for name in os.listdir(str(jobs))
                      if name.startswith(".bad-"))
    wait_for(lambda: aside() == sorted(bad), 20,
             lambda: "not set aside: %r" % sorted(os.listdir(str(jobs))))
    log = "\n".join(p.read_text(errors="replace")
                    for p in (rig.home / "mom_logs" / "n1").iterdir())
    assert log.count("job record not trusted, moved aside") == 4, log
    assert rig.wait(good, timeout=60).get("Exit_status") == "0"
    for jobid in bad:
        rig.run(["qdel", "-W", "force", jobid])


def test_a_hook_result_the_mom_did_not_write_is_ignored(rig: Rig) -> None:
    """A ``hook_<event>.json`` that is not the mom's own file is not a hook's result: with no
    hook installed the job ends untouched (no comment, Priority or euser from the file).
    OpenPBS's mom reads hook results only from its own mom_priv/hooks/tmp files
    (mom_hook_func.c run_hook/get_hook_results)."""
    jobid = _running(rig, "sleep 3")
    forged = ('{"accept": true, "job_attrs": {"comment": "forged", "Priority": "1000", '
              '"euser": "root"}}')
    for event in ("execjob_epilogue", "execjob_end"):
        record = _jobdir(rig, jobid) / ("hook_%s.json" % event)
        record.write_text(forged)
        _give(record, "pbsuser", forged)
    attrs = rig.wait(jobid, timeout=60)
    assert attrs.get("Exit_status") == "0", attrs
    assert attrs.get("comment") != "forged" and attrs.get("Priority") != "1000", attrs
    assert attrs.get("euser") in (None, "pbsuser"), attrs
