"""The ``pbs`` module that site hooks import (a stand-in for PBS's ``pbs.v1``).

Only the hook runner's child process imports it: :func:`_setup` loads the event from the runner's
input, and the child writes back what the hook decided (``_outcome``).  Event and log constants
have PBS's numeric values (reference section 6.1).
"""
import json
import os
import time
from typing import Any, Dict, List, Optional

# -- event types ------------------------------------------------------------------------------
QUEUEJOB = 0x01
MODIFYJOB = 0x02
RESVSUB = 0x04
MOVEJOB = 0x08
RUNJOB = 0x10
PROVISION = 0x20
EXECJOB_BEGIN = 0x40
EXECJOB_PROLOGUE = 0x80
EXECJOB_EPILOGUE = 0x100
EXECJOB_END = 0x200
EXECJOB_PRETERM = 0x400
EXECJOB_LAUNCH = 0x800
EXECHOST_PERIODIC = 0x1000
EXECHOST_STARTUP = 0x2000
EXECJOB_ATTACH = 0x4000
PERIODIC = 0x8000
RESV_END = 0x10000
EXECJOB_RESIZE = 0x20000
EXECJOB_ABORT = 0x40000
EXECJOB_POSTSUSPEND = 0x80000
EXECJOB_PRERESUME = 0x100000
MANAGEMENT = 0x200000
MODIFYVNODE = 0x400000
JOBOBIT = 0x800000
RESV_BEGIN = 0x1000000
RESV_CONFIRM = 0x2000000
MODIFYRESV = 0x4000000
POSTQUEUEJOB = 0x8000000
for _name, _value in list(globals().items()):
    if _name.isupper() and isinstance(_value, int):
        globals()["HOOK_EVENT_" + _name] = _value

# -- log levels and event classes ---------------------------------------------------------------
LOG_DEBUG = 5
LOG_WARNING = 6
LOG_ERROR = 7
EVENT_ERROR = 0x1
EVENT_SYSTEM = 0x2
EVENT_ADMIN = 0x4
EVENT_JOB = 0x8
EVENT_JOB_USAGE = 0x10
EVENT_SECURITY = 0x20
EVENT_SCHED = 0x40
EVENT_DEBUG = 0x80
EVENT_DEBUG2 = 0x100
EVENT_RESV = 0x200
EVENT_DEBUG3 = 0x400
EVENT_DEBUG4 = 0x800
EVENT_FORCE = 0x8000

_EVENT_MASK = 0x8FFF


class BadAttributeValueError(Exception):
    pass


class UnsetAttributeNameError(Exception):
    pass


class EventIncompatibleError(Exception):
    pass


