"""Route queues (src/server/job_route.c job_route, default_router; svr_movejob.c local_move
with MOVE_TYPE_Route, should_retry_route) and max_queuable (svr_chkque step 2)."""
from fake_pbs.testing import FakeCluster, wait_for


def route_setup(pbs: FakeCluster) -> None:
    pbs.qmgr("create queue r queue_type = route")
    pbs.qmgr("create queue small queue_type = execution, enabled = true, started = true")
    pbs.qmgr("set queue small resources_max.ncpus = 1")
    pbs.qmgr("set queue small from_route_only = true")
    pbs.qmgr("create queue big queue_type = execution, enabled = true, started = true")
    pbs.qmgr("set queue r route_destinations = small")
    pbs.qmgr("set queue r route_destinations += big")
    pbs.qmgr("set queue r enabled = true")


def test_jobs_go_to_the_first_destination_that_takes_them(pbs: FakeCluster) -> None:
    """default_router: destinations in order; a from_route_only queue takes routed jobs."""
    route_setup(pbs)
    pbs.qmgr("set queue r started = true")
    one = pbs.qsub("true", "-h", "-q", "r", "-l", "ncpus=1")
    two = pbs.qsub("true", "-q", "r", "-l", "ncpus=2")
    pbs.qmgr("set server scheduling = true")
    wait_for(lambda: pbs.job(two)["queue"] == "big", 30, "the 2-cpu job routed to big")
    assert pbs.job(one)["queue"] == "r"  # held, and route_held_jobs is False
    pbs.qmgr("set queue r route_held_jobs = true")
    pbs.qsub("true", "-q", "r")  # any event runs the router again
    wait_for(lambda: pbs.job(one)["queue"] == "small", 30, "the held job routed to small")


def test_waiting_jobs_are_routed_only_with_route_waiting_jobs(pbs: FakeCluster) -> None:
    """job_route: a job in state W (qsub -a in the future) stays in the route queue unless
    route_waiting_jobs is True."""
    route_setup(pbs)
    pbs.qmgr("set queue r started = true")
    later = pbs.qsub("true", "-q", "r", "-a", "2359")
    pbs.wait(pbs.qsub("true"))  # an event that runs the router
    assert (pbs.job(later)["queue"], pbs.job(later)["job_state"]) == ("r", "W")
    pbs.qmgr("set queue r route_waiting_jobs = true")
    pbs.qsub("true", "-q", "r")
    wait_for(lambda: pbs.job(later)["queue"] == "small", 30, "the waiting job routed to small")


def test_stopped_route_queue_keeps_its_jobs(pbs: FakeCluster) -> None:
    route_setup(pbs)
    job = pbs.qsub("true", "-q", "r")
    pbs.qsub("true")
    pbs.wait(pbs.qsub("true"))
    assert pbs.job(job)["queue"] == "r"


def test_rejected_by_all_destinations_is_aborted(pbs: FakeCluster) -> None:
    """default_router: every destination refusing for good: job_abt(msg_routebad)."""
    route_setup(pbs)
    pbs.qmgr("set queue big resources_max.ncpus = 2")
    pbs.qmgr("set queue r started = true")
    job = pbs.qsub("true", "-q", "r", "-l", "ncpus=4")
    shown = pbs.wait(job)
    assert shown["comment"] == "Job rejected by all possible destinations"


def test_max_queuable(pbs: FakeCluster) -> None:
    """svr_chkque step 2: PBSE_MAXQUED (15046, exit 22)."""
    pbs.qmgr("set queue workq max_queuable = 1")
    pbs.qsub("true", "-h")
    done = pbs.run(["qsub", "--", "/bin/true"])
    assert (done.returncode, done.stderr) == (
        15046 % 256, "qsub: Maximum number of jobs already in queue\n")


def test_manager_move_skips_queue_checks(pbs: FakeCluster) -> None:
    """svr_chkque: a manager's qmove (MOVE_TYPE_MgrMv) skips steps 2 (enabled, max_queuable),
    2a (max_array_size) and the limits."""
    pbs.qmgr("create queue q2 queue_type = execution, enabled = false, started = true")
    pbs.qmgr("set queue q2 max_array_size = 3")
    pbs.qmgr("set queue q2 max_queued = [o:PBS_ALL=0]")
    job = pbs.qsub("true", "-h", "-J", "1-4")
    pbs.sh("qmove", "q2", job)
    assert pbs.job(job)["queue"] == "q2"


def test_route_lifetime_aborts_the_job(pbs: FakeCluster) -> None:
    """job_route: a job in the route queue longer than route_lifetime is aborted with
    msg_routexceed."""
    route_setup(pbs)
    pbs.qmgr("set queue r route_lifetime = 1")
    pbs.qmgr("set queue r started = true")
    job = pbs.qsub("true", "-h", "-q", "r")  # held: never routed

    def over() -> bool:
        pbs.qsub("true")  # an event: the router runs again
        return pbs.job(job)["job_state"] == "F"
    wait_for(over, 30, "the route lifetime to pass", poll=1.0)
    assert pbs.job(job)["comment"] == "Route queue lifetime exceeded"
