"""The server's reservation requests and clock on a ServerApp with a fake clock (no daemons).

Each test names the transcript of group R (tests/data/fidelity/openpbs-23.06.06-resv) or the
OpenPBS function it pins: req_quejob.c ``req_resvSub``, the scheduler's ``confirm_reservation``,
req_delete.c ``req_deleteReservation``, req_modify.c ``req_modifyReservation``, resv_func
``Time4resv``/``Time4resvFinish``.
"""
import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fake_pbs import paths
from fake_pbs.model.errors import (PBSE_BADATVAL, PBSE_BADTSPEC, PBSE_PERM, PBSE_RESVAUTH_G,
                                   PBSE_RESVAUTH_H, PBSE_RESVAUTH_U, PBSE_UNKRESC,
                                   PBSE_UNKRESVID)
from fake_pbs.server.app import ServerApp
from fake_pbs.server.handlers import Caller, Context, dispatch, load_all
from fake_pbs.server.resv import records, timeline

NOW = 1795751872  # R01's second (Fri Nov 27 03:57:52 2026 UTC)
USER = Caller(1001, 1001, 1, "pbsuser2", "vm")
OTHER = Caller(1002, 1002, 1, "pbsuser", "vm")
ROOT = Caller(0, 0, 1, "root", "vm", manager=True)


class Rig:
    def __init__(self, home: Path, ncpus: int = 2) -> None:
        config: Dict[str, Any] = {"server_name": "vm", "hosts": [{"name": "vm", "ncpus": ncpus}]}
        (home / "server_priv").mkdir(exist_ok=True)
        paths.config_file(home).write_text(json.dumps(config))
        self.home = home
        self.now = NOW
        self.app = ServerApp(home, clock=lambda: self.now)
        self.app.bootstrap()
        self.app.state.server["managers"] = "root@*"
        load_all()

    def call(self, caller: Caller, op: str, **request: Any) -> Any:
        reply = dispatch(Context(self.app, caller), dict(request, op=op))
        if not reply.get("ok", True):
            raise AssertionError("%s: %s (%s)" % (op, reply.get("msg"), reply.get("code")))
        return reply.get("data")

    def error(self, caller: Caller, op: str, **request: Any) -> int:
        reply = dispatch(Context(self.app, caller), dict(request, op=op))
        assert reply.get("ok") is False, reply
        return int(reply["code"])

    def rsub(self, start: int, end: int, **attrs: str) -> Dict[str, str]:
        return self.rsub_as(USER, start, end, attrs)

    def rsub_as(self, caller: Caller, start: int, end: int,
                attrs: Dict[str, str]) -> Dict[str, str]:
        attrs = dict(attrs, reserve_start=str(start), reserve_end=str(end))
        data: Dict[str, str] = self.call(caller, "resv_submit", attrs=attrs)
        return data

    def attrs(self, resv_id: str) -> Dict[str, str]:
        data = self.call(USER, "resv_status", ids=[resv_id])
        found: Dict[str, str] = data["reservations"][0]["attrs"]
        return found

    def tick(self, to: int) -> None:
        self.now = to
        with self.app.state.lock:
            timeline.tick(self.app, to)

    def acct(self) -> List[str]:
        return [line.split(";", 1)[1] for path in
                sorted((self.home / "server_priv" / "accounting").iterdir())
                for line in path.read_text().splitlines()]


@pytest.fixture
def rig(tmp_path: Path) -> Rig:
    return Rig(tmp_path)


