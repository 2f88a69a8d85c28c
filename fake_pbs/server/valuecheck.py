"""Value checks the server makes on client-supplied job attributes so that no value can break
what every user's ``qstat`` renders (issue 10), as PBS's server-side ECL checks do.

- ``Execution_Time`` (qsub/qalter ``-a``; the one time a client sets) is a long in PBS: a
  non-number is ``Illegal attribute or resource value`` (PBSE_BADATVAL, 15014).  The fake also
  refuses times ``ctime`` cannot show (past the year 9999), which made ``qstat -f`` raise.
- ``Job_Name`` passes ECL's check_job_name at queuejob and modifyjob (verify_value_jobname:
  a digit may come first there): control characters and the like are 15014, a name over 230
  characters is 15173.
- ``project`` (``-P``) is decoded by decode_project (attr_func.c): a name with any of
  ``/[]";:|<>+,?*`` (ETLIM_INVALIDCHAR, pbs_entlim.h) is 15014.  PBS accepts every other
  character, control characters included; the server's logs keep one record a line whatever
  they hold (fake_pbs/server/logs.py), as they do for ``Account_Name`` (``-A``, decode_str:
  anything goes).
- What PBS would act on and the fake does not (``Resource_List.min_walltime``,
  ``create_resv_from_job``, ...: model/unmodelled.py) is refused with 15029 rather than stored
  and ignored.
"""
import re
from typing import Mapping

from fake_pbs.model import ecl, unmodelled
from fake_pbs.model.errors import PBSE_BADATVAL, PbsError

_LONG = re.compile(r"^[+-]?\d{1,19}$")
# 31 Dec 9999 23:59:59 UTC: the last second ctime-style dates show with a four-digit year.
LATEST = 253402300799
EARLIEST = -(2 ** 31)
_PROJECT_REFUSED = frozenset('/[]";:|<>+,?*')


def check(attrs: Mapping[str, str]) -> None:
    for key, value in attrs.items():
        unmodelled.check_request(str(key), str(value))
    when = attrs.get("Execution_Time")
    if when is not None:
        text = str(when).strip()
        if not _LONG.match(text) or not EARLIEST <= int(text) <= LATEST:
            raise PbsError(PBSE_BADATVAL)
    project = attrs.get("project")
    if project is not None and _PROJECT_REFUSED.intersection(str(project).lstrip()):
        raise PbsError(PBSE_BADATVAL)
    name = attrs.get("Job_Name")
    if name is not None:
        ecl.check_job_name(str(name), digit_first=True)
