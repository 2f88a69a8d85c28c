"""Who a job runs as: PBS's rules for ``User_List`` (``-u``) and ``group_list`` (``-W
group_list``), checked at submission and at qalter (OpenPBS server/geteusernam.c).

From each list PBS takes the entry whose ``@host`` the server host starts with, else the last
entry without a host.  The user must be the job's owner (mapping to another account needs
``.rhosts`` trust the fake does not model): anything else, or a name without a password entry,
is ``Bad UID for job execution`` (15023).  The group must exist and be the user's login group or
list the user as a member, else ``Bad GID for job execution`` (15045).  A valid group becomes the
job's execution group.
"""
import grp
import pwd
from typing import Any, Dict, Optional

from fake_pbs.model.errors import PBSE_BADGRP, PBSE_BADUSER, PbsError


def pick(entries: str, host: str) -> Optional[str]:
    """The name ``entries`` (``name[@host],...``) selects for ``host``, or None."""
    hit: Optional[str] = None
    for entry in entries.split(","):
        name, at, where = entry.strip().partition("@")
        if not name:
            continue
        if not at:
            hit = name
        elif where and host.lower().startswith(where.lower()):
            return name
    return hit


def apply(job: Dict[str, Any], owner: str, host: str) -> None:
    """Check ``job``'s User_List and group_list for ``owner``; set the execution group.

    Raises PbsError(15023) / PbsError(15045) as PBS does."""
    user = pick(str(job.get("User_List", "")), host) or owner
    if user != owner:
        raise PbsError(PBSE_BADUSER)
    group = pick(str(job.get("group_list", "")), host)
    if group is None:
        return
    try:
        entry = grp.getgrnam(group)
        login_gid = pwd.getpwnam(user).pw_gid
    except KeyError:
        raise PbsError(PBSE_BADGRP) from None
    if entry.gr_gid != login_gid and user not in entry.gr_mem:
        raise PbsError(PBSE_BADGRP)
    job["_gid"] = entry.gr_gid
    job["_group"] = entry.gr_name
