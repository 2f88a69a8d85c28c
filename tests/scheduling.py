"""How the suite's tests are spread over xdist workers (tests/conftest.py, docs/testing.md).

xdist's ``loadfile`` sends a whole file to one worker, so a module's cluster fixtures start once.
Here the unit is the file too, except for the fidelity replay: each of its chains
(tests/fidelity/harness/chains.py) is a unit, replayed in order on one worker, the chains side by
side.  (The replay's cases also carry an ``xdist_group`` per chain, but xdist 3.8's ``loadgroup``
tags a test's id with its group by assigning ``item._nodeid``, which pytest 9's ids no longer read:
the controller finds a case's chain from its id instead.)  The chains go out first (waiting at
PBS's pace, they would end the run late if handed out last), then :data:`LONG_FILES`, then the
other files, those with the most tests first, as xdist orders them: the longest units first, so
that the workers end together.
"""
from typing import Any, Dict, Tuple

from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

REPLAY_TEST = "tests/fidelity/test_replay.py::test_golden_case["
CHAIN_PREFIX = "chain:"

# Files whose tests took about 15 s or more in sum (bench/suite_profile.py, root, a 0700 clone,
# load 4-6, 2026-11-27; docs/testing.md), longest first: handed out early, so that the last
# units of the run are short ones and the workers end together (a long file handed out last
# ended one worker ~25 s after the others).  The hypothesis property tests
# (test_startup, test_submit_path, test_json_block_fast) are CPU-bound: far longer under load.
LONG_FILES: Tuple[str, ...] = (
    "tests/server/test_pace.py",
    "tests/multinode/test_tm.py",
    "tests/security/test_render_values.py",
    "tests/reliability/test_hook_crash.py",
    "tests/security/test_job_ids.py",
    "tests/security/test_mom_records.py",
    "tests/security/test_identity.py",
    "tests/security/test_runner.py",
    "tests/reservations/test_server_cluster.py",
    "tests/security/test_job_files.py",
    "tests/reliability/test_server_crash.py",
    "tests/preempt/test_slow_mom.py",
    "tests/bench/test_bench_smoke.py",
    "tests/interactive/test_transcripts.py",
    "tests/cli/test_runner_workers.py",
    "tests/security/test_hostile_paths.py",
    "tests/reliability/test_crash_points.py",
    "tests/security/test_runner_imports.py",
    "tests/executor/test_e2e.py",
    "tests/reliability/test_stop.py",
    "tests/server/test_control.py",
    "tests/executor/test_load.py",
    "tests/multinode/test_lost_sister.py",
    "tests/bench/test_startup.py",
    "tests/reliability/test_node_down.py",
    "tests/security/test_server_access.py",
    "tests/interactive/test_session.py",
    "tests/reliability/test_security.py",
    "tests/docs/test_coverage_behaviours.py",
    "tests/reservations/test_group_r.py",
    "tests/reliability/test_mom_crash.py",
    "tests/preempt/test_delete.py",
    "tests/bench/test_submit_path.py",
    "tests/security/test_connect.py",
    "tests/cli/test_json_block_fast.py",
)


_chains: Dict[str, str] = {}


def unit_of(nodeid: str) -> str:
    """A test's unit: ``chain:<name>`` for a replay case (its chain), else its file."""
    if nodeid.startswith(REPLAY_TEST):
        if not _chains:
            from .fidelity.harness.cases import REPLAYED_SETS
            from .fidelity.harness.chains import chain_plans
            _chains.update((c.name, chain.name) for set_name in REPLAYED_SETS
                           for chain in chain_plans(set_name) for c in chain.cases())
        case = nodeid[len(REPLAY_TEST):].split("]", 1)[0]
        return CHAIN_PREFIX + _chains.get(case, "release")
    return nodeid.split("::", 1)[0]


class FileOrGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """xdist's scope scheduling, a scope being a replay case's chain or else a test's file."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)

    def _assign_work_unit(self, node: Any) -> None:
        """The next unit for ``node``: a chain while any is left, then a long file, else the
        queue's next."""
        first = [scope for scope in self.workqueue if scope.startswith(CHAIN_PREFIX)]
        first = first or [name for name in LONG_FILES if name in self.workqueue]
        if first:
            self.workqueue.move_to_end(first[0], last=False)
        super()._assign_work_unit(node)
