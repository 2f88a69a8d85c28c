"""qalter: change attributes of jobs (OpenPBS 23.06 ``qalter.c``; extra transcripts k05).

Values are verified client-side as qsub's are (``qalter: illegal -N value`` + usage, exit 2;
``qalter: Illegal attribute or resource value Resource_List.walltime <id>``, exit 166), then one
``alterjob`` request per id; server refusals print ``qalter: <text> <id>``.
"""
from __future__ import annotations

import sys
import time

from fake_pbs import leanos
from fake_pbs.cli import common, jobctl, qsub_verify
from fake_pbs.cli.posix_getopt import OptionError, strict
from fake_pbs.cli.qsub_options import parse_equal_list, parse_resource_list
from fake_pbs.model import ecl
from fake_pbs.model.errors import PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List

USAGE = ("usage: qalter [-a date_time] [-A account_string] [-c interval] [-e path]\n"
         "\t[-h hold_list] [-j y|n] [-k keep] [-l resource_list]\n"
         "\t[-m mail_options] [-M user_list] [-N jobname] [-o path] [-p priority]\n"
         "\t[-R o|e|oe] [-r y|n] [-S path] [-u user_list] [-W dependency_list]\n"
         "\t[-P project_name] job_identifier...\n"
         "       qalter --version\n")
SPEC = "a:A:c:e:h:j:k:l:m:M:N:o:p:r:R:S:u:W:P:"
SIMPLE = {"A": "Account_Name", "P": "project", "c": "Checkpoint", "e": "Error_Path",
          "h": "Hold_Types", "j": "Join_Path", "k": "Keep_Files", "m": "Mail_Points",
          "M": "Mail_Users", "N": "Job_Name", "o": "Output_Path", "p": "Priority",
          "R": "Remove_Files", "S": "Shell_Path_List", "u": "User_List", "r": "Rerunable"}


def _options(argv: List[str], attrs: Dict[str, str], reslist: Dict[str, str]) -> List[str]:
    """Fill ``attrs``/``reslist`` from the options; return the operands (job ids)."""
    opts, ids = strict(argv, SPEC, "qalter", permute=True)
    errors: List[str] = []
    for letter, value in opts:
        if letter == "a":
            try:
                attrs["Execution_Time"] = str(ecl.parse_exec_time(value, time.time()))
            except PbsError:
                errors.append("qalter: illegal -a value")
        elif letter == "c" and value.strip() == "u":
            errors.append("qalter: illegal -c value")
        elif letter == "r" and value not in ("y", "n"):
            errors.append("qalter: illegal -r value")
        elif letter == "l":
            pairs = parse_resource_list(value)
            if pairs is None:
                errors.append("qalter: illegal -l value")
            else:
                reslist.update(pairs)
        elif letter == "W":
            pairs = parse_equal_list(value.lstrip()) if value.strip() else None
            if pairs is None:
                errors.append("qalter: illegal -W value")
            else:
                attrs.update(pairs)
        else:
            attrs[SIMPLE[letter]] = value
    if errors or not ids:
        raise OptionError("".join(m + "\n" for m in errors).rstrip("\n"))
    return ids


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    attrs: Dict[str, str] = {}
    reslist: Dict[str, str] = {}
    try:
        ids = _options(argv, attrs, reslist)
    except OptionError as err:
        return jobctl.usage(USAGE, messages=[err.message] if err.message else [])
    try:
        qsub_verify.verify(attrs, reslist, qsub_verify.submit_host(), leanos.getcwd(), "qalter")
    except qsub_verify.VerifyError as err:
        if err.undefined:
            # PBS's prt_job_err without server text: the number, once per job
            for jobid in ids:
                sys.stderr.write("qalter: Server returned error %d for job %s\n" % (
                    err.pbs_code, jobctl.qualify(jobid)))
            return err.code
        if err.resource:
            sys.stderr.write("%s %s\n" % (err.message, jobctl.qualify(ids[0])))
        elif err.usage:
            return jobctl.usage(USAGE, err.code, [err.message])
        else:
            sys.stderr.write(err.message + "\n")
        return err.code
    for res, value in reslist.items():
        attrs["Resource_List." + res] = value
    return jobctl.each_job("qalter", ids, lambda jobid: common.request(
        "alterjob", id=jobid, attrs=attrs))


def main() -> None:
    common.run_main("qalter", body)
