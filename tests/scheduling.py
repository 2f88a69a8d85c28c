"""How the suite's tests are spread over xdist workers (tests/conftest.py, docs/testing.md).

xdist's ``loadfile`` sends a whole file to one worker, so a module's cluster fixtures start once;
its ``loadgroup`` keeps the tests of an ``xdist_group`` on one worker but sends every other test on
its own.  Here a test's unit is its group when it has one, and else its file: the fidelity replay's
chains (tests/fidelity/harness/chains.py) each replay in order on one worker, side by side, and
every other file stays whole.  The groups go out first (the chains are the run's longest units;
waiting at PBS's pace, they would end the run late if handed out last), then the files with the
most tests, as xdist orders them.
"""
from typing import Any

from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]


class FileOrGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """xdist's scope scheduling, a scope being a test's ``xdist_group`` or else its file."""

    def _split_scope(self, nodeid: str) -> str:
        # In loadgroup mode the workers tag a grouped test's id ``<id>@<group>``; an ``@`` of a
        # parameter's id (``test_user_lists[pbsuser@vm-...]``) comes before the closing ``]``.
        tail = nodeid.rsplit("@", 1)[-1]
        if "@" in nodeid and "]" not in tail and "::" not in tail:
            return "group:" + tail
        return nodeid.split("::", 1)[0]

    def _assign_work_unit(self, node: Any) -> None:
        """The next unit for ``node``: a group while any is left, else the queue's next."""
        groups = [scope for scope in self.workqueue if scope.startswith("group:")]
        if groups:
            self.workqueue.move_to_end(groups[0], last=False)
        super()._assign_work_unit(node)
