"""A set's plan cut into chains that replay side by side, each on a cluster of its own.

A replay waits at PBS's pace (``--pace pbs``): the release set's one chain of cases took about 4
minutes, most of it the capture's own timing (f24's 67 s of execjob_abort attempts, b08c's
walltime kill, g01's first f run).  Where the capture's later cases depend on the history before
them only through state a few commands rebuild (hooks, a scheduler setting, the next job number),
the plan is cut there: the later chain starts a fresh cluster numbering jobs from the capture's
next id, runs its ``prelude`` (those commands) in place of the steps the plan put before its first
case, and replays the rest of its cases as the whole chain would.  Every case is still replayed
and compared in full; a chain only changes which cluster holds the history a case sees.

A later chain's cluster must not share the golden users' homes with the first chain, which runs
at the same time on another worker: its ``pbsuser``/``pbsuser2`` work in scratch homes of the
length of ``/home/<user>``, owned by them (environment.py), as an ordinary user's replay does.

The cuts (tests/fidelity/test_plan.py checks that each prelude leaves the hooks as the whole
chain has them at the cut):

* before g01 (19:53:34): the first f run (replay.sh's, 18.vm, whose hooks give g11 its hook-sync
  lines) and section g need, of sections a-h, only no hooks (h1 deleted before e01), the
  scheduler's ``preempt_order = SCR`` (d09's step) and job number 18;
* before f20 (19:59:48): f21-f24 need the hooks f01-f12 left (pro_reject enabled; abort_log,
  end_log and abort_raise disabled) and job number 23 (22.vm, held, was deleted before f20).
"""
from dataclasses import dataclass
from typing import Dict, List, Tuple, Union

from .cases import Case, load_set
from .environment import FIRST_JOB_SEQ
from .plan import FIRST_F_RUN, Run, Step, build_plan

Item = Union[Case, Step]


@dataclass(frozen=True)
class Chain:
    """A chain's start: the job number its cluster starts from and the commands that rebuild
    the state its cases need, in place of the steps the plan puts before its first case."""

    first_job_seq: int
    prelude: Tuple[Step, ...]
    why: str


def _case_command(name: str) -> str:
    return next(case.command for case in load_set("release") if case.name == name)


_SCHED_ORDER = Run("root", "qmgr -c 'set sched preempt_order = SCR'", "",
                   "replay.sh after d08l (the scheduler's setting sections d-h left)")
_F_HOOKS_OFF = ("; ".join("qmgr -c 'set hook %s enabled=false'" % name for name in
                          ("pro_reject", "abort_log", "end_log"))
                + "; qmgr -c 'set hook pro_reject enabled=true'"
                  "; qmgr -c 'set hook abort_log enabled=false'")

RELEASE_CHAINS: Dict[str, Chain] = {
    "g01_create_express_queue": Chain(18, (_SCHED_ORDER,) + tuple(FIRST_F_RUN), (
        "sections a-h end with no job queued or running (d01's clean-up), no hook (h1 deleted "
        "before e01) and preempt_order SCR; the first f run and section g start at 18.vm")),
    "f20_setup_abort_sleep": Chain(23, (
        Run("root", _case_command("f01_setup_hooks"), "", "f01: the f hooks"),
        Run("pbsuser", "sleep 6", "", "replay_f.sh: sleep 6 after f01 (the mom has the hooks)"),
        Run("root", _F_HOOKS_OFF, "", "replay_f.sh after f08"),
        Run("root", _case_command("f10_setup_abort_raise"), "", "f10: abort_raise"),
        Run("root", "qmgr -c 'set hook abort_raise enabled=false'", "",
            "replay_f.sh after f12")), (
        "f21-f24 see only the hooks of f01-f12 (21.vm and 22.vm were deleted); 23.vm is next")),
}

CHAINS: Dict[str, Dict[str, Chain]] = {"release": RELEASE_CHAINS, "extra": {}}


@dataclass
class ChainPlan:
    """One chain: its name (the set's for the first, ``<set>-<case prefix>`` after), the job
    number its cluster starts from, and its plan (cases and steps, in replay order)."""

    name: str
    first_job_seq: int
    plan: List[Item]

    @property
    def first(self) -> bool:
        return "-" not in self.name

    def cases(self) -> List[Case]:
        return [item for item in self.plan if isinstance(item, Case)]


def chain_plans(set_name: str) -> List[ChainPlan]:
    """The set's plan cut at its chains' first cases, in replay order."""
    starts = CHAINS.get(set_name, {})
    chains = [ChainPlan(set_name, FIRST_JOB_SEQ.get(set_name, 0), [])]
    for item in build_plan(set_name):
        if isinstance(item, Case) and item.name in starts:
            current = chains[-1].plan
            while current and not isinstance(current[-1], Case):
                current.pop()  # the steps before this case: the prelude stands for them
            chain = starts[item.name]
            chains.append(ChainPlan("%s-%s" % (set_name, item.name.split("_", 1)[0]),
                                    chain.first_job_seq, list(chain.prelude)))
        chains[-1].plan.append(item)
    return chains


def chain_of(set_name: str) -> Dict[str, str]:
    """Each case's chain name."""
    return {case.name: chain.name for chain in chain_plans(set_name) for case in chain.cases()}
