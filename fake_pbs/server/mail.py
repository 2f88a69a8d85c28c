"""Mail to a job's owner, as PBS's server sends it (svr_mail.c ``svr_mailowner_id``).

The server runs the mailer, ``mailer -f <mail_from> <to>``, with the message on its standard
input: the server's ``mailer`` attribute (default ``/usr/sbin/sendmail``) and ``mail_from``
(default ``adm``).  The message goes to the job's ``Mail_Users``, each followed by a space, or
else to its ``Job_Owner``.  A mail point is sent when the job's ``Mail_Points`` names it
(``a`` alone when unset), and a subjob's only when they also name ``j``; a forced mail (a mom's
kill over a limit, a hook's delete, a delete by someone else) skips those checks.  As in PBS,
a mailer that cannot be run is not reported: the mail is lost.  Unlike PBS, an address that
begins with ``-`` (one a mailer would read as an option) is not sent.

The mailer runs in a thread of its own, so a slow one never holds up the server; it is given
``MAILER_SECONDS`` before it is killed.
"""
import subprocess
import threading
from typing import Any, Dict, List, Optional

Job = Dict[str, Any]

SENDMAIL = "/usr/sbin/sendmail"  # SENDMAIL_CMD
DEFAULT_FROM = "adm"  # PBS_DEFAULT_MAIL
MAILER_SECONDS = 60.0

ABORT, BEGIN, END, OTHER, STAGEIN, SUBJOB = "a", "b", "e", "o", "s", "j"

# pbs_messages.c: the standard text of each mail point
STANDARD_TEXT = {
    ABORT: "Aborted by PBS Server ",
    BEGIN: "Begun execution",
    END: "Execution terminated",
    STAGEIN: "File stage in failed, see below.\n"
             "Job will be retried later, please investigate and correct problem.",
}

# req_jobobit.c: the forced abort mail of a run that ended with one of these mom codes
ABORT_TEXT = {
    -1: "Job cannot be executed\nSee Administrator for help",
    -2: "Job cannot be executed\nSee job standard error file",
    -17: "hook rejected request, requiring job to be deleted",
    -19: "a hook requested for job to be deleted",
    -24: "Job exceeded resource ncpus (burst)\nSee job standard error file",
    -25: "Job exceeded resource ncpus (sum)\nSee job standard error file",
    -26: "Job exceeded resource vmem\nSee job standard error file",
    -27: "Job exceeded resource mem\nSee job standard error file",
    -28: "Job exceeded resource cput\nSee job standard error file",
    -29: "Job exceeded resource walltime\nSee job standard error file",
}


def wanted(job: Job, point: str) -> bool:
    """True when the job asked for mail at ``point`` (forced mail aside)."""
    points = job.get("Mail_Points")
    if job.get("array_id") and SUBJOB not in str(points or ""):
        return False
    if points:
        return point in str(points)
    return point == ABORT


def _addresses(record: Dict[str, Any]) -> List[str]:
    """The ``Mail_Users`` of a job or reservation, in order."""
    return [u.strip() for u in str(record.get("Mail_Users") or "").split(",") if u.strip()]


def recipients(job: Job) -> str:
    """The mailer's one address argument: ``Mail_Users`` each with a trailing space, or the
    owner."""
    users = _addresses(job)
    return "".join(u + " " for u in users) if users else str(job.get("Job_Owner", ""))


def message(job: Job, point: str, to: str, text: Optional[str]) -> List[str]:
    """The lines svr_mailowner_id writes on the mailer's standard input."""
    jobid = str(job["_id"])
    lines = ["To: %s" % to, "Subject: PBS JOB %s" % jobid, "",
             "PBS Job Id: %s" % jobid, "Job Name:   %s" % job.get("Job_Name", "")]
    if point in STANDARD_TEXT:
        lines.append(STANDARD_TEXT[point])
    if text is not None:
        lines.append(text)
    return lines


def end_text(job: Job, status: int) -> str:
    """The end mail's text: ``Exit_status=N`` and the usage the mom reported, one per line
    (req_jobobit.c's mailbuf)."""
    used = ["%s=%s" % (name, job[name]) for name in sorted(job)
            if name.startswith("resources_used.")]
    return "\n".join(["Exit_status=%d" % status] + used)


def send(app: Any, job: Job, point: str, text: Optional[str] = None,
         force: bool = False) -> bool:
    """Mail the job's owner about ``point`` (``a``, ``b``, ``e``, ``o``); True when the
    mailer was started."""
    if not force and not wanted(job, point):
        return False
    to = recipients(job)
    return _start(app, str(job["_id"]), to, message(job, point, to, text))


# pbs_messages.c: a reservation's mail points (svr_mailownerResv)
CONFIRM = "c"
RESV_TEXT = {
    ABORT: "Reservation removed",
    BEGIN: "Reservation period starting",
    END: "Reservation period ended",
    CONFIRM: "Reservation transitioned from state UNCONFIRMED to CONFIRMED",
}


def send_resv(app: Any, resv: Dict[str, Any], point: str, text: Optional[str] = "",
              force: bool = False) -> bool:
    """Mail a reservation's owner about ``point`` (``c``, ``b``, ``e``, ``a``) as
    svr_mailownerResv does: unset Mail_Points mean ``a`` and ``c``; ``n`` silences even a
    forced mail.  23.06's address loop keeps only the first of several ``Mail_Users`` and logs
    ``Email list is too long`` (docs/differences.md, release bugs reproduced); the owner
    alone is sent to as the job's is."""
    points = str(resv.get("Mail_Points") or "")
    if not force and not (point in points if points else point in (ABORT, CONFIRM)):
        return False
    if "n" in points:
        return False
    resvid = str(resv["_id"])
    users = _addresses(resv)
    if users:
        to = users[0]
        app.log.job(resvid, 'Email list is too long: "%.77s..."' % to, 0x0008)
    else:
        to = str(resv.get("Reserve_Owner", ""))
    lines = ["To: %s" % to, "Subject: PBS RESERVATION %s" % resvid, "",
             "PBS Reservation Id: %s" % resvid,
             "Reservation Name:   %s" % resv.get("Reserve_Name", ""), RESV_TEXT[point]]
    if text is not None:
        lines.append(text)
    return _start(app, resvid, to, lines)


def _start(app: Any, about: str, to: str, lines: List[str]) -> bool:
    """Run the mailer, ``mailer -f <mail_from> <to>``, in a thread of its own with ``lines`` on
    its standard input; False when ``to`` is not sent to.

    The address comes from the owner (Mail_Users) and PBS passes it to the (root) mailer as
    is: one that would read as one of the mailer's options is not sent (security.md)."""
    if to.startswith("-"):
        app.log.job(about, "mail not sent: the address %r begins with '-'" % to, 0x0004)
        return False
    server: Dict[str, Any] = app.state.server
    sender = str(server.get("mail_from") or DEFAULT_FROM)
    argv = [str(server.get("mailer") or SENDMAIL), "-f", sender, to]
    body = "".join(line + "\n" for line in lines)
    threading.Thread(target=_run_mailer, args=(argv, body), name="mailer", daemon=True).start()
    return True


def _run_mailer(argv: List[str], body: str) -> None:
    try:
        subprocess.run(argv, input=body.encode("utf-8", "replace"), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=MAILER_SECONDS, close_fds=True,
                       start_new_session=True)
    except (OSError, subprocess.SubprocessError, ValueError):
        pass  # svr_exec_mailer: a mailer that fails to run loses the mail, unreported
