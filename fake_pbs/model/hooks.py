"""Hooks as PBS defines them: events, attributes, defaults and the validation qmgr meets.

Pure data and rules (no I/O).  A hook is kept as a :class:`Hook`; ``set``/``unset`` go through
:func:`set_hook_attr` / :func:`unset_hook_attr`, which raise :class:`PbsError` with
``PBSE_HOOKERROR`` and PBS's exact text (qmgr prints ``qmgr: hook error returned from server``).
"""
from typing import Any, Dict, List, Optional

from fake_pbs.model.errors import PBSE_HOOKERROR, PBSE_NOATTR, PbsError, detail

# Event bits (hook.h); pbs.<NAME> in hooks carries the same values.
EVENT_BITS: Dict[str, int] = {
    "queuejob": 0x01, "modifyjob": 0x02, "resvsub": 0x04, "movejob": 0x08, "runjob": 0x10,
    "provision": 0x20, "execjob_begin": 0x40, "execjob_prologue": 0x80,
    "execjob_epilogue": 0x100, "execjob_end": 0x200, "execjob_preterm": 0x400,
    "execjob_launch": 0x800, "exechost_periodic": 0x1000, "exechost_startup": 0x2000,
    "execjob_attach": 0x4000, "periodic": 0x8000, "resv_end": 0x10000,
    "execjob_resize": 0x20000, "execjob_abort": 0x40000, "execjob_postsuspend": 0x80000,
    "execjob_preresume": 0x100000, "management": 0x200000, "modifyvnode": 0x400000,
    "jobobit": 0x800000, "resv_begin": 0x1000000, "resv_confirm": 0x2000000,
    "modifyresv": 0x4000000, "postqueuejob": 0x8000000,
}

# The order in which ``list hook`` shows a hook's events (fixed, whatever order they were set in).
EVENT_DISPLAY_ORDER = (
    "queuejob postqueuejob modifyjob resvsub modifyresv movejob runjob jobobit management "
    "modifyvnode periodic provision resv_confirm resv_begin resv_end execjob_begin "
    "execjob_prologue execjob_epilogue execjob_end execjob_preterm execjob_launch execjob_attach "
    "execjob_resize execjob_abort execjob_postsuspend execjob_preresume exechost_periodic "
    "exechost_startup"
).split()

# The order of the list inside the "invalid argument" message (differs from the display order).
_EVENT_MESSAGE_ORDER = (
    "queuejob,postqueuejob,modifyjob,modifyvnode,management,resvsub,modifyresv,movejob,jobobit,"
    "runjob,provision,periodic,resv_confirm,resv_begin,resv_end,execjob_begin,execjob_prologue,"
    "execjob_epilogue,execjob_preterm,execjob_end,exechost_periodic,execjob_launch,"
    "exechost_startup,execjob_attach,execjob_resize,execjob_abort,execjob_postsuspend,"
    "execjob_preresume"
)

MOM_EVENTS = frozenset((
    "execjob_begin", "execjob_prologue", "execjob_epilogue", "execjob_end", "execjob_preterm",
    "exechost_periodic", "execjob_launch", "exechost_startup", "execjob_attach",
    "execjob_resize", "execjob_abort", "execjob_postsuspend", "execjob_preresume",
))
USER_MOM_EVENTS = frozenset(("execjob_prologue", "execjob_epilogue", "execjob_preterm"))
FAIL_ACTION_EVENTS = frozenset(("execjob_begin", "exechost_startup", "execjob_prologue"))
PERIODIC_EVENTS = frozenset(("periodic", "exechost_periodic"))
FAIL_ACTIONS = ("offline_vnodes", "clear_vnodes_upon_recovery", "scheduler_restart_cycle")

# Attribute order of ``list hook`` / ``print hook``.
HOOK_ATTRS = ("type", "enabled", "event", "user", "alarm", "freq", "order", "debug",
              "fail_action")

DEFAULTS: Dict[str, Any] = {
    "type": "site", "enabled": True, "events": [], "user": "pbsadmin", "alarm": 30,
    "freq": 120, "order": 1, "debug": False, "fail_action": [],
}

CONTENT_PYTHON = "application/x-python"
CONTENT_CONFIG = "application/x-config"

_TRUE = ("true", "t", "y", "1")
_FALSE = ("false", "f", "n", "0")


