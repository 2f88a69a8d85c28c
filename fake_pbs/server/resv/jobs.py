"""A job entering a queue: a reservation's queue marks it as the reservation's.

svr_chkque / svr_enquejob: a job submitted or moved into a reservation's queue gets
``reserve_ID`` (R11, R13c) and its accounting records name the reservation (``resvname=NULL
resvID=R875.vm``, R30); moved out of it, it is no longer the reservation's.  That it asks for
no more than the reservation's resources (R51: ``Job violates queue and/or server resource
limits``) is svr_chkque's queue ``resources_max`` check (fake_pbs/server/enqueue.py), those
being the reservation's resources.
"""
from typing import Any, Dict

from fake_pbs.server.app import ServerApp
from fake_pbs.server.resv import records


def enter_queue(app: ServerApp, job: Dict[str, Any], queue: str) -> None:
    resv = records.of_queue(app, queue)
    if resv is None:
        job.pop("reserve_ID", None)
        job.pop("_resvname", None)
        return
    job["reserve_ID"] = resv["_id"]
    job["_resvname"] = resv.get("Reserve_Name", "NULL")
