"""The server side of qmgr: the ``manager``, ``hookio``, ``statsched``, ``stathook`` and
``statrsc`` requests (docs/internals.md section 3), as pure functions over :class:`Managed`.

The server daemon owns persistence: it hands its configuration objects in a :class:`Managed`,
calls :func:`handle`, then commits what :class:`Outcome` says changed, writes its log records and,
when asked, runs a scheduling cycle.  Nothing here does I/O, reads clocks or logs by itself.
"""
import base64
import binascii
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from fake_pbs.model import ecl, formula, qmgr_attrs, unmodelled
from fake_pbs.model import resources as rdefs
from fake_pbs.model.errors import (PBSE_ATTRRO, PBSE_ATTRTYPE, PBSE_BADATVAL, PBSE_DUPLIST,
                                   PBSE_HOOKERROR,
                                   PBSE_INTERNAL, PBSE_IVALREQ, PBSE_MIXENTLIMS, PBSE_NOATTR,
                                   PBSE_NODEEXIST,
                                   PBSE_NOSUP, PBSE_OBJBUSY, PBSE_PERM, PBSE_QUEEXIST,
                                   PBSE_RESCBUSY, PBSE_SVR_SCHED_JSF_INCOMPAT, PBSE_UNKNODE,
                                   PBSE_UNKQUE, PBSE_UNKRESC, PBSE_UNKSCHED,
                                   PbsError, detail, message_for)
from fake_pbs.model.hooks import (CONTENT_CONFIG, CONTENT_PYTHON, Hook, hook_error,
                                  set_hook_attr, unset_hook_attr)
from fake_pbs.server import defaults

AttrDict = Dict[str, str]
LogRecord = Tuple[int, str, str, str]  # (event type, class, object, message)

# Resources every server knows (model/resources.py, PBS's master_resc_def_all.xml); sites add
# more with ``create resource`` (ngpus is one of those: case n02).
BUILTIN_RESOURCES = frozenset(rdefs.BUILTIN)
RESOURCE_TYPES = ("string", "long", "float", "boolean", "size", "string_array")
_LOG_ADMIN = 0x0004


class Caller:
    """Who sent the request: ``user@host`` and whether the server counts them as a manager."""

    def __init__(self, user: str, host: str, is_manager: bool, is_operator: bool = False,
                 privileged: bool = False) -> None:
        self.user = user
        self.host = host
        self.is_manager = is_manager
        self.is_operator = is_operator
        # root, or the user who started the cluster: who may write the server's home (PBS's
        # qmgr hands job_sort_formula over in a root-owned file there, decode_formula)
        self.privileged = privileged

    @property
    def who(self) -> str:
        return "%s@%s" % (self.user, self.host)


class Managed:
    """The configuration objects qmgr manages (dicts keep creation order)."""

    def __init__(self, server_name: str) -> None:
        self.server_name = server_name
        self.server: AttrDict = {}
        self.queues: Dict[str, AttrDict] = {}
        self.nodes: Dict[str, AttrDict] = {}
        self.scheds: Dict[str, AttrDict] = {"default": default_sched(server_name)}
        self.hooks: Dict[str, Hook] = {}
        self.resources: Dict[str, AttrDict] = {}
        # Whether a job (history included) holds the resource in Resource_List,
        # resources_used or its select: then it may not be deleted or retyped (n02w).
        self.resource_in_use: Callable[[str], bool] = lambda name: False
        # Whether a queue holds a job that is not history (all of them without job history) or
        # a node names it: then it may not be deleted (que_purge, mgr_queue_delete: 15027).
        self.queue_busy: Callable[[str], bool] = lambda name: False
        # Whether a new node's name resolves (server/hostnames.py; the daemon's resolver)
        self.resolves: Callable[[str], bool] = lambda name: True
        # The file an imported script is first compiled from (qmgr's temporary copy in
        # server_priv/hooks/tmp, named by the daemon): the server logs its path (m01e, m09d).
        self.import_temp = ""


class LoggedRefusal(PbsError):
    """A refusal whose log records PBS writes all the same (a script that fails to compile at
    import: the import, the compile and the Python error are logged, m09d)."""

    def __init__(self, err: PbsError, logs: List["LogRecord"]) -> None:
        super().__init__(err.code, err.text)
        self.logs = logs


