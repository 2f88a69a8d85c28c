"""The request-handler registry: ``@handler("op")`` binds a function to a request op.

A handler receives the :class:`Context` (server app and caller identity) and the request dict,
runs with the model lock held, returns the reply's ``data`` and raises ``PbsError`` on failure.
"""
from typing import Any, Callable, Dict, Optional, Set, TYPE_CHECKING

from fake_pbs.model.errors import PBSE_PROTOCOL, PBSE_UNKREQ, PbsError
from fake_pbs.protocol import Message, ok
from fake_pbs.server import privilege
from fake_pbs.server.reqlog import ConnectionLog

if TYPE_CHECKING:  # pragma: no cover
    from fake_pbs.server.app import ServerApp


class Caller:
    """Who sent a request: from SO_PEERCRED; ``host`` is the server host (local sockets).

    The privilege is the request's, not the connection's: :func:`dispatch` grants it afresh
    before every handler from the server's lists as they are then (fake_pbs/server/privilege.py).
    """

    def __init__(self, uid: int, gid: int, pid: int, user: str, host: str,
                 manager: bool = False, operator: bool = False) -> None:
        self.uid, self.gid, self.pid = uid, gid, pid
        self.user, self.host = user, host
        self.manager = self.operator = False
        self.grant(manager, operator)

    def grant(self, manager: bool, operator: bool) -> None:
        """``manager``: PBS's manager or operator privilege over jobs (any job, qrun, holds);
        ``operator``: that privilege comes from the operators list only (qmgr is limited)."""
        self.manager = manager or operator
        self.operator = operator and not manager

    @property
    def name(self) -> str:
        """``user@host`` as PBS logs requestors."""
        return "%s@%s" % (self.user, self.host)


class Context:
    """One client connection: the server, who called, and (``sock`` >= 0, a real socket) the
    log of its request lines (``Type N request received ...``, fake_pbs/server/reqlog.py)."""

    def __init__(self, app: "ServerApp", caller: Caller, sock: int = -1) -> None:
        self.app = app
        self.caller = caller
        self.op = ""  # the request being served (dispatch sets it)
        self.requests: Optional[ConnectionLog] = (
            ConnectionLog(app.log, caller.name, sock) if sock >= 0 else None)


Handler = Callable[[Context, Dict[str, Any]], Any]

_HANDLERS: Dict[str, Handler] = {}

#: Ops whose handler runs without the model lock (they take it themselves, e.g. to wait).
UNLOCKED: Set[str] = set()


def handler(op: str, locked: bool = True) -> Callable[[Handler], Handler]:
    """Register ``fn`` as the handler of ``op`` (a later registration replaces an earlier one)."""
    def register(fn: Handler) -> Handler:
        _HANDLERS[op] = fn
        if locked:
            UNLOCKED.discard(op)
        else:
            UNLOCKED.add(op)
        return fn
    return register


def registered() -> Dict[str, Handler]:
    return dict(_HANDLERS)


def dispatch(ctx: Context, request: Dict[str, Any]) -> Message:
    """Run the handler of ``request["op"]`` and build the reply message."""
    op = request.get("op")
    if not isinstance(op, str):
        return PbsError(PBSE_PROTOCOL).to_wire()
    fn = _HANDLERS.get(op)
    if fn is None:
        return PbsError(PBSE_UNKREQ).to_wire()
    ctx.op = op
    if ctx.requests is not None:
        ctx.requests.request(op)
    try:
        with ctx.app.state.lock:
            # PBS decides the requester's privilege for each request (svr_get_privilege), and
            # its server ACL refuses the request before any handler looks at it.
            ctx.caller.grant(*privilege.admit(ctx.app, ctx.caller.uid, ctx.caller.user,
                                              acl_applies=op != "ping"))
            if op not in UNLOCKED:
                return ok(fn(ctx, request))
        return ok(fn(ctx, request))
    except PbsError as err:
        return err.to_wire()
