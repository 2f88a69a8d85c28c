"""A job id with another server's suffix is refused, never taken for this server's job
(issue 10; docs/differences.md).

PBS's commands resolve the suffix as a server host (get_server); one that does not resolve is
``<cmd>: illegally formed job identifier: <id>`` with exit 1 (transcript b18 for qstat; the same
line in qdel.c, qalter.c, qhold.c, qrls.c, qsig.c, qrerun.c, qrun.c, qmove.c).  A raw request
naming such an id is an unknown job (15001) at the server.
"""
from typing import List

import pytest

from fake_pbs.model.errors import PBSE_UNKJOBID, PbsError
from ..reliability.rig import Rig


@pytest.mark.parametrize("argv", [["qdel"], ["qalter", "-N", "x"], ["qhold"], ["qrls"],
                                  ["qsig", "-s", "SIGTERM"], ["qmsg", "hi"], ["qrerun"],
                                  ["qmove", "workq"], ["qrun"]])
def test_commands_refuse_a_foreign_suffix(rig: Rig, argv: List[str]) -> None:
    jobid = rig.qsub("sleep 30", "-h", user="pbsuser")
    foreign = jobid.split(".")[0] + ".othersrv"
    user = "root" if argv[0] == "qrun" else "pbsuser"
    done = rig.run(argv + [foreign], user=user)
    assert (done.returncode, done.stderr) == (
        1, "%s: illegally formed job identifier: %s\n" % (argv[0], foreign))
    attrs = rig.job(jobid)
    assert attrs["job_state"] == "H" and attrs["Job_Name"] == "STDIN"
    rig.run(["qdel", jobid], user="pbsuser")


def test_the_server_does_not_resolve_a_foreign_suffix(rig: Rig) -> None:
    jobid = rig.qsub("sleep 30", "-h", user="pbsuser")
    seq = jobid.split(".")[0]
    for raw in (seq + ".othersrv", seq + ".othersrv.example.com", seq + ".vmx"):
        with pytest.raises(PbsError) as caught:
            rig.call("deljob", id=raw, force=False, purge=False)
        assert caught.value.code == PBSE_UNKJOBID
    assert rig.job(jobid)["job_state"] == "H"
    for same in (seq, seq + ".vm", seq + ".VM.example.com"):
        assert rig.call("statjob", id=same, extend="")[0]["id"] == jobid
    rig.run(["qdel", jobid], user="pbsuser")
