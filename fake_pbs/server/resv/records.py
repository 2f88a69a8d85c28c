"""Reservation records and what the server keeps beside them: the reservation's queue, the
nodes' ``resv`` lists, and the accounting and log lines PBS writes.

Reservations are objects of kind ``resv`` in the server's store (``state.objects``), so they
are committed before a reply and survive a restart like queues and nodes do.
"""
from typing import Any, Dict, Iterable, List, Optional, Tuple

from fake_pbs.model import node_states
from fake_pbs.model import resv as rmodel
from fake_pbs.model.errors import PBSE_UNKRESVID, PbsError
from fake_pbs.model.nodes import is_exclusive
from fake_pbs.server.app import ServerApp
from fake_pbs.server.logs import ADMIN, DEBUG, JOB, QUE

KIND = "resv"
# Resource_List entries that are no queue limit (req_quejob.c dont_set_in_max)
_NOT_LIMITS = frozenset(("nodes", "nodect", "select", "place", "walltime"))
Resv = Dict[str, Any]


def table(app: ServerApp) -> Dict[str, Resv]:
    return app.state.objects.setdefault(KIND, {})


def all_resvs(app: ServerApp) -> List[Resv]:
    """Every reservation, in submission order (the order pbs_rstat lists them)."""
    return sorted(table(app).values(), key=lambda r: int(r.get("_seq", 0)))


def normalize(app: ServerApp, raw: str) -> str:
    """``R875`` and ``R875.vm`` name the same reservation (the server's name appended)."""
    name = raw.strip()
    if name and "." not in name:
        name = "%s.%s" % (name, app.server_name)
    return name


def find(app: ServerApp, raw: Any) -> Resv:
    if not isinstance(raw, str):
        raise PbsError(PBSE_UNKRESVID)
    resv = table(app).get(normalize(app, raw))
    if resv is None:
        raise PbsError(PBSE_UNKRESVID)
    return resv


def of_queue(app: ServerApp, queue: str) -> Optional[Resv]:
    """The reservation whose queue is ``queue`` (None for an ordinary queue)."""
    for resv in table(app).values():
        if resv.get("queue") == queue:
            return resv
    return None


def save(app: ServerApp, resv: Resv) -> None:
    app.state.save_object(KIND, resv["_id"])


def forget(app: ServerApp, resv: Resv) -> None:
    """The reservation is gone: its queue, its place in the nodes' lists and its record."""
    drop_queue(app, resv)
    mark_exclusive(app, resv, False)
    untag_nodes(app, resv)
    table(app).pop(resv["_id"], None)
    save(app, resv)


# -- the queue --------------------------------------------------------------------------------
def make_queue(app: ServerApp, resv: Resv) -> None:
    """The reservation's queue, as req_resvSub creates it (R08, R31; get_queue_for_reservation):
    enabled, not started, only the owner (Authorized_Users) may submit, and only from
    Authorized_Groups / Authorized_Hosts when given, limited to the reservation's resources."""
    name = resv["queue"]
    # get_queue_for_reservation: every Resource_List entry but dont_set_in_max's
    limits = [(k.split(".", 1)[1], v) for k, v in resv.items()
              if k.startswith("Resource_List.") and k.split(".", 1)[1] not in _NOT_LIMITS]
    users = str(resv.get("Authorized_Users", resv["Reserve_Owner"]))
    # then Authorized_Groups and Authorized_Hosts, when given, as the group and host ACLs
    acls = [("acl_users", users), ("acl_user_enable", "True")]
    for source, acl, enable in (("Authorized_Groups", "acl_groups", "acl_group_enable"),
                                ("Authorized_Hosts", "acl_hosts", "acl_host_enable")):
        if resv.get(source):
            acls += [(acl, str(resv[source])), (enable, "True")]
    queue = {"queue_type": "Execution"}
    for prefix in ("resources_max.", "resources_available."):
        queue.update((prefix + res, value) for res, value in limits)
    queue.update(acls)
    queue.update({"enabled": "True", "started": "False", "partition": "pbs-default"})
    app.state.queues[name] = queue
    app.state.save_queue(name)
    who = "pbs_server@%s" % app.host
    app.log.lines(ADMIN, QUE, name, [
        "created at request of %s" % who] +
        ["attributes set: resources_available.%s = %s" % kv for kv in limits] +
        ["attributes set: resources_max.%s = %s" % kv for kv in limits] + [
        "attributes set: queue_type = Execution",
        "attributes set: enabled = False",
        "attributes set: started = False"] +
        ["attributes set: %s = %s" % kv for kv in acls] + [
        "attributes set:  at request of %s" % who,
        "attributes set: enabled = True"])


def set_queue(app: ServerApp, resv: Resv, requestor: str, **values: str) -> None:
    queue = app.state.queues.get(resv.get("queue", ""))
    if queue is None:
        return
    changed = [(k, v) for k, v in values.items() if queue.get(k) != v]
    if not changed:
        return
    for key, value in changed:
        queue[key] = value
    app.state.save_queue(resv["queue"])
    app.log.lines(ADMIN, QUE, resv["queue"],
                  ["attributes set:  at request of %s" % requestor] +
                  ["attributes set: %s = %s" % kv for kv in changed])


