"""qselect: list the ids of jobs matching criteria (extra transcripts k07).

Criteria travel as ``[name, op, value]`` with ops ``eq ne lt le gt ge``: ``-s`` ->
``job_state eq <letters>``, ``-u`` -> ``Job_Owner``, ``-q`` -> ``queue``, ``-l res.op.value`` ->
``Resource_List.res``, and so on.  No match prints nothing and exits 0.
"""
from __future__ import annotations

import sys

from fake_pbs.cli import common, jobctl
from fake_pbs.cli.posix_getopt import OptionError, strict
from fake_pbs.model.errors import PBSE_UNKQUE, UNKQUE_DESTINATION, PbsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Tuple

    Criterion = Tuple[str, str, str]
else:  # run time: the names exist, typing is not imported
    Criterion = object

USAGE = ("usage: qselect [-a [op]date_time] [-A account_string] [-c [op]interval]\n"
         "\t[-h hold_list] [-H] [-J] [-l resource_list] [-N name] [-p [op]priority]\n"
         "\t[-q destination] [-r y|n] [-s states] [-t subopt[op]date_time] [-T] "
         "[-P project_name]\n"
         "\t[-x] [-u user_name]\n"
         "       qselect --version\n")
SPEC = "a:A:c:h:HJl:N:p:q:r:s:t:Tu:xP:"
OPS = ("eq", "ne", "lt", "le", "gt", "ge")
STATES = "BEFHMQRSTUWX"


def _op_value(text: str) -> Tuple[str, str]:
    """``[op.]value`` (``gt.100``) -> (op, value); ``eq`` when no op is given."""
    head, dot, rest = text.partition(".")
    if dot and head in OPS:
        return head, rest
    return "eq", text


def _resources(text: str) -> List[Criterion]:
    out: List[Criterion] = []
    for item in text.split(","):
        parts = item.split(".", 2)
        if len(parts) != 3 or parts[1] not in OPS or not parts[0] or not parts[2]:
            raise ValueError(item)
        out.append(("Resource_List." + parts[0], parts[1], parts[2]))
    return out


def _criteria(opts: List[Tuple[str, str]]) -> Tuple[List[Criterion], str, List[str]]:
    criteria: List[Criterion] = []
    extend = ""
    errors: List[str] = []
    simple = {"A": "Account_Name", "N": "Job_Name", "P": "project", "q": "queue",
              "u": "Job_Owner", "h": "Hold_Types"}
    for letter, value in opts:
        if letter in simple:
            criteria.append((simple[letter], "eq", value))
        elif letter == "s":
            if not value or any(c not in STATES for c in value):
                errors.append("qselect: illegal -s value")
            criteria.append(("job_state", "eq", value))
        elif letter == "r":
            if value not in ("y", "n"):
                errors.append("qselect: illegal -r value")
            criteria.append(("Rerunable", "eq", "True" if value == "y" else "False"))
        elif letter in "apc":
            op, val = _op_value(value)
            name = {"a": "Execution_Time", "p": "Priority", "c": "Checkpoint"}[letter]
            criteria.append((name, op, val))
        elif letter == "l":
            try:
                criteria.extend(_resources(value))
            except ValueError:
                errors.append("qselect: illegal -l value\nresource_list: %s" % value)
        elif letter == "J":
            criteria.append(("array", "eq", "True"))
        elif letter == "x":
            extend += "x"
        elif letter in "tT":
            extend += "t" if "t" not in extend else ""
    return criteria, extend, errors


def body(argv: List[str]) -> int:
    if jobctl.wants_version(argv):
        return 0
    try:
        opts, operands = strict(argv, SPEC, "qselect", permute=True)
    except OptionError as err:
        return jobctl.usage(USAGE, messages=[err.message])
    criteria, extend, errors = _criteria(opts)
    if errors or operands:
        return jobctl.usage(USAGE, messages=errors)
    try:
        ids = common.request("selectjob", criteria=[list(c) for c in criteria], extend=extend)
    except PbsError as err:
        text = UNKQUE_DESTINATION if err.code == PBSE_UNKQUE else err.text
        sys.stderr.write("qselect: %s\n" % text)
        return err.exit_code
    sys.stdout.write("".join(str(jobid) + "\n" for jobid in ids))
    return 0


def main() -> None:
    common.run_main("qselect", body)