class Outcome:
    """What a request changed: ``changed`` holds ``(objtype, name)`` pairs to persist."""

    def __init__(self) -> None:
        self.changed: Set[Tuple[str, str]] = set()
        self.deleted: Set[Tuple[str, str]] = set()
        self.logs: List[LogRecord] = []
        # SCH_SCHEDULE_CMD: a cycle now (scheduling set to true, a queue started)
        self.kick_scheduler = False
        # SCH_CONFIGURE: the scheduler re-reads sched_config, no cycle (a set sched, a resource)
        self.reconfigure = False
        self.data: Any = None
        # hook name -> what changed it (create, set, unset, delete, import-script,
        # import-config): the server turns it into pending hook actions for the moms
        self.hook_commands: Dict[str, str] = {}


def default_sched(server_name: str) -> AttrDict:
    attrs = {"sched_host": server_name}
    attrs.update(qmgr_attrs.SCHED_DEFAULTS)
    return attrs


# -- requests ------------------------------------------------------------------------------------

def handle(managed: Managed, caller: Caller, op: str, args: Dict[str, Any]) -> Outcome:
    """Serve one request; raises :class:`PbsError` with PBS's code and text on refusal."""
    outcome = Outcome()
    if op == "manager":
        _manager(managed, caller, args, outcome)
    elif op == "hookio":
        try:
            _hookio(managed, caller, args, outcome)
        except PbsError as err:
            if outcome.logs:
                raise LoggedRefusal(err, outcome.logs) from None
            raise
    elif op == "statsched":
        outcome.data = stat_sched(managed, args.get("name"))
    elif op == "stathook":
        _require_hook_access(managed, caller)
        outcome.data = stat_hook(managed, args.get("name"))
    elif op == "statrsc":
        outcome.data = stat_resource(managed, args.get("name"))
    else:
        raise PbsError(PBSE_IVALREQ)
    return outcome


def _manager(managed: Managed, caller: Caller, args: Dict[str, Any], outcome: Outcome) -> None:
    command = str(args.get("command", ""))
    objtype = str(args.get("objtype", ""))
    name = str(args.get("name") or "")
    attrs: List[Tuple[str, str, str]] = [(str(a[0]), str(a[1]), str(a[2]))
                                         for a in args.get("attrs") or []]
    if objtype in ("hook", "pbshook"):
        _require_hook_access(managed, caller)
        _manage_hook(managed, caller, command, name, attrs, outcome)
        return
    if objtype in ("server", "queue", "node", "sched") and command in ("set", "unset", "create"):
        # the client library's checks come first: a bad value is refused before the server
        # looks at who asks (pbs_manager -> pbs_verify_attributes)
        for attr, _, value in attrs:
            qmgr_attrs.ecl_verify(objtype, attr, "" if command == "unset" else value)
    if not caller.is_manager and not _operator_may(caller, command, objtype, attrs):
        raise PbsError(PBSE_PERM)
    if objtype in ("server", "sched") and command == "set" and not caller.privileged and any(
            attr.lower() == "job_sort_formula" for attr, _, _ in attrs):
        raise PbsError(PBSE_PERM)  # decode_formula: the file qmgr writes as root is missing
    if objtype == "server":
        _manage_attrs(managed.server, "server", command, attrs, managed)
        outcome.changed.add(("server", managed.server_name))
        # PBS's scheduling action: setting it true (even when it was) asks for a cycle (n01o)
        outcome.kick_scheduler = _sets_true(command, attrs, "scheduling")
    elif objtype == "queue":
        _manage_container(managed, managed.queues, "queue", command, name, attrs, outcome)
    elif objtype == "node":
        _manage_container(managed, managed.nodes, "node", command, name, attrs, outcome)
    elif objtype == "sched":
        _manage_sched(managed, command, name or "default", attrs, outcome)
    elif objtype == "resource":
        _manage_resource(managed, command, name, attrs, outcome)
    else:
        raise PbsError(PBSE_IVALREQ)


