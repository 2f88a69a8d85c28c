"""The daemon's side of qmgr: ``manager``, ``hookio``, ``statsched``, ``stathook`` and
``statrsc`` served by the pure :func:`fake_pbs.server.manager.handle` over the live server state,
then committed: objects saved, hooks published to the moms, log records written, a cycle asked for.
"""
import os
from typing import Any, Dict

from fake_pbs.model import states as st
from fake_pbs.model.attrs import is_true
from fake_pbs.server import hookfiles, hostnames
from fake_pbs.server.handlers.registry import Context, handler
from fake_pbs.server import hookpoints
from fake_pbs.server.hookpoints import hooks_of
from fake_pbs.server.manager import Caller, LoggedRefusal, Managed, Outcome, handle


def _managed_view(app: Any) -> Managed:
    state = app.state
    view = Managed(app.server_name)
    view.server = state.server
    view.queues = state.queues
    view.nodes = state.nodes
    view.scheds = {"default": state.sched}
    view.hooks = {h.name: h for h in hooks_of(state)}
    view.resources = state.objects.setdefault("resource", {})
    view.import_temp = str(hookfiles.hooks_dir(app.home) / "tmp" /
                           hookfiles.import_temp_name(os.getpid()))
    view.resource_in_use = lambda name: _held_by_a_job(state, name)
    view.queue_busy = lambda name: _queue_busy(state, name)
    fake_hosts = [str(host["name"]) for host in app.config.get("hosts", [])]
    view.resolves = lambda name: hostnames.resolves(name, fake_hosts)
    return view


def _queue_busy(state: Any, name: str) -> bool:
    """que_purge: history jobs do not keep a queue while job history is enabled."""
    history = is_true(state.server.get("job_history_enable", "False"))
    for job in state.jobs.values():
        if job.get("queue") == name and not (
                history and job.get("job_state") in st.HISTORY_STATES):
            return True
    return any(node.get("queue") == name for node in state.nodes.values())


def _held_by_a_job(state: Any, name: str) -> bool:
    """Whether any job, finished ones included, names ``name`` in Resource_List,
    resources_used or its select (PBS walks svr_alljobs, history included)."""
    keys = ("Resource_List." + name, "resources_used." + name)
    for job in state.jobs.values():
        if any(key in job for key in keys):
            return True
        select = str(job.get("Resource_List.select", ""))
        if any(part.split("=", 1)[0] == name for part in select.replace("+", ":").split(":")):
            return True
    return False


def _commit(app: Any, view: Managed, outcome: Outcome) -> None:
    state = app.state
    hook_records = state.objects.setdefault("hook", {})
    hooks_changed = False
    hooks_before = {name: hook_records.get(name) for name in outcome.hook_commands}
    for kind, name in sorted(outcome.changed | outcome.deleted):
        if kind == "server":
            state.save_server()
        elif kind == "queue":
            state.save_queue(name)
        elif kind == "node":
            state.save_node(name)
            from fake_pbs.mom import vnodemap  # moms rebuild their vnode entries (f04)
            vnodemap.touch(app.home)
        elif kind == "sched":
            state.save_sched()
        elif kind == "resource":
            state.save_object("resource", name)
        elif kind == "hook":
            hooks_changed = True
            if name in view.hooks:
                record = view.hooks[name].to_dict()
                previous = hook_records.get(name)
                record["_order"] = (previous or {}).get(
                    "_order", 1 + max([int(r.get("_order", 0)) for r in hook_records.values()]
                                      or [0]))
                hook_records[name] = record
            else:
                hook_records.pop(name, None)
            state.save_object("hook", name)
            hookfiles.mirror(app.home, name, hook_records.get(name))
            if outcome.hook_commands.get(name) in ("import-script", "delete"):
                hookpoints.current().forget_compiled(name)  # a new script object (m11l)
    if hooks_changed:
        from fake_pbs.hooks import events
        events.publish_hooks(app.home, hooks_of(state))
    for eventtype, cls, obj, message in outcome.logs:
        app.log.write(eventtype, cls, obj, message)
    if outcome.hook_commands:
        from fake_pbs.server import hooksync
        for name, command in outcome.hook_commands.items():
            hooksync.of(app).add(name, hooksync.change_actions(
                hooks_before.get(name), hook_records.get(name), command))
    if outcome.reconfigure:
        app.reconfigure_scheduler()
    if outcome.kick_scheduler:
        app.trigger_schedule()


@handler("manager")
@handler("hookio")
@handler("statsched")
@handler("stathook")
@handler("statrsc")
def serve(ctx: Context, request: Dict[str, Any]) -> Any:
    app = ctx.app
    view = _managed_view(app)
    operator = bool(getattr(ctx.caller, "operator", False))
    caller = Caller(ctx.caller.user, ctx.caller.host, ctx.caller.manager and not operator,
                    operator, privileged=ctx.caller.uid in (0, app.owner_uid))
    op = str(request.get("op"))
    try:
        outcome = handle(view, caller, op, request)
    except LoggedRefusal as refusal:
        for eventtype, cls, obj, message in refusal.logs:
            app.log.write(eventtype, cls, obj, message)
        raise
    _commit(app, view, outcome)
    return outcome.data