def test_submit_confirms_with_pbs_attributes(rig: Rig) -> None:
    """R01 (UNCONFIRMED reply), R04 (pbs_rstat -f in PBS's order), R08 (the queue), R09
    (the node's resv), R30 (U then Y records)."""
    reply = rig.rsub(NOW + 89, NOW + 209, **{"Resource_List.select": "1:ncpus=1"})
    assert reply == {"id": "R0.vm", "state": "UNCONFIRMED"}
    attrs = rig.attrs("R0.vm")
    assert list(attrs)[:9] == ["Reserve_Name", "Reserve_Owner", "reserve_state",
                               "reserve_substate", "reserve_start", "reserve_end",
                               "reserve_duration", "queue", "Resource_List.ncpus"]
    assert [k for k in attrs if k.startswith("Resource_List.")] == [
        "Resource_List.ncpus", "Resource_List.nodect", "Resource_List.select",
        "Resource_List.place", "Resource_List.walltime"]
    assert (attrs["reserve_state"], attrs["reserve_substate"]) == ("2", "2")
    assert attrs["Resource_List.walltime"] == "00:02:00"
    assert attrs["Resource_List.place"] == "free"
    assert attrs["resv_nodes"] == "(vm:ncpus=1)"
    assert attrs["Authorized_Users"] == "pbsuser2@vm"
    assert list(attrs)[-2:] == ["reserve_count", "partition"]
    queue = rig.app.state.queues["R0"]
    assert (queue["acl_users"], queue["resources_max.ncpus"], queue["enabled"],
            queue["started"]) == ("pbsuser2@vm", "1", "True", "False")
    assert rig.app.state.nodes["vm"]["resv"] == "R0.vm"
    assert rig.acct() == ["U;R0.vm;requestor=pbsuser2@vm",
                          "Y;R0.vm;requestor=Scheduler@vm start=%d end=%d nodes=(vm:ncpus=1)"
                          % (NOW + 89, NOW + 209)]


def test_ids_share_the_job_sequence_and_refusals_spend_one(rig: Rig) -> None:
    """R15/R15b: the refused reservation spent 880 (R879, then R881)."""
    rig.rsub(NOW + 10, NOW + 20)
    assert rig.error(USER, "resv_submit", attrs={"reserve_start": str(NOW - 60),
                                                 "reserve_end": str(NOW + 60)}) == PBSE_BADTSPEC
    assert rig.rsub(NOW + 10, NOW + 20)["id"] == "R2.vm"


@pytest.mark.parametrize("attrs", [
    {"reserve_start": str(NOW - 600), "reserve_end": str(NOW + 600)},               # R15
    {"Resource_List.walltime": "00:00:30"},                                         # R18
    {"reserve_start": str(NOW + 60), "reserve_end": str(NOW + 660),
     "Resource_List.walltime": "00:01:00"},                                         # R17d
])
def test_bad_time_specifications(rig: Rig, attrs: Dict[str, str]) -> None:
    assert rig.error(USER, "resv_submit", attrs=attrs) == PBSE_BADTSPEC


@pytest.mark.parametrize(("priority", "taken"), [
    ("-1024", True), ("1024", True), ("1025", False), ("-1025", False), ("high", False)])
def test_priority_range(rig: Rig, priority: str, taken: bool) -> None:
    """req_resvSub: Priority outside -1024..1024 is PBSE_BADATVAL (after the id is spent)."""
    attrs = {"reserve_start": str(NOW + 60), "reserve_end": str(NOW + 120),
             "Priority": priority}
    if taken:
        assert rig.call(USER, "resv_submit", attrs=attrs)["id"] == "R0.vm"
    else:
        assert rig.error(USER, "resv_submit", attrs=attrs) == PBSE_BADATVAL


def test_unknown_resource(rig: Rig) -> None:
    """R17c: ``Unknown resource: foo`` (187)."""
    assert rig.error(USER, "resv_submit", attrs={
        "reserve_start": str(NOW + 60), "reserve_end": str(NOW + 120),
        "Resource_List.select": "1:foo=1"}) == PBSE_UNKRESC


def test_too_big_is_denied_and_deleted(rig: Rig) -> None:
    """R16/R16c/R31b: UNCONFIRMED, then gone; K by Server@vm@vm; Resv log lines."""
    assert rig.rsub(NOW + 60, NOW + 120, **{"Resource_List.select": "1:ncpus=3"})["state"] == \
        "UNCONFIRMED"
    assert rig.error(USER, "resv_status", ids=["R0.vm"]) == PBSE_UNKRESVID
    assert "R0" not in rig.app.state.queues
    assert rig.acct()[-1] == "K;R0.vm;requestor=Server@vm@vm"
    log = "".join(p.read_text() for p in (rig.home / "server_logs").iterdir())
    assert ";0008;Server@vm;Resv;R0.vm;Reservation denied" in log
    assert ";0080;Server@vm;Resv;R0.vm;reservation deleted" in log


def test_interactive_answers_confirmed_or_denied(rig: Rig) -> None:
    """R50/R50b: with -I the reply is the outcome."""
    assert rig.rsub(NOW + 60, NOW + 120, interactive="10")["state"] == "CONFIRMED"
    assert rig.rsub(NOW + 60, NOW + 120, interactive="10",
                    **{"Resource_List.select": "1:ncpus=99"})["state"] == "DENIED"