# Operators may set or unset the attributes managers alone may not (MGR_ONLY_SET and read-only
# ones are in qmgr_attrs.manager_only), and create or delete nothing.
def _operator_may(caller: Caller, command: str, objtype: str,
                  attrs: List[Tuple[str, str, str]]) -> bool:
    if not caller.is_operator or command not in ("set", "unset"):
        return False
    if objtype not in ("server", "queue", "node", "sched"):
        return False
    refused = qmgr_attrs.manager_only(objtype)
    return not any(attr.split(".", 1)[0].lower() in refused for attr, _, _ in attrs)


def _sets_true(command: str, attrs: List[Tuple[str, str, str]], name: str) -> bool:
    return command in ("set", "create") and any(
        attr.lower() == name and value.strip().lower() in ("true", "t", "1", "y", "yes")
        for attr, _, value in attrs)


def _resource_value(managed: Managed, attr: str, value: str) -> str:
    """A ``name.<resource>`` value checked by the resource's type and stored as PBS decodes it
    (verify_value_resc for built-ins, the server's decode for a site's); an unknown resource is
    15035 (n02)."""
    resource = attr.split(".", 1)[1]
    defn = rdefs.lookup(resource)
    if defn is None:
        site = managed.resources.get(resource)
        if site is None:
            raise PbsError(PBSE_UNKRESC, detail(PBSE_UNKRESC, attr))
        defn = rdefs.ResourceDef(resource, str(site.get("type") or rdefs.LONG),
                                 str(site.get("flag") or ""))
    if value == "":
        return value
    try:
        return ecl.verify_resource(defn, value)
    except PbsError as err:
        raise PbsError(err.code, detail(err.code, attr)) from None


# svr_func.c: limits of the old style (check_no_entlim) and of the new (action_entlim_chk) may
# not be set together (svr_oldstyle, que_oldstyle, svr_newstyle, que_newstyle).
_SOFT_OLD = ("max_user_run_soft", "max_group_run_soft", "max_user_res_soft", "max_group_res_soft")
_OLD_STYLE = {"server": ("max_running", "max_user_run", "max_group_run", "max_user_res",
                         "max_group_res") + _SOFT_OLD,
              "queue": ("max_queuable", "max_running", "max_user_run", "max_group_run",
                        "max_user_res", "max_group_res") + _SOFT_OLD}
_NEW_RUN = ("max_run", "max_run_res", "max_run_soft", "max_run_res_soft")
_NEW_STYLE = {"server": _NEW_RUN, "queue": ("max_queued", "queued_jobs_threshold") + _NEW_RUN}
_CHECKED_NEW = {"server": _NEW_RUN, "queue": _NEW_RUN}  # the attributes with the action


def _any_set(managed: Managed, names: Dict[str, Tuple[str, ...]]) -> bool:
    objects = [("server", managed.server)] + [("queue", q) for q in managed.queues.values()]
    return any(key.split(".", 1)[0] in names[kind] for kind, attrs in objects for key in attrs)


def _check_limit_style(managed: Managed, objtype: str, attr: str) -> None:
    base = attr.split(".", 1)[0]
    if objtype not in _OLD_STYLE:
        return
    if base in _OLD_STYLE[objtype] and _any_set(managed, _NEW_STYLE):
        raise PbsError(PBSE_MIXENTLIMS)
    if base in _CHECKED_NEW[objtype] and _any_set(managed, _OLD_STYLE):
        raise PbsError(PBSE_MIXENTLIMS)


def _manage_attrs(target: AttrDict, objtype: str, command: str,
                  attrs: List[Tuple[str, str, str]], managed: Managed) -> None:
    staged = dict(target)
    for attr, op, value in attrs:
        definition = qmgr_attrs.find(objtype, attr)
        if definition is None:
            raise PbsError(PBSE_NOATTR)
        attr = qmgr_attrs.canonical(objtype, attr)
        if qmgr_attrs.RO in definition[2]:  # mgr_set_attr/mgr_unset_attr: no write bit
            raise PbsError(PBSE_ATTRRO, detail(PBSE_ATTRRO, attr))
        if "." in attr and definition[1] == qmgr_attrs.ENTITY:
            _resource_value(managed, attr, "")  # max_queued_res.<known resource>
        elif "." in attr:
            value = _resource_value(managed, attr, "" if command == "unset" else value)
        if command == "unset":
            staged.pop(attr, None)
            continue
        _check_limit_style(managed, objtype, attr)
        staged[attr] = qmgr_attrs.apply_op(objtype, attr, op, staged.get(attr), value)
        unmodelled.check(objtype, attr, staged[attr])  # what PBS would act on (docs/coverage.md)
        _check_association(managed, objtype, attr, staged)
        if attr == "job_sort_formula":
            _check_formula(managed, objtype, str(staged[attr]))
    _replace_sorted(target, objtype, staged)


