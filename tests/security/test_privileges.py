"""The server's ``managers`` and ``operators`` lists are honoured (issue 10).

PBS: a manager may do anything; an operator may act on any job (qdel, qalter, qhold -o, qrun,
qrerun) and set or unset the attributes that are not manager-only (``NO_USER_SET`` vs
``MGR_ONLY_SET`` in OpenPBS's attribute definitions), but not create or delete objects; everyone
else gets ``Unauthorized Request`` (15007; transcripts d10g, k05m).
"""
from ..reliability.rig import Rig

QMGR_PERM = ("qmgr obj=%s svr=default: Unauthorized Request \n"
             "qmgr: Error (15007) returned from server\n")


def _qmgr(rig: Rig, user: str, command: str) -> "tuple[int, str]":
    done = rig.run(["qmgr", "-c", command], user=user)
    return done.returncode, done.stderr


def test_a_listed_manager_manages(rig: Rig) -> None:
    assert _qmgr(rig, "root", "set server managers += pbsuser@*")[0] == 0
    victim = rig.qsub("sleep 30", "-h", user="pbsuser2")
    assert _qmgr(rig, "pbsuser", "set server scheduling = False") == (0, "")
    assert _qmgr(rig, "pbsuser", "create queue extra queue_type=execution") == (0, "")
    assert rig.run(["qdel", victim], user="pbsuser").returncode == 0
    rig.wait(victim)
    # Not listed: still refused.
    assert _qmgr(rig, "pbsuser2", "set server scheduling = True") == (159, QMGR_PERM % "")
    # job_sort_formula: root's alone (PBS's qmgr hands it over in a root-only file), which
    # any manager may unset (svr_func.c decode_formula)
    code, err = _qmgr(rig, "pbsuser", "set server job_sort_formula = ncpus")
    assert code == 159 and "Unauthorized Request" in err, err
    assert _qmgr(rig, "root", "set server job_sort_formula = ncpus") == (0, "")
    assert _qmgr(rig, "pbsuser", "unset server job_sort_formula") == (0, "")


def test_an_operator_operates_but_does_not_manage(rig: Rig) -> None:
    assert _qmgr(rig, "root", "set server operators = pbsuser2@*")[0] == 0
    jobid = rig.qsub("sleep 30", "-h", user="pbsuser")
    for argv in (["qhold", "-h", "o", jobid], ["qalter", "-N", "renamed", jobid],
                 ["qrls", "-h", "o", jobid], ["qrls", jobid]):
        done = rig.run(argv, user="pbsuser2")
        assert done.returncode == 0, (argv, done.stderr)
    assert rig.job(jobid)["Job_Name"] == "renamed"
    rig.wait(jobid, "R")
    assert _qmgr(rig, "pbsuser2", "set server scheduling = False") == (0, "")
    code, err = _qmgr(rig, "pbsuser2", "set server managers += pbsuser2@*")
    assert code == 159 and "Unauthorized Request" in err, err
    code, err = _qmgr(rig, "pbsuser2", "create queue extra")
    assert code == 159 and "Unauthorized Request" in err, err
    assert rig.run(["qdel", jobid], user="pbsuser2").returncode == 0
    rig.wait(jobid)
    # An ordinary user still cannot touch another's job.
    other = rig.qsub("true", "-h", user="pbsuser2")
    done = rig.run(["qdel", other], user="pbsuser")
    assert done.returncode == 159, done.stderr
    rig.run(["qdel", other], user="pbsuser2")