def hook_error(text: str) -> PbsError:
    return PbsError(PBSE_HOOKERROR, text)


class Hook:
    """One hook's definition: attributes, and the script and config contents (text or None)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.type: str = DEFAULTS["type"]
        self.enabled: bool = DEFAULTS["enabled"]
        self.events: List[str] = []
        self.user: str = DEFAULTS["user"]
        self.alarm: int = DEFAULTS["alarm"]
        self.freq: int = DEFAULTS["freq"]
        self.order: int = DEFAULTS["order"]
        self.debug: bool = DEFAULTS["debug"]
        self.fail_action: List[str] = []
        self.script: Optional[str] = None
        self.config: Optional[str] = None

    # -- persistence -------------------------------------------------------------------------
    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "type": self.type, "enabled": self.enabled,
                "events": list(self.events), "user": self.user, "alarm": self.alarm,
                "freq": self.freq, "order": self.order, "debug": self.debug,
                "fail_action": list(self.fail_action), "script": self.script,
                "config": self.config}

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "Hook":
        hook = cls(str(data["name"]))
        for key in ("type", "enabled", "user", "alarm", "freq", "order", "debug", "script",
                    "config"):
            if key in data:
                setattr(hook, key, data[key])
        hook.events = list(data.get("events", []))
        hook.fail_action = list(data.get("fail_action", []))
        return hook

    def copy(self) -> "Hook":
        return Hook.from_dict(self.to_dict())

    # -- views -------------------------------------------------------------------------------
    def has_event(self, event: str) -> bool:
        return event in self.events

    def is_periodic(self) -> bool:
        return any(e in PERIODIC_EVENTS for e in self.events)

    def attr_pairs(self) -> List[List[str]]:
        """``[name, value]`` in ``list hook`` order, values as qmgr shows them."""
        pairs = [["type", self.type], ["enabled", _bool_text(self.enabled)],
                 ["event", ",".join(self.events) if self.events else '""'],
                 ["user", self.user], ["alarm", str(self.alarm)]]
        if self.is_periodic():
            pairs.append(["freq", str(self.freq)])
        pairs += [["order", str(self.order)], ["debug", _bool_text(self.debug)],
                  ["fail_action", ",".join(self.fail_action) if self.fail_action else "none"]]
        return pairs


def _bool_text(value: bool) -> str:
    return "true" if value else "false"


def sort_events(events: List[str]) -> List[str]:
    wanted = set(events)
    return [e for e in EVENT_DISPLAY_ORDER if e in wanted]


def _parse_bool(value: str) -> bool:
    low = value.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise hook_error("unexpected value '%s', must be (not case sensitive) "
                     "true|t|y|1|false|f|n|0" % value)


def _parse_events(value: str) -> List[str]:
    text = value.strip()
    if text in ('""', "''", ""):
        return []
    names = [part.strip() for part in text.split(",")]
    for name in names:
        if name not in EVENT_BITS:
            raise hook_error('invalid argument (%s) to event. Should be one or more of: %s or "" '
                             "for no event" % (value, _EVENT_MESSAGE_ORDER))
    return names


def _parse_int(value: str) -> Optional[int]:
    try:
        return int(value.strip(), 10)
    except ValueError:
        return None


def _apply_list(current: List[str], new: List[str], op: str) -> List[str]:
    if op == "=":
        return list(dict.fromkeys(new))
    if op == "+=":
        return list(dict.fromkeys(current + new))
    return [item for item in current if item not in new]


def _check_fail_action(hook: Hook, actions: List[str]) -> None:
    for action in actions:
        if action == "offline_vnodes" and not any(e in FAIL_ACTION_EVENTS for e in hook.events):
            raise hook_error("Can't set hook fail_action value to 'offline_vnodes': hook event "
                             "must contain at least one of execjob_begin, exechost_startup, "
                             "execjob_prologue")
        if action == "clear_vnodes_upon_recovery" and not hook.has_event("exechost_startup"):
            raise hook_error("Can't set hook fail_action value to 'clear_vnodes_upon_recovery': "
                             "hook event must contain at least exechost_startup")
        if action == "scheduler_restart_cycle" and not hook.has_event("execjob_begin"):
            raise hook_error("Can't set hook fail_action value to 'scheduler_restart_cycle': "
                             "hook event must contain execjob_begin")


def _set_events(hook: Hook, value: str, op: str) -> None:
    names = _parse_events(value)
    events = sort_events(_apply_list(hook.events, names, op))
    if "provision" in events and len(events) > 1:
        raise hook_error("Event provision is exclusive with other events, and only one "
                         "provision hook allowed")
    hook.events = events
    # As PBS does: dependent attributes fall back when their events are gone.
    if not any(e in USER_MOM_EVENTS for e in events):
        hook.user = "pbsadmin"
    if not any(e in FAIL_ACTION_EVENTS for e in events):
        hook.fail_action = []


def _set_fail_action(hook: Hook, value: str, op: str) -> None:
    names = [part.strip() for part in value.strip().split(",") if part.strip()]
    if names == ["none"]:
        if op != "-=":
            hook.fail_action = []
        return
    for name in names:
        if name not in FAIL_ACTIONS:
            raise hook_error('fail_action value of a hook must be "none" or one or more of '
                             '"offline_vnodes","clear_vnodes_upon_recovery", '
                             '"scheduler_restart_cycle"')
    _check_fail_action(hook, names)
    hook.fail_action = [a for a in FAIL_ACTIONS if a in _apply_list(hook.fail_action, names, op)]


def _set_scalar(hook: Hook, name: str, value: str) -> None:
    if name in ("enabled", "debug"):
        setattr(hook, name, _parse_bool(value))
    elif name == "alarm":
        number = _parse_int(value)
        if number is None or number <= 0:
            raise hook_error("set_hook_alarm: alarm value '%s' of a hook must be > 0" % value)
        hook.alarm = number
    elif name == "freq":
        if not hook.is_periodic():
            raise hook_error("set_hook_freq: Can't set hook freq value: hook event must contain "
                             "at least'exechost_periodic' or 'periodic'")
        number = _parse_int(value)
        if number is None or number <= 0:
            raise hook_error("set_hook_freq: freq value '%s' of a hook must be > 0" % value)
        hook.freq = number
    elif name == "order":
        number = _parse_int(value)
        low, high = (1, 1000) if hook.type == "site" else (-1000, 2000)
        if number is None or not low <= number <= high:
            raise hook_error("order given (%s) is outside the acceptable range of [%d, %d] for "
                             "type '%s'." % (value, low, high, hook.type))
        hook.order = number
    elif name == "user":
        if value not in ("pbsadmin", "pbsuser"):
            raise hook_error("user value of a hook must be pbsadmin,pbsuser")
        if value == "pbsuser" and not any(e in USER_MOM_EVENTS for e in hook.events):
            raise hook_error("Can't set hook user value to 'pbsuser': hook event must contain "
                             "at least execjob_prologue,execjob_epilogue,execjob_preterm")
        hook.user = value
    elif name == "type":
        if value != "site":
            raise hook_error("type value of a hook must be site")
        hook.type = value


def set_hook_attr(hook: Hook, name: str, op: str, value: str) -> None:
    """Apply ``name op value`` to ``hook`` as ``qmgr set hook`` does (raises on bad input)."""
    if name not in HOOK_ATTRS:
        raise hook_error(detail(PBSE_NOATTR, name, " - "))
    if name == "event":
        _set_events(hook, value, op)
    elif name == "fail_action":
        _set_fail_action(hook, value, op)
    elif op != "=":
        raise hook_error("'%s' operator not =" % name)
    else:
        _set_scalar(hook, name, value)


def unset_hook_attr(hook: Hook, name: str) -> None:
    """Restore one attribute's default (``qmgr unset hook H attr``)."""
    if name not in HOOK_ATTRS:
        raise hook_error(detail(PBSE_NOATTR, name, " - "))
    if name == "event":
        _set_events(hook, '""', "=")
    elif name == "fail_action":
        hook.fail_action = []
    else:
        setattr(hook, name, DEFAULTS[name])


def ordered_hooks(hooks: List[Hook], event: str) -> List[Hook]:
    """The enabled hooks of ``event`` in run order: ascending ``order``, then creation order."""
    chosen = [h for h in hooks if h.enabled and h.has_event(event)]
    return sorted(chosen, key=lambda h: h.order)  # sorted() is stable: ties keep creation order
