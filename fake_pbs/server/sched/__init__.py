"""The scheduler: one pure ``run_cycle`` over the server's attribute dicts (``cycle``), run by the
server's scheduling thread (``loop``, imported by the daemon, not here)."""
from fake_pbs.server.sched.cycle import CycleResult, Preemption, Run, run_cycle

__all__ = ["CycleResult", "Preemption", "Run", "run_cycle"]
