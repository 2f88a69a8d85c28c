"""The scheduler: one pure ``run_cycle`` over the server's attribute dicts (see ``cycle``)."""
from fake_pbs.server.sched.cycle import CycleResult, Preemption, Run, run_cycle

__all__ = ["CycleResult", "Preemption", "Run", "run_cycle"]
