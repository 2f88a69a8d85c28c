"""Mail to the job's owner (OpenPBS svr_mail.c ``svr_mailowner_id``, req_runjob.c
complete_running, req_jobobit.c on the obit, job_func.c job_abt, req_delete.c acct_del_write).

The server runs its ``mailer`` as ``mailer -f <mail_from> <to>`` and writes ``To:``,
``Subject: PBS JOB <id>``, ``PBS Job Id:``, ``Job Name:``, the mail point's standard text and
the event's own text on its standard input.  Here the mailer is a script that keeps each
message in a directory.
"""
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Tuple

from fake_pbs.testing import FakeCluster

from ..reliability.rig import Rig, need_users

Mail = Tuple[List[str], str]  # (argv after the program, message)

_MAILER = """#!/bin/sh
n="$$.$(date +%%s%%N)"
{ for a in "$@"; do printf '%%s\\n' "$a"; done; echo '--'; cat; } > "%(dir)s/.$n"
mv "%(dir)s/.$n" "%(dir)s/mail.$n"
"""


def _mailer(cluster: FakeCluster, tmp_path: Path) -> Path:
    box = tmp_path / "box"
    box.mkdir()
    script = tmp_path / "mailer.sh"
    script.write_text(_MAILER % {"dir": box})
    script.chmod(0o755)
    cluster.qmgr("set server mailer = %s" % script)
    return box


@contextmanager
def _shared_cluster() -> Iterator[Rig]:
    """A cluster root started, which pbsuser shares (skips without root or the users)."""
    need_users()
    rig = Rig()
    try:
        rig.start()
        yield rig
    finally:
        rig.close()


def _mails(box: Path, count: int, timeout: float = 20.0) -> List[Mail]:
    """The first ``count`` mails in arrival order, once that many arrived (then a short
    settle, so that a test can also tell that no more came)."""
    deadline = time.monotonic() + timeout
    while len(list(box.glob("mail.*"))) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    mails = []
    for path in sorted(box.glob("mail.*"), key=lambda p: p.stat().st_mtime_ns):
        head, _, body = path.read_text().partition("--\n")
        mails.append((head.splitlines(), body))
    assert len(mails) >= count, mails
    return mails


def _texts(mails: List[Mail]) -> List[str]:
    return [body.split("\n\n", 1)[1] for _, body in mails]


