"""PBS's hook-file synchronisation to the moms: pending copy/delete actions and their log lines.

pbs_server keeps, per mom, a list of pending actions on mom hooks (hook_func.c
add_pending_mom_hook_action): send the hook's attributes (``NAME.HK``), its script (``.PY``) or
config (``.CF``), or delete it from the mom.  qmgr adds them when a hook with an execjob_* or
exechost_* event is created (``.HK``), imported (``.PY``/``.CF``), set or unset (``.HK``; plus
``.PY`` and ``.CF`` when the change made it a mom hook; a delete when it stopped being one) or
deleted.  The main loop sends every pending action in one batch when no earlier batch awaits
replies (next_sync_mom_hookfiles); each mom reply clears its action and logs
``successfully sent hook file <server_priv>/hooks/NAME.HK to vm:15002`` (0x0080, ``Req``,
object ``Server@host``), or ``successfully deleted hook file NAME.HK from vm:15002``.

While a mom has an action outstanding (pending or sent, not yet answered), a job run on one of
its vnodes logs ``vnode V's parent mom vm:15002 has a pending copy hook or delete hook request``
(node_manager.c set_nodes: 0x0080, ``Node``, object the job) just before the vnode turns
job-busy.  PBS runs the job all the same: the line is a warning (transcripts g11, master f13b).

The fake's moms read hooks from the server's store, so nothing is copied: the model only keeps
what the logs show.  The mom's reply comes after :data:`REPLY_DELAY` seconds (a batch at a
time, as PBS's replies_pending gate does).  A copy of a file the hook lacks (a script never
imported) is dropped without a line, as PBSD_copyhookfile's "no hook file" case.
"""
import threading
from typing import Any, Dict, List, Optional, Tuple

from fake_pbs.model.hooks import MOM_EVENTS

# MOM_HOOK_ACTION_* bits (hook.h)
SEND_ATTRS = 0x01
SEND_SCRIPT = 0x02
SEND_CONFIG = 0x04
DELETE = 0x08
_SENDS = SEND_ATTRS | SEND_SCRIPT | SEND_CONFIG
_SUFFIX = {SEND_ATTRS: ".HK", SEND_SCRIPT: ".PY", SEND_CONFIG: ".CF", DELETE: ".HK"}
_RECORD_KEY = {SEND_SCRIPT: "script", SEND_CONFIG: "config"}

#: Seconds from a batch's send to the mom's replies (their log lines).
REPLY_DELAY = 0.25
_DEBUG = 0x0080
_INSTANCES: Dict[int, "HookSync"] = {}
_INSTANCES_LOCK = threading.Lock()


class _Action:
    """One hook's outstanding actions on one mom (mom_hook_action_t)."""

    def __init__(self, hook: str, bits: int) -> None:
        self.hook = hook
        self.bits = bits
        self.delete_first = False
        # per bit, the add that last asked for it: a reply to an older send leaves a newer add
        self.serials: Dict[int, int] = {}


def is_mom_hook(record: Optional[Dict[str, Any]]) -> bool:
    return bool(record) and any(e in MOM_EVENTS for e in (record or {}).get("events", []))


def change_actions(before: Optional[Dict[str, Any]], after: Optional[Dict[str, Any]],
                   command: str) -> int:
    """The actions a qmgr hook command adds, as mgr_hook_create/set/unset/import/delete do."""
    was, now = is_mom_hook(before), is_mom_hook(after)
    if command == "create":
        return SEND_ATTRS if now else 0
    if command == "delete":
        return DELETE if was else 0
    if command == "import-script":
        return SEND_SCRIPT if now else 0
    if command == "import-config":
        return SEND_CONFIG if now else 0
    if now:
        return SEND_ATTRS | (0 if was else SEND_SCRIPT | SEND_CONFIG)
    return DELETE if was else 0