def test_confirmation_counts_other_reservations(rig: Rig) -> None:
    """confirm_reservation: two 1-cpu reservations fit the 2-cpu node, a third overlapping
    both does not, one after them does (R18c: R879 overlaps R881 and R884, each 1 cpu)."""
    for _ in range(2):
        assert rig.rsub(NOW + 60, NOW + 600)["state"] == "UNCONFIRMED"
    rig.rsub(NOW + 300, NOW + 400)
    assert rig.error(USER, "resv_status", ids=["R2.vm"]) == PBSE_UNKRESVID
    rig.rsub(NOW + 600, NOW + 700)
    assert rig.attrs("R3.vm")["reserve_state"] == "2"
    assert rig.app.state.nodes["vm"]["resv"] == "R3.vm, R1.vm, R0.vm"  # R22d: newest first


def test_window_begins_and_ends(rig: Rig) -> None:
    """R22 (RN 5/5, queue started), R28b (gone once its queue is empty), R31 (queue lines
    at request of pbs_server then root), R30 (B and K records; acct_resv's account=)."""
    rig.rsub(NOW + 10, NOW + 20, Account_Name="acct1")
    rig.tick(NOW + 10)
    attrs = rig.attrs("R0.vm")
    assert (attrs["reserve_state"], attrs["reserve_substate"]) == ("5", "5")
    assert rig.app.state.queues["R0"]["started"] == "True"
    assert rig.acct()[2].startswith("B;R0.vm;owner=pbsuser2@vm name=NULL account=acct1 queue=R0 "
                                    "ctime=%d "
                                    "start=%d end=%d duration=10 nodes=(vm:ncpus=1) "
                                    "Authorized_Users=pbsuser2@vm Resource_List.ncpus=1 "
                                    % (NOW, NOW + 10, NOW + 20))
    rig.tick(NOW + 20)
    assert rig.error(USER, "resv_status", ids=["R0.vm"]) == PBSE_UNKRESVID
    assert "R0" not in rig.app.state.queues and "resv" not in rig.app.state.nodes["vm"]
    assert rig.acct()[-1] == "K;R0.vm;requestor=root@vm"
    log = "".join(p.read_text() for p in (rig.home / "server_logs").iterdir())
    assert "Que;R0;attributes set:  at request of root@vm" in log


def test_delete_idle_time_deletes_a_running_reservation_without_jobs(rig: Rig) -> None:
    """resv_idle_delete / set_idle_delete_task: a running reservation whose queue has had no
    job for delete_idle_time is deleted before its end."""
    rig.rsub(NOW + 10, NOW + 600, delete_idle_time="00:01:00")
    rig.tick(NOW + 10)
    rig.tick(NOW + 69)
    assert rig.attrs("R0.vm")["reserve_state"] == "5"
    rig.tick(NOW + 70)
    assert rig.error(USER, "resv_status", ids=["R0.vm"]) == PBSE_UNKRESVID
    assert "R0" not in rig.app.state.queues


def test_ralter_moves_start_end_duration(rig: Rig) -> None:
    """R20b-R20h: -E moves the end; -R moves only the start (end kept); -D from the start;
    end before start: BADTSPEC; unknown id: UNKRESVID."""
    rig.rsub(NOW + 3600, NOW + 4200, Reserve_Name="altme")
    text = rig.call(USER, "resv_alter", id="R0.vm", attrs={"reserve_end": str(NOW + 5400)})
    assert text == {"text": "R0.vm ALTER REQUESTED"}
    rig.call(USER, "resv_alter", id="R0.vm", attrs={"reserve_start": str(NOW + 4500)})
    attrs = rig.attrs("R0.vm")
    assert (attrs["reserve_start"], attrs["reserve_end"], attrs["reserve_duration"],
            attrs["Resource_List.walltime"]) == (str(NOW + 4500), str(NOW + 5400), "900",
                                                 "00:15:00")
    assert rig.error(USER, "resv_alter", id="R0.vm",
                     attrs={"reserve_end": str(NOW + 3000)}) == PBSE_BADTSPEC
    rig.call(USER, "resv_alter", id="R0.vm", attrs={"reserve_duration": "00:15:00"})
    assert rig.attrs("R0.vm")["reserve_end"] == str(NOW + 5400)
    assert rig.error(USER, "resv_alter", id="R99999.vm",
                     attrs={"reserve_end": str(NOW + 5400)}) == PBSE_UNKRESVID


