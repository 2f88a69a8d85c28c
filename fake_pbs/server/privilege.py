"""A requester's privilege and the server's own ACL, decided afresh for every request.

PBS computes ``rq_perm`` for each batch request it reads (process_request.c ->
svr_get_privilege) from the server's ``managers`` and ``operators`` as they are at that moment,
and checks the server's ``acl_users`` there too (svr_chk_owner.c authenticate_user): a user
removed from a list loses its rights on the next request, whatever connection it comes on.
:func:`admit` is that step; the request dispatcher (handlers/registry.py) runs it before every
handler, so no handler sees a privilege older than its own request.
"""
import pwd
from typing import TYPE_CHECKING, Tuple

from fake_pbs.model import acl
from fake_pbs.model.attrs import is_true
from fake_pbs.model.errors import PBSE_PERM, PbsError

if TYPE_CHECKING:  # pragma: no cover
    from fake_pbs.server.app import ServerApp


def levels(app: "ServerApp", uid: int, user: str) -> Tuple[bool, bool]:
    """(manager, operator) of ``user`` (uid ``uid``) on the server's host, now.

    Root and the user who started the cluster are always managers (PBS_ROOT_ALWAYS_ADMIN, and
    the private cluster's owner); otherwise the lists decide, matched as PBS matches user ACLs
    (``user@host``, ``user@*``, ``user@*.domain``)."""
    server = app.state.server
    who = "%s@%s" % (user, app.host)
    manager = uid == 0 or uid == app.owner_uid or _listed(server.get("managers"), who, app.host)
    operator = not manager and _listed(server.get("operators"), who, app.host)
    return manager, operator


def levels_of_uid(app: "ServerApp", uid: int) -> Tuple[bool, bool]:
    try:
        user = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = "#%d" % uid
    return levels(app, uid, user)


def _listed(entries: object, who: str, host: str) -> bool:
    return bool(entries) and acl.check(str(entries), who, acl.USER, host)


def server_acl_admits(app: "ServerApp", user: str, privileged: bool) -> bool:
    """The server's user ACL (authenticate_user): with ``acl_user_enable`` set, a user who is
    neither listed in ``acl_users`` nor a manager or operator may send no request."""
    server = app.state.server
    if privileged or not is_true(server.get("acl_user_enable")):
        return True
    return acl.check(str(server.get("acl_users") or ""), "%s@%s" % (user, app.host), acl.USER,
                     app.host)


def admit(app: "ServerApp", uid: int, user: str, acl_applies: bool = True) -> Tuple[bool, bool]:
    """The privilege of one request, or PBSE_PERM when the server's ACL refuses its user
    (``acl_applies`` False: a liveness ping, which PBS's connect step answers to anyone)."""
    manager, operator = levels(app, uid, user)
    if acl_applies and not server_acl_admits(app, user, manager or operator):
        raise PbsError(PBSE_PERM)
    return manager, operator
