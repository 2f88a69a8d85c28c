"""Reservations between real users on a root-started cluster: only the owner or a manager may
delete or alter one (req_deleteReservation / req_modifyReservation: PBSE_PERM), the queue takes
only its Authorized_Users' jobs (R08: acl_users), and a request cannot set the server's own
fields.  Skips without root or without pbsuser and pbsuser2 (tools/make_fidelity_users.sh).
"""
import time

import pytest

from ..reliability.rig import Rig
from ..security import test_attribute_rules as rules
from ..security.test_attribute_rules import raw, rig, submit_raw

# root and the two users, and the same one-host cluster (its ``rig`` fixture)
pytestmark = [pytest.mark.cluster, rules.pytestmark]
__all__ = ["rig"]


def _rsub(rig: Rig, user: str) -> str:
    start = int(time.time()) + 600
    reply = raw(rig, user, "resv_submit", attrs={"reserve_start": str(start),
                                                 "reserve_end": str(start + 60)})
    assert reply["ok"], reply
    return str(reply["data"]["id"])


def test_another_user_may_neither_delete_nor_alter(rig: Rig) -> None:
    resv = _rsub(rig, "pbsuser2")
    assert raw(rig, "pbsuser", "resv_delete", id=resv)["code"] == 15007
    assert raw(rig, "pbsuser", "resv_alter", id=resv,
               attrs={"Reserve_Name": "mine"})["code"] == 15007
    assert raw(rig, "pbsuser2", "resv_alter", id=resv, attrs={"Reserve_Name": "ok"})["ok"]
    assert raw(rig, "root", "resv_delete", id=resv)["ok"]  # a manager may


def test_only_authorized_users_submit_into_the_queue(rig: Rig) -> None:
    resv = _rsub(rig, "pbsuser2")
    queue = resv.split(".")[0]
    assert submit_raw(rig, "pbsuser", queue=queue)["code"] == 15007
    assert submit_raw(rig, "pbsuser2", queue=queue)["ok"]
    assert raw(rig, "pbsuser2", "resv_delete", id=resv)["ok"]


def test_private_fields_cannot_be_sent(rig: Rig) -> None:
    start = int(time.time()) + 600
    for name in ("_uid", "reserve_state", "resv_nodes", "queue"):
        reply = raw(rig, "pbsuser", "resv_submit", attrs={
            "reserve_start": str(start), "reserve_end": str(start + 60), name: "0"})
        assert reply["code"] == 15002, (name, reply)
