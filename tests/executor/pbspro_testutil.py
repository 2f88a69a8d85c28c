"""Helpers for the executor's unit tests: transcripts captured from a real OpenPBS 23.06.06
(copied from the project's fidelity set into tests/data/qstat)."""
import json
from pathlib import Path
from typing import Dict, Union

from psij import JobStatus

from psijpbs.qstat_output import parse_qstat
from psijpbs.tracking import StatusTracker

DATA = Path(__file__).parent.parent / 'data' / 'qstat'


def transcript(name: str) -> Dict[str, Union[str, int]]:
    """One captured command (``command``, ``stdout``, ``stderr``, ``exit_code``) by file prefix."""
    matches = sorted(DATA.glob(name + '*.json'))
    assert len(matches) == 1, 'expected one transcript for %r, found %s' % (name, matches)
    data: Dict[str, Union[str, int]] = json.loads(matches[0].read_text())
    return data


def merged_output(case: Dict[str, Union[str, int]]) -> str:
    """stdout and stderr as PSI/J's ``_run_command`` merges them on failure."""
    out, err = str(case['stdout']), str(case['stderr'])
    if out and err:
        return out + '\n' + err
    return out or err


def poll_statuses(exit_code: int, out: str) -> Dict[str, JobStatus]:
    """What one poll concludes for each job qstat reported, by the executor's own path
    (``parse_qstat`` then ``StatusTracker.decide``; no ``.ec`` file, no cancel)."""
    result = parse_qstat(exit_code, out)
    tracker = StatusTracker(lambda native_id: None, lambda native_id: False)
    statuses: Dict[str, JobStatus] = {}
    for native_id in result.jobs:
        status = tracker.decide(native_id, result)
        if status is not None:
            statuses[native_id] = status
    return statuses