def _check_formula(managed: Managed, objtype: str, value: str) -> None:
    """validate_job_formula: the server's and the scheduler's formula agree (15226), and the
    formula is one (model/formula.py: 15123, 15124, 15125)."""
    others = ([str(sched["job_sort_formula"]) for sched in managed.scheds.values()
               if sched.get("job_sort_formula")] if objtype == "server" else
              [str(managed.server["job_sort_formula"])]
              if managed.server.get("job_sort_formula") else [])
    if any(other != value for other in others):
        raise PbsError(PBSE_SVR_SCHED_JSF_INCOMPAT)
    types = {name: defn.type for name, defn in rdefs.BUILTIN.items()}
    types.update({name: str(site.get("type") or rdefs.LONG)
                  for name, site in managed.resources.items()})
    formula.validate(value, types)


def _replace_sorted(target: AttrDict, objtype: str, attrs: AttrDict) -> None:
    items = sorted(attrs.items(), key=lambda kv: qmgr_attrs.order_key(objtype, kv[0]))
    target.clear()
    target.update(items)


def _is_execution(queue: AttrDict) -> bool:
    return str(queue.get("queue_type", "")).lower().startswith("e")


def _check_association(managed: Managed, objtype: str, attr: str, staged: AttrDict) -> None:
    """A vnode's ``queue`` names an execution queue (node_queue_action: 15018, 15026), and a
    queue with vnodes stays one (set_queue_type: 15026)."""
    if objtype == "node" and attr == "queue":
        queue = managed.queues.get(str(staged[attr]))
        if queue is None:
            raise PbsError(PBSE_UNKQUE)
        if not _is_execution(queue):
            raise PbsError(PBSE_ATTRTYPE)
    elif objtype == "queue" and attr == "queue_type" and staged.get("hasnodes") == "True" \
            and not _is_execution(staged):
        raise PbsError(PBSE_ATTRTYPE)


def _mark_queues_with_nodes(managed: Managed, outcome: Outcome) -> None:
    """A queue's read-only ``hasnodes``: True while a vnode names it, else unset
    (mark_which_queues_have_nodes)."""
    named = {str(node.get("queue")) for node in managed.nodes.values() if node.get("queue")}
    for name, queue in managed.queues.items():
        if (queue.get("hasnodes") == "True") == (name in named):
            continue
        staged = dict(queue)
        if name in named:
            staged["hasnodes"] = "True"
        else:
            staged.pop("hasnodes", None)
        _replace_sorted(queue, "queue", staged)
        outcome.changed.add(("queue", name))


def _manage_container(managed: Managed, objects: Dict[str, AttrDict], objtype: str,
                      command: str, name: str, attrs: List[Tuple[str, str, str]],
                      outcome: Outcome) -> None:
    unknown = PbsError(PBSE_UNKQUE) if objtype == "queue" else PbsError(PBSE_UNKNODE)
    if command == "create":
        if name in objects:
            raise PbsError(PBSE_QUEEXIST if objtype == "queue" else PBSE_NODEEXIST)
        fresh: AttrDict = {}
        if objtype == "node":
            if not managed.resolves(name):
                raise PbsError(PBSE_UNKNODE)  # create_pbs_node2: the Mom's address not found
            fresh = defaults.created_node(name)
        _manage_attrs(fresh, objtype, "set", attrs, managed)
        objects[name] = fresh
        outcome.logs.append((_LOG_ADMIN, "Node" if objtype == "node" else "Que", name,
                             "created"))
    elif name not in objects:
        raise unknown
    elif command == "delete":
        if objtype == "queue" and managed.queue_busy(name):
            raise PbsError(PBSE_OBJBUSY)
        del objects[name]
        outcome.deleted.add((objtype, name))
        if objtype == "node":
            _mark_queues_with_nodes(managed, outcome)
        return
    elif command in ("set", "unset"):
        _manage_attrs(objects[name], objtype, command, attrs, managed)
    else:
        raise PbsError(PBSE_IVALREQ)
    outcome.changed.add((objtype, name))
    if objtype == "node":
        _mark_queues_with_nodes(managed, outcome)
    # A node's or queue's change starts no cycle (pbsnodes -r: the queued job waits for the
    # next one, n01j/n01n); a queue set started=True does (queue_func.c, SCH_SCHEDULE_STARTQ).
    outcome.kick_scheduler = objtype == "queue" and _sets_true(command, attrs, "started")


