"""statjob's display order (model/attrs.ordered) is unchanged by the per-key-set cache."""
from typing import Dict, List, Sequence

from fake_pbs.model import attrs as order


def _reference(values: Dict[str, str], seq: Sequence[str], hidden: Sequence[str]) -> List[str]:
    index = {name: i for i, name in enumerate(seq)}
    names = [n for n in values if not n.startswith("_") and n.partition(".")[0] not in hidden]
    return sorted(names, key=lambda n: order._position(index, n))


def test_cached_order_matches_a_fresh_sort() -> None:
    """qstat -f attribute order (transcripts q*): a repeated key set gives the same order."""
    job = {"zeta_custom": "1", "Resource_List.walltime": "1", "job_state": "F", "Job_Name": "x",
           "Resource_List.ncpus": "1", "euser": "u", "_internal": "y", "Job_Owner": "o"}
    for manager in (True, False, True):
        hidden = () if manager else tuple(order.JOB_MANAGER_ONLY)
        want = _reference(job, order.JOB_ATTR_ORDER, hidden)
        assert [n for n, _ in order.job_pairs(job, manager)] == want


def test_same_keys_under_another_order_are_not_confused() -> None:
    """Queue and job orders differ: one key set is ordered by each sequence's own ranks."""
    values = {"state_count": "a", "queue_type": "b", "job_state": "c", "enabled": "d"}
    for seq in (order.JOB_ATTR_ORDER, order.QUEUE_ATTR_ORDER, order.JOB_ATTR_ORDER):
        assert [n for n, _ in order.ordered(values, seq)] == _reference(values, seq, ())
    fresh = ("enabled", "job_state", "queue_type", "state_count")
    assert [n for n, _ in order.ordered(values, fresh)] == list(fresh)
    backwards = tuple(reversed(fresh))
    assert [n for n, _ in order.ordered(values, backwards)] == list(backwards)