def test_only_owner_or_manager_deletes_or_alters(rig: Rig) -> None:
    """req_deleteReservation/req_modifyReservation: another user gets PBSE_PERM; a manager
    may; an unknown id is UNKRESVID (R21c)."""
    rig.rsub(NOW + 60, NOW + 120)
    assert rig.error(OTHER, "resv_delete", id="R0.vm") == PBSE_PERM
    assert rig.error(OTHER, "resv_alter", id="R0.vm",
                     attrs={"reserve_end": str(NOW + 200)}) == PBSE_PERM
    assert rig.error(USER, "resv_delete", id="R99999.vm") == PBSE_UNKRESVID
    rig.call(ROOT, "resv_delete", id="R0.vm")
    assert rig.acct()[-1] == "k;R0.vm;requestor=root@vm"
    assert records.table(rig.app) == {}


def test_acl_resv_users_and_resv_enable(rig: Rig) -> None:
    """req_resvSub: acl_resv_user_enable/acl_resv_users (PBSE_RESVAUTH_U); resv_enable False:
    ``reservations disallowed on vm``."""
    rig.app.state.server.update(acl_resv_user_enable="True", acl_resv_users="pbsuser@vm")
    assert rig.error(USER, "resv_submit", attrs={"reserve_start": str(NOW + 60),
                                                 "reserve_end": str(NOW + 120)}) == \
        PBSE_RESVAUTH_U
    assert rig.rsub_as(OTHER, NOW + 60, NOW + 120, {})["id"] == "R1.vm"
    rig.app.state.server.update(acl_resv_user_enable="False", resv_enable="False")
    reply = dispatch(Context(rig.app, OTHER), {"op": "resv_submit", "attrs": {
        "reserve_start": str(NOW + 60), "reserve_end": str(NOW + 120)}})
    assert (reply["code"], reply["msg"]) == (PBSE_RESVAUTH_U, "reservations disallowed on vm")


def test_standing_reservation_moves_through_its_occurrences(rig: Rig) -> None:
    """R40b/R42b (S prefix, reserve_index 1, reserve_count N, PBS_TZID), R46 (U with
    recurrence_rrule and timezone, Y with count); each end moves to the next occurrence;
    the last end deletes it."""
    reply = rig.rsub(NOW + 60, NOW + 120, reserve_rrule="FREQ=HOURLY;INTERVAL=2;COUNT=3",
                     reserve_standing="1", reserve_timezone="UTC",
                     Variable_List="PBS_O_LOGNAME=pbsuser2,PBS_O_HOST=vm,PBS_TZID=UTC")
    assert reply["id"] == "S0.vm"
    attrs = rig.attrs("S0.vm")
    assert (attrs["reserve_index"], attrs["reserve_count"], attrs["queue"]) == ("1", "3", "S0")
    assert rig.acct()[0].endswith("recurrence_rrule=FREQ=HOURLY;INTERVAL=2;COUNT=3 "
                                  "timezone=UTC")
    assert rig.acct()[1].endswith(" count=3")
    rig.tick(NOW + 60)
    rig.tick(NOW + 120)
    attrs = rig.attrs("S0.vm")
    assert (attrs["reserve_index"], attrs["reserve_state"], attrs["reserve_start"]) == \
        ("2", "2", str(NOW + 60 + 7200))
    rig.tick(NOW + 60 + 7200)
    assert rig.attrs("S0.vm")["reserve_state"] == "5"
    rig.tick(NOW + 120 + 7200)
    rig.tick(NOW + 120 + 14400)
    assert rig.error(USER, "resv_status", ids=["S0.vm"]) == PBSE_UNKRESVID


def test_reservations_survive_a_restart(rig: Rig) -> None:
    """The store keeps reservations like jobs: a new server on the same home has them."""
    rig.rsub(NOW + 60, NOW + 120, Reserve_Name="keep")
    again = ServerApp(rig.home, clock=lambda: NOW)
    again.bootstrap()
    kept = records.table(again)["R0.vm"]
    assert (kept["Reserve_Name"], kept["reserve_state"]) == ("keep", "2")
    assert "R0" in again.state.queues and again.state.nodes["vm"]["resv"] == "R0.vm"


