"""A job entering a queue: a reservation's queue marks it as the reservation's.

svr_chkque / svr_enquejob: a job submitted or moved into a reservation's queue gets
``reserve_ID`` (R11, R13c), its accounting records name the reservation (``resvname=NULL
resvID=R875.vm``, R30), and it may ask for no more than the reservation's resources (R51:
``Job violates queue and/or server resource limits``: the queue's resources_max, which
are the reservation's resources); moved out of it,
it is no longer the reservation's.
"""
from typing import Any, Dict

from fake_pbs.model.errors import PBSE_EXCQRESC, PbsError
from fake_pbs.model.nodes import resource_amount
from fake_pbs.server.app import ServerApp
from fake_pbs.server.resv import records


def enter_queue(app: ServerApp, job: Dict[str, Any], queue: str) -> None:
    resv = records.of_queue(app, queue)
    if resv is None:
        job.pop("reserve_ID", None)
        job.pop("_resvname", None)
        return
    for key, limit in app.state.queues.get(queue, {}).items():
        if not key.startswith("resources_max."):
            continue
        res = key.split(".", 1)[1]
        asked = job.get("Resource_List." + res)
        try:
            if asked is not None and resource_amount(res, asked) > resource_amount(res, limit):
                raise PbsError(PBSE_EXCQRESC)
        except ValueError:
            continue
    job["reserve_ID"] = resv["_id"]
    job["_resvname"] = resv.get("Reserve_Name", "NULL")