# -- values ---------------------------------------------------------------------------------------
class duration(str):
    """A PBS time value, kept as ``HH:MM:SS``."""

    def __new__(cls, value: Any) -> "duration":
        text = str(value)
        if text.isdigit():
            seconds = int(text)
        else:
            seconds = 0
            for part in text.split(":"):
                seconds = seconds * 60 + int(float(part))
        text = "%02d:%02d:%02d" % (seconds // 3600, seconds // 60 % 60, seconds % 60)
        return str.__new__(cls, text)


class size(str):
    """A PBS size value (``1gb``, ``512mb``)."""

    def __new__(cls, value: Any) -> "size":
        text = str(value).lower()
        return str.__new__(cls, text if text[-1:] == "b" else text + "b")


def _typed(value: Optional[str]) -> Any:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return value


class pbs_resource:
    """A resource list (``job.Resource_List``): item access by resource name."""

    def __init__(self, owner: "_Object", prefix: str) -> None:
        self._owner = owner
        self._prefix = prefix

    def __getitem__(self, name: str) -> Any:
        return _typed(self._owner._attrs.get("%s.%s" % (self._prefix, name)))

    def __setitem__(self, name: str, value: Any) -> None:
        self._owner._set("%s.%s" % (self._prefix, name), value)

    def keys(self) -> List[str]:
        start = self._prefix + "."
        return [k[len(start):] for k in self._owner._attrs if k.startswith(start)]

    def __contains__(self, name: str) -> bool:
        return "%s.%s" % (self._prefix, name) in self._owner._attrs

    def __str__(self) -> str:
        return ",".join("%s=%s" % (k, self[k]) for k in self.keys())


_CONTAINERS = ("Resource_List", "resources_used", "resources_available", "resources_assigned")


class _Object:
    """A job or vnode: attributes read as PBS values; writes are recorded for the runner."""

    def __init__(self, attrs: Dict[str, str], changes: Dict[str, str]) -> None:
        object.__setattr__(self, "_attrs", dict(attrs))
        object.__setattr__(self, "_changes", changes)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _CONTAINERS:
            return pbs_resource(self, name)
        return _typed(self._attrs.get(name))

    def __setattr__(self, name: str, value: Any) -> None:
        self._set(name, value)

    def _set(self, name: str, value: Any) -> None:
        text = "" if value is None else str(value)
        if isinstance(value, bool):
            text = "True" if value else "False"
        self._attrs[name] = text
        self._changes[name] = text


class job(_Object):
    def rerun(self) -> None:
        _require_mom("rerun")
        _outcome["rerun"] = True

    def delete(self) -> None:
        _require_mom("delete")
        _outcome["delete"] = True

    def in_ms_mom(self) -> bool:
        return bool(_spec.get("in_ms_mom", True))

    def is_checkpointed(self) -> bool:
        return False

    def stdout_file(self) -> Optional[str]:
        return _path_of(self._attrs.get("Output_Path"))

    def stderr_file(self) -> Optional[str]:
        return _path_of(self._attrs.get("Error_Path"))

    def __str__(self) -> str:
        return str(self._attrs.get("id", ""))


class resv(_Object):
    """``pbs.event().resv`` of the resvsub, resv_confirm, resv_begin and resv_end events."""

    def __str__(self) -> str:
        return str(self._attrs.get("resvid", ""))


class vnode(_Object):
    def __str__(self) -> str:
        return str(self._attrs.get("name", ""))


def _path_of(value: Optional[str]) -> Optional[str]:
    return value.split(":", 1)[-1] if value else None


def _require_mom(what: str) -> None:
    if _spec.get("side") != "mom":
        raise NotImplementedError("%s(): only for mom hooks" % what)


class event:
    """``pbs.event()``: the one event this hook run serves."""

    _instance: Optional["event"] = None

    def __new__(cls) -> "event":
        if cls._instance is None:
            cls._instance = object.__new__(cls)
            cls._instance._init()
        return cls._instance

    def _init(self) -> None:
        self.type = int(_spec.get("event_type", 0))
        self.hook_name = str(_spec.get("hook_name", ""))
        self.hook_type = "site"
        self.requestor = str(_spec.get("requestor", ""))
        self.requestor_host = str(_spec.get("requestor_host", ""))
        self.freq = _spec.get("freq")
        job_attrs = _spec.get("job")
        self.job = job(job_attrs, _outcome["job_changes"]) if job_attrs is not None else None
        resv_attrs = _spec.get("resv")
        self.resv = resv(resv_attrs, _outcome["job_changes"]) if resv_attrs is not None else None
        self.vnode_list: Dict[str, vnode] = {}
        for name, attrs in (_spec.get("vnode_list") or {}).items():
            changes = _outcome["vnode_changes"].setdefault(name, {})
            self.vnode_list[name] = vnode(dict(attrs, name=name), changes)
        self.vnode_list_fail: Dict[str, vnode] = {}
        launch = _spec.get("launch") or {}
        self.progname = launch.get("progname")
        self.argv = list(launch.get("argv") or [])
        self.env = dict(launch.get("env") or {})
        self.pid = _spec.get("pid")

    def accept(self, ecode: int = 0) -> None:
        _outcome["result"] = "accept"
        raise SystemExit(0)

    def reject(self, msg: str = "", ecode: int = 255) -> None:
        _outcome["result"] = "reject"
        _outcome["message"] = "" if msg is None else str(msg)
        raise SystemExit(0)


class server:
    """``pbs.server()``: the server's name and attributes as the runner passed them."""

    def __init__(self) -> None:
        info = _spec.get("server") or {}
        self.name = str(info.get("name", ""))
        self._attrs = dict(info.get("attrs") or {})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return _typed(self._attrs.get(name))

    def __str__(self) -> str:
        return self.name


def get_local_nodename() -> str:
    return str(_spec.get("local_node", ""))


def reboot(cmd: str = "") -> None:
    _require_mom("reboot")
    _outcome["reboot"] = True


def _write_log(eventtype: int, cls: str, obj: str, msg: str) -> None:
    path = _spec.get("log_file")
    inherited = int(_spec.get("log_fd", -1))
    if not path and inherited < 0:
        return
    stamp = time.strftime("%m/%d/%Y %H:%M:%S", time.localtime())
    daemon = str(_spec.get("daemon", "pbs_python"))
    line = "%s;%04x;%s;%s;%s;%s\n" % (stamp, eventtype & 0x7FFF, daemon, cls, obj, msg)
    if inherited >= 0:  # a hook run as the job's owner: the daemon opened its log for it
        os.write(inherited, line.encode("utf-8", "surrogateescape"))
        return
    fd = os.open(str(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("utf-8", "surrogateescape"))
    finally:
        os.close(fd)


def logmsg(level: int, msg: str) -> None:
    """Log ``msg`` as PBS does: LOG_* levels at 0x0006, EVENT_* classes as themselves."""
    if level in (LOG_DEBUG, LOG_WARNING, LOG_ERROR):
        eventtype = EVENT_ADMIN | EVENT_SYSTEM
    elif isinstance(level, int) and level and not level & ~_EVENT_MASK:
        eventtype = level
    else:
        raise TypeError("Invalid severity or eventtype value %s" % level)
    daemon = str(_spec.get("daemon", "pbs_python"))
    _write_log(eventtype, "Hook", daemon, str(msg))


def logjobmsg(jobid: str, msg: str) -> None:
    _write_log(EVENT_JOB, "Job", str(jobid), str(msg))


hook_config_filename: Optional[str] = None
_spec: Dict[str, Any] = {}
_outcome: Dict[str, Any] = {"result": None, "message": None, "rerun": False, "delete": False,
                            "job_changes": {}, "vnode_changes": {}}


def _setup(spec_path: str) -> None:
    global hook_config_filename
    with open(spec_path, encoding="utf-8", errors="surrogateescape") as stream:
        _spec.update(json.load(stream))
    hook_config_filename = _spec.get("config_file")