class HookSync:
    """The server's per-mom pending hook actions and its background send of them."""

    def __init__(self, app: Any, reply_delay: float = REPLY_DELAY) -> None:
        self.app = app
        self.reply_delay = reply_delay
        self._lock = threading.Lock()
        self._pending: Dict[str, List[_Action]] = {}
        self._serial = 0
        self._in_flight = False

    # -- what qmgr changed ---------------------------------------------------------------------
    def add(self, hook: str, bits: int) -> None:
        """Mark ``bits`` pending for ``hook`` on every mom, then send if no batch is out."""
        if not bits:
            return
        with self._lock:
            self._serial += 1
            for mom in self._moms():
                actions = self._pending.setdefault(mom, [])
                found = next((a for a in actions if a.hook == hook), None)
                if found is None:
                    found = _Action(hook, 0)
                    actions.append(found)
                if bits & DELETE:
                    # a delete added after sends runs after them; on its own, before new sends
                    found.delete_first = not found.bits & _SENDS
                found.bits |= bits
                for bit in (SEND_ATTRS, SEND_SCRIPT, SEND_CONFIG, DELETE):
                    if bits & bit:
                        found.serials[bit] = self._serial
        self._send_next()

    def pending_count(self, mom: str) -> int:
        """How many actions the mom has outstanding (sync_mom_hookfiles_count)."""
        with self._lock:
            return sum(bin(a.bits).count("1") for a in self._pending.get(mom, []))

    # -- the job-run warning -------------------------------------------------------------------
    def note_run(self, jobid: str, vnodes: List[str]) -> None:
        """Log PBS's warning for each vnode whose mom has actions outstanding."""
        nodes = self.app.state.nodes
        for vnode in vnodes:
            mom = mom_of(vnode, nodes.get(vnode) or {})
            if self.pending_count(mom):
                self.app.log.write(_DEBUG, "Node", jobid,
                                   "vnode %s's parent mom %s has a pending copy hook or delete"
                                   " hook request" % (vnode, mom))

    # -- sending ---------------------------------------------------------------------------------
    def _moms(self) -> List[str]:
        moms: List[str] = []
        for name, node in list(self.app.state.nodes.items()):
            mom = mom_of(name, node)
            if mom not in moms:
                moms.append(mom)
        return moms

    def _send_next(self) -> None:
        with self._lock:
            if self._in_flight:
                return
            batch = self._batch()
            if not batch:
                return
            self._in_flight = True
        timer = threading.Timer(self.reply_delay, self._replies, (batch,))
        timer.daemon = True
        timer.start()

    def _batch(self) -> List[Tuple[str, _Action, int, int]]:
        """(mom, action, bit, serial) in sync_mom_hookfilesTPP's order; drops what has no file."""
        records = self.app.state.objects.get("hook", {})
        batch = []
        for mom, actions in self._pending.items():
            for action in actions:
                record = records.get(action.hook)
                order = [DELETE] if action.delete_first else []
                order += [SEND_ATTRS, SEND_CONFIG, SEND_SCRIPT]
                order += [] if action.delete_first else [DELETE]
                for bit in order:
                    if not action.bits & bit:
                        continue
                    if bit & _SENDS and (not is_mom_hook(record) or (
                            bit in _RECORD_KEY and record.get(_RECORD_KEY[bit]) is None)):
                        action.bits &= ~bit
                        continue
                    batch.append((mom, action, bit, action.serials.get(bit, 0)))
        for actions in self._pending.values():
            actions[:] = [a for a in actions if a.bits]
        return batch

    def _replies(self, batch: List[Tuple[str, _Action, int, int]]) -> None:
        """The moms answered: clear each action (unless re-added since) and log it."""
        if self.app.stopping.is_set():
            return
        self._deliver(batch)
        hooks_dir = self.app.home / "server_priv" / "hooks"
        lines = []
        with self._lock:
            for mom, action, bit, serial in batch:
                if action.serials.get(bit, 0) == serial:
                    action.bits &= ~bit
                name = action.hook + _SUFFIX[bit]
                if bit == DELETE:
                    lines.append("successfully deleted hook file %s from %s" % (name, mom))
                else:
                    lines.append("successfully sent hook file %s/%s to %s"
                                 % (hooks_dir, name, mom))
            for actions in self._pending.values():
                actions[:] = [a for a in actions if a.bits]
            self._in_flight = False
        who = "Server@%s" % self.app.server_name
        for line in lines:
            self.app.log.write(_DEBUG, "Req", who, line)
        self._send_next()

    def _deliver(self, batch: List[Tuple[str, _Action, int, int]]) -> None:
        """Tell each mom what it receives: it logs ``copy hook-related file request received``
        (``delete ...`` for a delete) on the file's name (process_request.c; m04f, m05e)."""
        execs = getattr(self.app, "execs", None)
        if execs is None:
            return
        for mom, action, bit, _ in batch:
            try:
                execs.request(mom.rsplit(":", 1)[0], "hookfile", name=action.hook + _SUFFIX[bit],
                              delete=bit == DELETE)
            except Exception:  # a mom that is away gets the files at its restart in PBS
                continue


def mom_of(vnode: str, node: Dict[str, Any]) -> str:
    """``host:port`` of the vnode's parent mom, as PBS names it in these lines."""
    return "%s:%s" % (node.get("Mom") or vnode, node.get("Port") or "15002")


def of(app: Any) -> HookSync:
    """The server's one HookSync (made on first use)."""
    with _INSTANCES_LOCK:
        sync = _INSTANCES.get(id(app))
        if sync is None or sync.app is not app:
            sync = _INSTANCES[id(app)] = HookSync(app)
        return sync
