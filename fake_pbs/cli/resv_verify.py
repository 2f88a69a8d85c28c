"""The client-side attribute checks of a reservation request (OpenPBS ``pbs_verify_attributes``
from ``pbs_submit_resv``/``pbs_modify_resv``: the ECL table of ``master_resv_attr_def.xml``).

:func:`first_error` gives the first attribute (in the order the options set them) whose value
the ECL refuses, and the error; pbs_rsub and pbs_ralter turn it into their messages
(``handle_attribute_errors``).
"""
from __future__ import annotations

from fake_pbs.model import ecl
from fake_pbs.model import resources as rdefs
from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_JOBNBIG, PbsError, detail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict, Mapping, Optional, Tuple


def _name(value: str) -> str:
    # verify_value_jobname: a reservation's name may start with a digit (SubmitResv, ModifyResv)
    if not value:
        raise PbsError(PBSE_BADATVAL)
    return ecl.check_job_name(value, digit_first=True)


def _groups(value: str) -> str:
    # verify_value_authorized_groups: empty unsets
    return value if not value else ecl.check_at_list(value)


def _user_list(value: str) -> str:
    return ecl.check_at_list(value, unique_hosts=True)


CHECKS: Dict[str, Callable[[str], str]] = {
    "Reserve_Name": _name,
    "reserve_duration": lambda v: str(ecl.parse_time(v)),
    "User_List": _user_list,
    "group_list": _user_list,
    "Authorized_Users": ecl.check_at_list,
    "Authorized_Groups": _groups,
    "Mail_Points": ecl.check_mail_points,
    "Mail_Users": ecl.check_at_list,
}


def first_error(attrs: Mapping[str, str]) -> Optional[Tuple[str, PbsError]]:
    """The first attribute the ECL refuses and its error (resource values: PBS's
    ``Illegal attribute or resource value Resource_List.<name>``), or None."""
    for name, value in attrs.items():
        try:
            if name.startswith("Resource_List."):
                defn = rdefs.lookup(name[len("Resource_List."):])
                if defn is not None and value:
                    try:
                        ecl.verify_resource(defn, value)
                    except PbsError:
                        raise PbsError(PBSE_BADATVAL, detail(PBSE_BADATVAL, name)) from None
            elif name in CHECKS:
                CHECKS[name](value)
        except PbsError as err:
            return name, err
    return None


def report(cmd: str, attrs: Mapping[str, str], letters: Mapping[str, str], usage: str,
           long_name: bool) -> Optional[Tuple[str, int]]:
    """``handle_attribute_errors`` of pbs_rsub.c/pbs_ralter.c for :func:`first_error`: the
    stderr text and exit status, or None.  An attribute with an option letter is ``illegal -X
    value`` and the usage (exit 2); with ``long_name`` (pbs_rsub) a name over 230 characters is
    ``Reservation name is too long``; anything else (a resource) is the error's own text and
    code."""
    found = first_error(attrs)
    if found is None:
        return None
    name, err = found
    if name in letters:
        if long_name and err.code == PBSE_JOBNBIG:
            return "%s: Reservation %s \n" % (cmd, err.text), 2
        return "%s: illegal -%s value\n%s" % (cmd, letters[name], usage), 2
    return "%s: %s\n" % (cmd, err.text), err.exit_code
