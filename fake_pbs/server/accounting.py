"""The bodies of PBS's job accounting records (the facts of accounting.c, extra set k14).

Every ``Q S E R`` record starts with the same fields, in this order, each followed by a space:
``user group [account] project [accounting_id] jobname queue ctime qtime etime``, then
``start`` (every record but Q) or ``depend`` (Q only, when the job has dependencies, k14f),
then ``array_indices`` for an array parent that is queued or begun (k14d) or else the
``exec_host``/``exec_vnode`` of a job that has them, then ``Resource_List``.  S adds the
resources assigned; E and R add ``session= end=``, the exit status and usage, ``run_count``.
"""
from typing import Any, Dict

from fake_pbs.model import states as st

Job = Dict[str, Any]


def _quoted_if_spaced(name: str, value: str) -> str:
    return '%s="%s"' % (name, value) if " " in value else "%s=%s" % (name, value)


def resource_list_fields(job: Job) -> str:
    names = sorted((n for n in job if n.startswith("Resource_List.")), key=str.lower)
    return " ".join("%s=%s" % (n, job[n]) for n in names)


def used_fields(job: Job) -> str:
    names = sorted((n for n in job if n.startswith("resources_used.")), key=str.lower)
    return " ".join("%s=%s" % (n, job[n]) for n in names)


def job_fields(job: Job, kind: str) -> str:
    """PBS's ``acct_job``: the fields every job record starts with, each ending in a space."""
    parts = ["user=%s" % job.get("_user", ""), "group=%s" % job.get("_group", "")]
    if job.get("Account_Name"):
        parts.append('account="%s"' % job["Account_Name"])
    parts.append(_quoted_if_spaced("project", job.get("project", "_pbs_project_default")))
    if job.get("accounting_id"):
        parts.append('accounting_id="%s"' % job["accounting_id"])
    parts += ["jobname=%s" % job.get("Job_Name", ""), "queue=%s" % job.get("queue", ""),
              "ctime=%s" % job.get("ctime", "0"), "qtime=%s" % job.get("qtime", "0"),
              "etime=%s" % job.get("etime", "0")]
    if job.get("reserve_ID"):  # a reservation's job (R30: after queue in PBS's order)
        parts.insert(-3, "resvname=%s resvID=%s" % (job.get("_resvname", "NULL"),
                                                    job["reserve_ID"]))
    if kind != "Q":
        parts.append("start=%s" % job.get("stime", "0"))
    elif job.get("depend"):
        parts.append("depend=%s" % job["depend"])
    indices = job.get("array_indices_submitted")
    if indices and (kind == "Q" or job.get("job_state") == st.BEGUN):
        parts.append("array_indices=%s" % indices)
    else:
        for name in ("exec_host", "exec_vnode"):
            if job.get(name):
                parts.append("%s=%s" % (name, job[name]))
    resources = resource_list_fields(job)
    return " ".join(parts) + " " + (resources + " " if resources else "")


def end_fields(job: Job, status: int, now: int, with_usage: bool = True) -> str:
    """PBS's ``account_jobend`` (E and R): an array parent's carries no usage (k14d)."""
    used = "Exit_status=%d" % status
    usage = used_fields(job) if with_usage else ""
    if usage:
        used += " " + usage
    return "%ssession=%s end=%d %s run_count=%s" % (
        job_fields(job, "E"), job.get("_session_id", "0"), now, used, job.get("run_count", "0"))