def _manage_sched(managed: Managed, command: str, name: str,
                  attrs: List[Tuple[str, str, str]], outcome: Outcome) -> None:
    if command == "create":
        if name in managed.scheds:
            raise PbsError(PBSE_BADATVAL)
        managed.scheds[name] = default_sched(managed.server_name)
    elif name not in managed.scheds:
        raise PbsError(PBSE_UNKSCHED)
    if command == "delete":
        if name == "default":
            raise PbsError(PBSE_PERM)
        del managed.scheds[name]
        outcome.deleted.add(("sched", name))
        return
    if command == "unset":
        defaults = default_sched(managed.server_name)
        sched = managed.scheds[name]
        _manage_attrs(sched, "sched", "unset", attrs, managed)
        for attr, _, _ in attrs:
            if attr in defaults:
                sched[attr] = defaults[attr]
        sched_sorted = sorted(sched.items(), key=lambda kv: qmgr_attrs.order_key("sched", kv[0]))
        sched.clear()
        sched.update(sched_sorted)
    else:
        _manage_attrs(managed.scheds[name], "sched", "set", attrs, managed)
    outcome.changed.add(("sched", name))
    # Setting scheduling true asks for a cycle; any other change makes the scheduler re-read
    # its configuration (req_manager.c mgr_sched_set: SCH_CONFIGURE unless only scheduling).
    outcome.kick_scheduler = _sets_true(command, attrs, "scheduling")
    outcome.reconfigure = command == "create" or any(
        attr.lower() != "scheduling" for attr, _, _ in attrs)


def _manage_resource(managed: Managed, command: str, name: str,
                     attrs: List[Tuple[str, str, str]], outcome: Outcome) -> None:
    outcome.reconfigure = True  # the scheduler learns the new definitions (SCH_CONFIGURE)
    if command == "create":
        if name in managed.resources or name in BUILTIN_RESOURCES:
            raise PbsError(PBSE_BADATVAL, message_for(PBSE_DUPLIST))
        staged = {"type": "long", "flag": ""}
        _resource_attrs(staged, command, attrs)
        managed.resources[name] = staged
        outcome.changed.add(("resource", name))
        return
    if name not in managed.resources:
        raise PbsError(PBSE_IVALREQ if name in BUILTIN_RESOURCES else PBSE_UNKRESC)
    # A resource a job holds may be neither deleted nor retyped (req_manager.c
    # check_resource_set_on_jobs_or_resvs; history jobs count: n02w).
    if (command == "delete" or attrs) and managed.resource_in_use(name):
        raise PbsError(PBSE_RESCBUSY, "Resource busy on job")
    if command == "delete":
        del managed.resources[name]
        outcome.deleted.add(("resource", name))
        _unset_everywhere(managed, name, outcome)
        return
    _resource_attrs(managed.resources[name], command, attrs)
    outcome.changed.add(("resource", name))


def _resource_attrs(resource: AttrDict, command: str, attrs: List[Tuple[str, str, str]]) -> None:
    for attr, _, value in attrs:
        if attr not in ("type", "flag"):
            raise PbsError(PBSE_NOATTR)
        if attr == "type" and value not in RESOURCE_TYPES:
            raise PbsError(PBSE_BADATVAL)
        resource[attr] = "" if command == "unset" else value