def test_asap_takes_the_first_free_window(rig: Rig) -> None:
    """R25/R25b: ``-W qmove`` is confirmed at once, starts when the reservation holding the
    cpus ends, lasts the job's walltime; delete_idle_time 00:10:00; the job moves (R25c)."""
    rig.rsub(NOW + 5, NOW + 100, **{"Resource_List.select": "1:ncpus=1"})
    job = rig.call(USER, "queuejob", attrs={"Resource_List.select": "1:ncpus=2",
                                            "Resource_List.walltime": "00:01:00",
                                            "Hold_Types": "u"})["jobid"]
    reply = rig.rsub(1893488460, 0, qmove=job, interactive="-10",
                     **{"Resource_List.select": "1:ncpus=2",
                        "Resource_List.walltime": "00:01:00"})
    assert reply == {"id": "R2.vm", "state": "CONFIRMED"}
    attrs = rig.attrs("R2.vm")
    assert (attrs["reserve_start"], attrs["reserve_duration"], attrs["qmove"],
            attrs["delete_idle_time"]) == (str(NOW + 100), "60", job, "00:10:00")
    moved = rig.app.state.jobs[job]
    assert (moved["queue"], moved["reserve_ID"]) == ("R2", "R2.vm")
    assert rig.acct()[-3].startswith("U;R2.vm;requestor=pbsuser2@vm Interactive=-10")


def test_asap_denied_leaves_the_job_home(rig: Rig) -> None:
    """req_resvSub: an ASAP reservation that cannot be placed is denied; its job goes back
    to its own queue (the reservation's queue is gone)."""
    job = rig.call(USER, "queuejob", attrs={"Resource_List.select": "1:ncpus=4",
                                            "Hold_Types": "u"})["jobid"]
    reply = rig.rsub(1893488460, 0, qmove=job, **{"Resource_List.select": "1:ncpus=4",
                                                  "Resource_List.walltime": "00:01:00"})
    assert reply["state"] == "DENIED"
    back = rig.app.state.jobs[job]
    assert back["queue"] == "workq" and "reserve_ID" not in back


def test_maintenance_and_force_are_for_managers(rig: Rig) -> None:
    """pbs_rsub --hosts (extend m) and pbs_ralter -Wforce: PBSE_PERM for a user; a manager's
    maintenance reservation is confirmed at once (pbs_rsub prints CONFIRMED)."""
    attrs = {"reserve_start": str(NOW + 60), "reserve_end": str(NOW + 120),
             "Resource_List.select": "host=vm:ncpus=2", "Resource_List.place": "exclhost"}
    assert rig.error(USER, "resv_submit", attrs=attrs, extend="m") == PBSE_PERM
    reply = rig.call(ROOT, "resv_submit", attrs=attrs, extend="m", execvnodes="(vm:ncpus=2)")
    assert reply["state"] == "CONFIRMED"
    rig.rsub(NOW + 600, NOW + 700)
    assert rig.error(USER, "resv_alter", id="R1.vm", force=True,
                     attrs={"reserve_end": str(NOW + 800)}) == PBSE_PERM


def test_vnodes_without_resv_enable_take_no_reservation(rig: Rig) -> None:
    """confirm_reservation considers only vnodes with resv_enable (R09: True by default)."""
    rig.app.state.nodes["vm"]["resv_enable"] = "False"
    rig.rsub(NOW + 60, NOW + 120)
    assert rig.error(USER, "resv_status", ids=["R0.vm"]) == PBSE_UNKRESVID


def test_acl_resv_hosts_and_groups(rig: Rig) -> None:
    """req_resvSub: acl_resv_host_enable (PBSE_RESVAUTH_H, before an id is taken) and
    acl_resv_group_enable (PBSE_RESVAUTH_G)."""
    attrs = {"reserve_start": str(NOW + 60), "reserve_end": str(NOW + 120)}
    rig.app.state.server.update(acl_resv_host_enable="True", acl_resv_hosts="elsewhere")
    assert rig.error(USER, "resv_submit", attrs=attrs) == PBSE_RESVAUTH_H
    rig.app.state.server.update(acl_resv_host_enable="False", acl_resv_group_enable="True",
                                acl_resv_groups="nosuchgroup")
    assert rig.error(USER, "resv_submit", attrs=attrs) == PBSE_RESVAUTH_G
    rig.app.state.server["acl_resv_group_enable"] = "False"
    assert rig.rsub(NOW + 60, NOW + 120)["id"] == "R1.vm"  # the host refusal spent no id


