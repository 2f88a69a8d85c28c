"""execjob_abort end to end on a started fake cluster (golden f01-f05, reference §6.4/§9.1):
a rejecting prologue makes the primary mom run execjob_abort before execjob_end, and the job is
requeued (Exit_status -16) instead of finishing.  Hooks are set up with the qmgr command, from
the capture's own hook files."""
from pathlib import Path
from typing import List

from .hookrig import Cluster

HOOKS = Path("/work/shared/fidelity/scenario/hooks")


def test_prologue_reject_runs_abort_before_end_and_requeues(hc: Cluster) -> None:
    """f01/f04d/f05: pro_reject + abort_log + end_log; the mom logs prologue, abort, end in that
    order; the server requeues the job (Exit_status -16)."""
    for name, event in (("pro_reject", "execjob_prologue"), ("abort_log", "execjob_abort"),
                        ("end_log", "execjob_end")):
        hc.qmgr("create hook %s event=%s" % (name, event))
        hc.qmgr("import hook %s application/x-python default %s" % (name, HOOKS / (name + ".py")))
    jobid = hc.submit()
    hc.runjob(jobid, "(node1:ncpus=1)")
    attrs = hc.wait(jobid, "Q", run_count=1)
    assert attrs["Exit_status"] == "-16"
    hc.wait_log("mom:node1", "ran execjob_end for %s" % jobid)
    ran: List[str] = hc.messages("mom:node1", ";ran ")
    assert ran == ["ran execjob_prologue for %s (rejecting)" % jobid,
                   "ran execjob_abort for %s" % jobid, "ran execjob_end for %s" % jobid]
    assert hc.messages("mom:node1", ";pbs_mom;Hook;pro_reject;execjob_prologue request rejected "
                                    "by 'pro_reject'")
    assert hc.messages("server", "Job;%s;hook rejected request, requiring job to be rerun"
                       % jobid)