def _unset_everywhere(managed: Managed, name: str, outcome: Outcome) -> None:
    """A deleted resource leaves every server, queue and node attribute (``X.name``) it was in
    (mgr_resource_delete; n02y: resources_available.ngpus is gone from the node)."""
    targets = [("server", managed.server_name, managed.server)]
    targets += [("queue", qname, attrs) for qname, attrs in managed.queues.items()]
    targets += [("node", nname, attrs) for nname, attrs in managed.nodes.items()]
    for objtype, objname, attrs in targets:
        gone = [key for key in attrs if key.partition(".")[2] == name]
        for key in gone:
            del attrs[key]
        if gone:
            outcome.changed.add((objtype, objname))


# -- hooks -----------------------------------------------------------------------------------

def _require_hook_access(managed: Managed, caller: Caller) -> None:
    if not caller.is_manager:
        raise hook_error("%s is unauthorized to access hooks data from server %s"
                         % (caller.who, managed.server_name))


def _manage_hook(managed: Managed, caller: Caller, command: str, name: str,
                 attrs: List[Tuple[str, str, str]], outcome: Outcome) -> None:
    if command == "create":
        if name in managed.hooks:
            raise hook_error("hook name '%s' already registered, try another name" % name)
        hook = Hook(name)
        for attr, op, value in attrs:
            set_hook_attr(hook, attr, op, value)
        managed.hooks[name] = hook
        outcome.logs.append((_LOG_ADMIN, "Hook", name, "created at request of %s" % caller.who))
        _flag_unmodelled(managed, "hook", command, attrs, outcome)
    elif name not in managed.hooks:
        raise hook_error("%s does not exist!" % name)
    elif command == "delete":
        del managed.hooks[name]
        outcome.deleted.add(("hook", name))
        outcome.hook_commands[name] = "delete"
        outcome.logs.append((_LOG_ADMIN, "Hook", name, "deleted at request of %s" % caller.who))
        return
    elif command in ("set", "unset"):
        staged = managed.hooks[name].copy()
        for attr, op, value in attrs:
            if command == "set":
                set_hook_attr(staged, attr, op, value)
            else:
                unset_hook_attr(staged, attr)
        managed.hooks[name] = staged
        outcome.logs.append((_LOG_ADMIN, "Hook", name,
                             "mgr_hook_%s at request of %s" % (command, caller.who)))
        _flag_unmodelled(managed, "hook", command, attrs, outcome)
    else:
        raise PbsError(PBSE_NOSUP)
    outcome.changed.add(("hook", name))
    outcome.hook_commands[name] = command


def _flag_unmodelled(managed: Managed, objtype: str, command: str,
                     attrs: List[Tuple[str, str, str]], outcome: Outcome) -> None:
    """A server-log line for each attribute set that the fake stores but does not act on
    (model/unmodelled.py FLAGGED); the line names no hook, so transcripts' hook greps skip it."""
    if command not in ("create", "set"):
        return
    for attr, _, value in attrs:
        text = unmodelled.flag_text(objtype, attr)
        if text is not None and value.strip().lower() != "none":
            outcome.logs.append((_LOG_ADMIN, "Svr", "Server@%s" % managed.server_name, text))


def _decode(content: str, encoding: str) -> str:
    if encoding == "default":
        return content
    try:
        raw = base64.b64decode("".join(content.split()), validate=True)
    except (binascii.Error, ValueError):
        raise hook_error("Failed to decode base64 hook content") from None
    return raw.decode("utf-8", "surrogateescape")


def _check_content(content_type: str, encoding: str, export: bool) -> None:
    if content_type not in (CONTENT_PYTHON, CONTENT_CONFIG):
        raise hook_error("<content-type> must be application/x-python" if export else
                         "<content-type> must be application/x-python or application/x-config")
    if encoding not in ("default", "base64"):
        raise hook_error("<content-encoding> must be 'default' or 'base64'")