def test_authorized_lists_are_the_queues_acls(rig: Rig) -> None:
    """get_queue_for_reservation: Authorized_Users, Authorized_Groups and Authorized_Hosts
    become the queue's acl_users, acl_groups and acl_hosts, each enabled; pbs_ralter -U / -G
    change them (req_modifyReservation; an unset -G removes the group ACL)."""
    rig.rsub(NOW + 60, NOW + 120, Authorized_Users="pbsuser2@vm", Authorized_Groups="staff",
             Authorized_Hosts="vm")
    queue = rig.app.state.queues["R0"]
    assert [(k, queue[k]) for k in queue if k.startswith("acl_")] == [
        ("acl_users", "pbsuser2@vm"), ("acl_user_enable", "True"), ("acl_groups", "staff"),
        ("acl_group_enable", "True"), ("acl_hosts", "vm"), ("acl_host_enable", "True")]
    rig.call(USER, "resv_alter", id="R0.vm",
             attrs={"Authorized_Users": "pbsuser@vm", "Authorized_Groups": "wheel"})
    assert (queue["acl_users"], queue["acl_groups"]) == ("pbsuser@vm", "wheel")
    rig.call(USER, "resv_alter", id="R0.vm", attrs={"Authorized_Groups": ""})
    assert "acl_groups" not in queue and "acl_group_enable" not in queue
    assert "Authorized_Groups" not in rig.attrs("R0.vm")


def test_queue_limits_are_the_reservations_resources(rig: Rig) -> None:
    """get_queue_for_reservation: resources_max/available are the Resource_List but nodect,
    select, place, walltime (R08); a job over them is refused at qsub (R51, 15036)."""
    rig.rsub(NOW + 60, NOW + 120, **{"Resource_List.select": "1:ncpus=1:mem=1gb"})
    queue = rig.app.state.queues["R0"]
    assert sorted(k for k in queue if k.startswith("resources_")) == [
        "resources_available.mem", "resources_available.ncpus", "resources_max.mem",
        "resources_max.ncpus"]
    reply = dispatch(Context(rig.app, USER), {"op": "queuejob", "attrs": {
        "queue": "R0", "Resource_List.select": "1:ncpus=1:mem=2gb"}})
    assert reply["code"] == 15036
    job = rig.call(USER, "queuejob", attrs={"queue": "R0",
                                            "Resource_List.select": "1:ncpus=1:mem=512mb"})
    assert rig.app.state.jobs[job["jobid"]]["reserve_ID"] == "R0.vm"


def test_a_queue_of_that_name_fails_the_reservation(rig: Rig) -> None:
    """req_resvSub: the reservation's queue cannot be created: PBSE_resvFail (15081)."""
    rig.app.state.queues["R0"] = {"queue_type": "Execution", "enabled": "True"}
    assert rig.error(USER, "resv_submit", attrs={"reserve_start": str(NOW + 60),
                                                 "reserve_end": str(NOW + 120)}) == 15081
    assert rig.app.state.queues["R0"] == {"queue_type": "Execution", "enabled": "True"}


def test_queued_jobs_wait_for_the_next_occurrence(rig: Rig) -> None:
    """Time4resvFinish of a standing reservation's occurrence: the queue is stopped, its
    queued jobs stay for the next occurrence; the last end ends them (R53d's comment)."""
    rig.rsub(NOW + 60, NOW + 120, reserve_rrule="FREQ=HOURLY;COUNT=2", reserve_standing="1",
             reserve_timezone="UTC")
    job = rig.call(USER, "queuejob", attrs={"queue": "S0"})["jobid"]
    rig.tick(NOW + 60)
    rig.tick(NOW + 120)
    assert rig.app.state.jobs[job]["job_state"] == "Q"
    assert rig.app.state.queues["S0"]["enabled"] == "True"
    rig.tick(NOW + 60 + 3600)
    rig.tick(NOW + 120 + 3600)
    assert rig.app.state.jobs.get(job, {}).get("job_state", "F") == "F"