def test_begin_and_end_mail_to_the_mail_users(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """``-m be -M a@x,b``: a ``Begun execution`` mail when the job starts and an ``Execution
    terminated`` mail with ``Exit_status`` and the usage, one per line, when it ends; sent as
    ``mailer -f adm "a@x b "`` (each address followed by a space)."""
    box = _mailer(fake_pbs, tmp_path)
    jobid = fake_pbs.qsub("exit 3", "-N", "mailme", "-m", "be", "-M", "a@x,b")
    fake_pbs.wait(jobid)
    mails = _mails(box, 2)
    assert len(mails) == 2
    assert [argv for argv, _ in mails] == [["-f", "adm", "a@x b "]] * 2
    # each mail has a mailer process of its own, as PBS forks one: they may arrive either way
    begin, end = sorted((body for _, body in mails), key=lambda b: "Begun execution" not in b)
    assert begin == ("To: a@x b \nSubject: PBS JOB %s\n\nPBS Job Id: %s\nJob Name:   mailme\n"
                     "Begun execution\n" % (jobid, jobid))
    lines = end.splitlines()
    assert lines[:7] == ["To: a@x b ", "Subject: PBS JOB %s" % jobid, "",
                         "PBS Job Id: %s" % jobid, "Job Name:   mailme",
                         "Execution terminated", "Exit_status=3"]
    assert [ln.split("=")[0] for ln in lines[7:]] == [
        "resources_used.cpupercent", "resources_used.cput", "resources_used.mem",
        "resources_used.ncpus", "resources_used.vmem", "resources_used.walltime"]


def test_default_mail_points_mean_abort_only(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """Mail_Points unset is ``a``: a job that ends normally sends nothing; a job its mom kills
    over its walltime gets the forced abort mail (req_jobobit.c JOB_EXEC_KILL_WALLTIME), from
    the server's ``mail_from``, to the owner."""
    box = _mailer(fake_pbs, tmp_path)
    fake_pbs.qmgr("set server mail_from = pbsops@example.org")
    quiet = fake_pbs.qsub("true")
    fake_pbs.wait(quiet)
    killed = fake_pbs.qsub("sleep 30", "-l", "walltime=1", "-m", "n")
    fake_pbs.wait(killed, timeout=60)
    mails = _mails(box, 1)
    assert len(mails) == 1
    argv, body = mails[0]
    owner = fake_pbs.job(killed)["Job_Owner"]
    assert argv == ["-f", "pbsops@example.org", owner]
    assert body.splitlines()[1] == "Subject: PBS JOB %s" % killed
    assert _texts(mails) == ["PBS Job Id: %s\nJob Name:   job.sh\nAborted by PBS Server \n"
                             "Job exceeded resource walltime\nSee job standard error file\n"
                             % killed]


def test_a_dependency_abort_mails_the_owner(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """job_abt: an ``afterok`` job whose parent failed is deleted with the abort mail, which
    the default Mail_Points ask for; ``-m n`` asks for none."""
    box = _mailer(fake_pbs, tmp_path)
    parent = fake_pbs.qsub("sleep 1; exit 1")
    child = fake_pbs.qsub("true", "-W", "depend=afterok:%s" % parent)
    silent = fake_pbs.qsub("true", "-m", "n", "-W", "depend=afterok:%s" % parent)
    fake_pbs.wait(child)
    fake_pbs.wait(silent)
    mails = _mails(box, 1)
    assert _texts(mails) == ["PBS Job Id: %s\nJob Name:   job.sh\nAborted by PBS Server \n"
                             "Job deleted as result of dependency on job %s\n"
                             % (child, parent)]


def test_array_mails_are_the_parents_unless_j(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """An array's parent mails when it begins and ends; a subjob mails only when Mail_Points
    also name ``j`` (svr_mailowner_id, MAIL_SUBJOB)."""
    box = _mailer(fake_pbs, tmp_path)
    parent = fake_pbs.qsub("true", "-J", "1-2", "-m", "be")
    fake_pbs.wait(parent)
    mails = _mails(box, 2)
    assert [body.splitlines()[1] for _, body in mails] == ["Subject: PBS JOB %s" % parent] * 2
    texts = sorted(_texts(mails))  # "...Begun execution" sorts before "...Execution ..."
    assert texts[0].endswith("Begun execution\n")
    assert texts[1].endswith("Execution terminated\nExit_status=0\n")
    for path in box.glob("mail.*"):
        path.unlink()
    with_j = fake_pbs.qsub("true", "-J", "1-2", "-m", "ej")
    fake_pbs.wait(with_j)
    subjects = sorted(body.splitlines()[1] for _, body in _mails(box, 3))
    seq = with_j.split("[")[0]
    assert subjects == ["Subject: PBS JOB %s" % name for name in sorted(
        [with_j, "%s[1].%s" % (seq, with_j.split(".", 1)[1]),
         "%s[2].%s" % (seq, with_j.split(".", 1)[1])])]


def test_a_missing_mailer_loses_the_mail_quietly(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """svr_exec_mailer: a mailer that cannot be run loses the mail; the job is unaffected."""
    fake_pbs.qmgr("set server mailer = %s" % (tmp_path / "no-such-mailer"))
    jobid = fake_pbs.qsub("true", "-m", "abe")
    assert fake_pbs.wait(jobid)["Exit_status"] == "0"


def test_a_delete_by_someone_else_mails_the_owner(tmp_path: Path) -> None:
    """acct_del_write: a manager's qdel of another user's job mails its owner, forced, with
    ``Job to be deleted at request of root@<host>``; the owner's own qdel does not.  ``-W
    suppress_email=1`` mails for the first id only (qdel.c: the rest go ``nomail``)."""
    with _shared_cluster() as rig:
        box = _mailer(rig, tmp_path)
        jobs = [rig.qsub("sleep 60", "-m", "n", user="pbsuser") for _ in range(3)]
        own = rig.run(["qdel", jobs[0]], user="pbsuser")
        assert own.returncode == 0, own.stderr
        done = rig.run(["qdel", "-W", "suppress_email=1", jobs[1], jobs[2]])
        assert done.returncode == 0, done.stderr
        mails = _mails(box, 1)
        assert len(mails) == 1
        argv, body = mails[0]
        assert argv[2] == rig.job(jobs[1])["Job_Owner"]
        requestor = "root@%s" % rig.job(jobs[1])["Job_Owner"].split("@")[1]
        assert _texts(mails) == ["PBS Job Id: %s\nJob Name:   STDIN\n"
                                 "Job to be deleted at request of %s\n" % (jobs[1], requestor)]


def test_an_address_that_reads_as_an_option_is_not_sent(
        fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """Mail_Users is the owner's to set and reaches the mailer's command line; in a cluster
    root started the mailer runs as root, so ``-M -C/tmp/x`` (sendmail's alternate
    configuration) must never become one of its options: the mail is not sent, and logged."""
    box = _mailer(fake_pbs, tmp_path)
    hostile = fake_pbs.qsub("true", "-m", "e", "-M", "-C/tmp/x")
    fake_pbs.wait(hostile)
    fine = fake_pbs.qsub("true", "-m", "e", "-M", "ok@x")
    fake_pbs.wait(fine)
    mails = _mails(box, 1)
    assert [argv for argv, _ in mails] == [["-f", "adm", "ok@x "]]
    assert any(";%s;mail not sent: the address '-C/tmp/x ' begins with '-'" % hostile in line
               for line in fake_pbs.log_lines("server"))


def _resv_mails(box: Path, count: int) -> List[Tuple[str, str, List[str]]]:
    """(address, subject, the lines after the blank line) of each mail."""
    found = []
    for argv, body in _mails(box, count):
        head, _, text = body.partition("\n\n")
        found.append((argv[2], head.splitlines()[1], text.splitlines()))
    return found


def test_reservation_mail(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """svr_mailownerResv: with Mail_Points unset a reservation mails its owner when it is
    confirmed (req_confirmresv) and when it is deleted (resv_mailAction: ``Requesting party:
    <user>@<host>``), not at its start; ``-m be`` asks for its start and end instead
    (Time4resv, Time4resvFinish), and 23.06.06's address loop keeps the first of its
    ``Mail_Users`` only, logging ``Email list is too long``."""
    from ..reservations.test_server_cluster import rsub
    box = _mailer(fake_pbs, tmp_path)
    plain, _ = rsub(fake_pbs, 2, 2, "-N", "plainr")
    owner = fake_pbs.run(["pbs_rstat", "-f", plain]).stdout.split("Reserve_Owner = ")[1]
    owner = owner.split()[0]
    time.sleep(3)
    fake_pbs.sh("pbs_rdel", plain)
    confirmed, deleted = sorted(_resv_mails(box, 2), key=lambda m: "Reservation removed" in m[2])
    assert confirmed == (owner, "Subject: PBS RESERVATION %s" % plain, [
        "PBS Reservation Id: %s" % plain, "Reservation Name:   plainr",
        "Reservation transitioned from state UNCONFIRMED to CONFIRMED", ""])
    assert deleted == (owner, "Subject: PBS RESERVATION %s" % plain, [
        "PBS Reservation Id: %s" % plain, "Reservation Name:   plainr", "Reservation removed",
        "Requesting party: %s" % owner])
    for path in box.glob("mail.*"):
        path.unlink()
    timed, start = rsub(fake_pbs, 2, 2, "-m", "be", "-M", "ops@x,dev@y")
    wait_for_gone = time.monotonic() + 20
    while time.monotonic() < wait_for_gone and \
            "Unknown" not in fake_pbs.run(["pbs_rstat", timed]).stderr:
        time.sleep(0.2)
    begun, ended = sorted(_resv_mails(box, 2), key=lambda m: "Reservation period ended" in m[2])
    assert (begun[0], begun[2][2:]) == ("ops@x", ["Reservation period starting", ""])
    assert (ended[0], ended[2][2:]) == ("ops@x", ["Reservation period ended", ""])
    assert any(';Job;%s;Email list is too long: "ops@x..."' % timed in line
               for line in fake_pbs.log_lines("server"))


def test_the_server_default_suppresses_qdel_mail(tmp_path: Path) -> None:
    """qdel.c get_mail_suppress_count: without ``-W suppress_email`` the server's
    ``default_qdel_arguments = -Wsuppress_email=N`` sets how many of a qdel's ids are deleted
    with mail (here 2 of 3)."""
    with _shared_cluster() as rig:
        box = _mailer(rig, tmp_path)
        rig.qmgr("set server default_qdel_arguments = -Wsuppress_email=2")
        jobs = [rig.qsub("sleep 60", "-m", "n", user="pbsuser") for _ in range(3)]
        done = rig.run(["qdel"] + jobs)
        assert done.returncode == 0, done.stderr
        subjects = sorted(body.splitlines()[1] for _, body in _mails(box, 2))
        assert subjects == sorted("Subject: PBS JOB %s" % j for j in jobs[:2])