def _hookio(managed: Managed, caller: Caller, args: Dict[str, Any], outcome: Outcome) -> None:
    _require_hook_access(managed, caller)
    command = str(args.get("command", ""))
    name = str(args.get("name", ""))
    content_type = str(args.get("content_type", ""))
    encoding = str(args.get("encoding", ""))
    if name not in managed.hooks:
        raise hook_error("%s does not exist!" % name)
    _check_content(content_type, encoding, command == "export")
    hook = managed.hooks[name]
    if command == "export":
        text = hook.script if content_type == CONTENT_PYTHON else hook.config
        text = text or ""
        if encoding == "base64":
            text = base64.b64encode(text.encode("utf-8", "surrogateescape")).decode("ascii")
        outcome.data = {"content": text}
        outcome.logs.append((_LOG_ADMIN, "Hook", name,
                             "mgr_hook_export at request of %s" % caller.who))
        return
    if command != "import":
        raise PbsError(PBSE_IVALREQ)
    content = _decode(str(args.get("content", "")), encoding)
    outcome.logs.append((_LOG_ADMIN, "Hook", name,
                         "mgr_hook_import at request of %s" % caller.who))
    previous = hook.script if content_type == CONTENT_PYTHON else hook.config
    if content_type == CONTENT_PYTHON:
        _compile_import(managed, name, content, previous is not None, outcome)
        hook.script = content
    else:
        hook.config = content
    warning: Optional[str] = None
    if previous is not None:
        warning = "hook '%s' contents overwritten" % name
        outcome.logs.append((0x0100, "Hook", "mgr_hook_import", warning))
    outcome.data = {"warning": warning}
    outcome.changed.add(("hook", name))
    outcome.hook_commands[name] = ("import-script" if content_type == CONTENT_PYTHON
                                   else "import-config")


_LOG_COMPILE = 0x0086   # SYSTEM | ADMIN | DEBUG: pbs_python_check_and_compile_script
_LOG_ERROR = 0x0001
_LOG_DEBUG = 0x0080


def _compile_import(managed: Managed, name: str, content: str, overwrite: bool,
                    outcome: Outcome) -> None:
    """mgr_hook_import compiles the decoded script (qmgr's temporary file) before it replaces
    the hook's; a syntax error logs Python's exception type and arguments and refuses the
    import (m09a, m09d)."""
    daemon = "Server@%s" % managed.server_name
    outcome.logs.append((_LOG_COMPILE, "Svr", daemon,
                         "Compiling script file: <%s>" % managed.import_temp))
    try:
        compile(content, "<embedded code object>", "exec")
    except (SyntaxError, ValueError) as exc:
        for text in (str(type(exc)), str(exc.args)):
            outcome.logs.append((_LOG_ERROR, "Svr", daemon, "%s (%d) in Failed to compile "
                                 "script, %s" % (message_for(PBSE_INTERNAL), PBSE_INTERNAL,
                                                 text)))
        text = ("Failed to compile script, hook '%s' contents not overwritten" % name
                if overwrite else "Failed to compile script")
        outcome.logs.append((_LOG_DEBUG, "Hook", "mgr_hook_import", text))
        raise hook_error(text) from None


# -- status --------------------------------------------------------------------------------

def stat_sched(managed: Managed, name: Optional[str]) -> List[Dict[str, Any]]:
    if name and name not in managed.scheds:
        raise PbsError(PBSE_UNKSCHED)
    names = [name] if name else list(managed.scheds)
    return [{"name": n, "attrs": [[k, v] for k, v in managed.scheds[n].items()]}
            for n in names]


def stat_hook(managed: Managed, name: Optional[str]) -> List[Dict[str, Any]]:
    if name and name not in managed.hooks:
        raise PbsError(PBSE_HOOKERROR, "hook not found")
    names = [name] if name else list(managed.hooks)
    return [{"name": n, "attrs": managed.hooks[n].attr_pairs(),
             "script": managed.hooks[n].script, "config": managed.hooks[n].config}
            for n in names]


def stat_resource(managed: Managed, name: Optional[str]) -> List[Dict[str, Any]]:
    if name and name not in managed.resources:
        raise PbsError(PBSE_UNKRESC)
    names = [name] if name else list(managed.resources)
    return [{"name": n, "attrs": [[k, v] for k, v in managed.resources[n].items() if v]}
            for n in names]