def follow_alteration(app: ServerApp, resv: Resv, altered: Iterable[str]) -> None:
    """pbs_ralter -U / -G: the queue's acl_users, and acl_groups with acl_group_enable (both
    removed when Authorized_Groups is unset), follow quietly (req_modifyReservation)."""
    queue = app.state.queues.get(resv.get("queue", ""))
    if queue is None:
        return
    if "Authorized_Users" in altered:
        queue["acl_users"] = str(resv["Authorized_Users"])
    if "Authorized_Groups" in altered:
        if resv.get("Authorized_Groups"):
            queue.update(acl_groups=str(resv["Authorized_Groups"]), acl_group_enable="True")
        else:
            resv.pop("Authorized_Groups", None)
            queue.pop("acl_groups", None)
            queue.pop("acl_group_enable", None)
    app.state.save_queue(resv["queue"])


def drop_queue(app: ServerApp, resv: Resv) -> None:
    name = resv.get("queue", "")
    if app.state.queues.pop(name, None) is not None:
        app.state.save_queue(name)
        app.log.write(ADMIN, QUE, name, "deleted at request of pbs_server@%s" % app.host)


# -- the nodes' resv lists --------------------------------------------------------------------
def _resv_vnodes(app: ServerApp, resv: Resv) -> List[Tuple[str, Dict[str, str]]]:
    """The known vnodes of the reservation's resv_nodes, each once, with their records."""
    names = {c["vnode"] for c in rmodel.chunk_list(resv.get("resv_nodes", ""))}
    return [(name, app.state.nodes[name]) for name in names if name in app.state.nodes]


def tag_nodes(app: ServerApp, resv: Resv) -> None:
    """Each vnode of resv_nodes lists the reservation first (R22d: newest first)."""
    for name, node in _resv_vnodes(app, resv):
        names = [n for n in node.get("resv", "").split(", ") if n and n != resv["_id"]]
        node["resv"] = ", ".join([resv["_id"]] + names)
        app.state.save_node(name)


def untag_nodes(app: ServerApp, resv: Resv) -> None:
    for name, node in app.state.nodes.items():
        names = [n for n in node.get("resv", "").split(", ") if n]
        if resv["_id"] in names:
            names.remove(resv["_id"])
            if names:
                node["resv"] = ", ".join(names)
            else:
                node.pop("resv", None)
            app.state.save_node(name)


def mark_exclusive(app: ServerApp, resv: Resv, on: bool) -> None:
    """PBS's INUSE_RESVEXCL: a running exclusive reservation's vnodes say ``resv-exclusive``
    (the scheduler gives them to its jobs only; sched/reserved.py)."""
    if not is_exclusive(resv):
        return
    for name, node in _resv_vnodes(app, resv):
        old = str(node.get("state", "free"))
        flags = [f for f in old.split(",") if f not in ("free", "resv-exclusive")]
        node["state"] = node_states.compose(flags + (["resv-exclusive"] if on else []))
        if node["state"] != old:
            node["last_state_change_time"] = str(app.now())
            app.state.save_node(name)


# -- accounting -------------------------------------------------------------------------------
def account(app: ServerApp, kind: str, resv: Resv, message: str) -> None:
    app.acct.record(kind, resv["_id"], message)


def confirmed_record(app: ServerApp, resv: Resv) -> str:
    """The ``Y`` record's fields (R30, R46: ``count=N`` for a standing reservation)."""
    text = "requestor=Scheduler@%s start=%s end=%s nodes=%s" % (
        app.host, resv["reserve_start"], resv["reserve_end"], resv.get("resv_nodes", ""))
    if rmodel.is_standing(resv):
        text += " count=%s" % resv.get("reserve_count", "1")
    return text


def begin_record(resv: Resv) -> str:
    """The ``B`` record's fields (R30: owner, name, account, queue, times, nodes, users,
    resources; accounting.c acct_resv)."""
    parts = ["owner=%s" % resv["Reserve_Owner"], "name=%s" % resv.get("Reserve_Name", "NULL")]
    if resv.get("Account_Name"):  # acct_resv: account= when set
        parts.append("account=%s" % resv["Account_Name"])
    parts += ["queue=%s" % resv["queue"], "ctime=%s" % resv["ctime"],
              "start=%s" % resv["reserve_start"], "end=%s" % resv["reserve_end"],
              "duration=%s" % resv["reserve_duration"],
              "nodes=%s" % resv.get("resv_nodes", "")]
    for attr in ("Authorized_Users", "Authorized_Groups", "Authorized_Hosts"):
        if resv.get(attr):
            parts.append("%s=%s" % (attr, resv[attr]))
    resources = sorted((k for k in resv if k.startswith("Resource_List.")),
                       key=lambda k: rmodel.resource_key(k.split(".", 1)[1]))
    parts.extend("%s=%s" % (k, resv[k]) for k in resources)
    return " ".join(parts) + " "


def job_fields(app: ServerApp, queue: str) -> str:
    """``resvname=... resvID=...`` of a job record in a reservation's queue ("" elsewhere)."""
    resv = of_queue(app, queue)
    if resv is None:
        return ""
    return "resvname=%s resvID=%s" % (resv.get("Reserve_Name", "NULL"), resv["_id"])


def log_denied(app: ServerApp, resv: Resv) -> None:
    """R31b: the only Resv lines of the server's log are a denial's."""
    app.log.write(JOB, "Resv", resv["_id"], "Reservation denied")
    app.log.write(DEBUG, "Resv", resv["_id"], "reservation deleted")
