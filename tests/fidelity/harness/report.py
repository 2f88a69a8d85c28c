"""The per-prefix match table printed by tools/fidelity_report.py and the pytest summary."""
from typing import Dict, Iterable, List, Mapping, Optional, Sequence

from .replay import Outcome

COLUMNS = ("prefix", "total", "match", "known", "gap", "differ", "skip", "error")


def tally(outcomes: Iterable[Outcome], known: Mapping[str, str],
          gaps: Optional[Mapping[str, str]] = None) -> Dict[str, Dict[str, int]]:
    """Counts per ``set/prefix``: known = listed intended difference that indeed differs; gap =
    listed open gap (a fidelity bug not fixed yet) that indeed differs."""
    table: Dict[str, Dict[str, int]] = {}
    for outcome in outcomes:
        key = "%s/%s" % (outcome.case.set_name, outcome.case.prefix)
        row = table.setdefault(key, {name: 0 for name in COLUMNS[1:]})
        row["total"] += 1
        status = outcome.status
        if status == "differ" and outcome.case.name in known:
            status = "known"
        elif status == "differ" and gaps and outcome.case.name in gaps:
            status = "gap"
        row[status if status in row else "error"] += 1
    return table


def format_table(table: Mapping[str, Mapping[str, int]]) -> List[str]:
    """Aligned rows (matched/total per prefix), a total line per set and one for all."""
    lines = [_row(COLUMNS[0], COLUMNS[1:])]
    totals = {name: 0 for name in COLUMNS[1:]}
    sets: Dict[str, Dict[str, int]] = {}
    for key in sorted(table):
        row = table[key]
        lines.append(_row(key, [str(row[name]) for name in COLUMNS[1:]]))
        per_set = sets.setdefault(key.split("/")[0], {name: 0 for name in COLUMNS[1:]})
        for name in totals:
            totals[name] += row[name]
            per_set[name] += row[name]
    for set_name in sorted(sets):
        lines.append(_row(set_name, [str(sets[set_name][name]) for name in COLUMNS[1:]]))
    lines.append(_row("all", [str(totals[name]) for name in COLUMNS[1:]]))
    return lines + ["", *figures(sets)]


def figures(sets: Mapping[str, Mapping[str, int]]) -> List[str]:
    """One line per set: matched (and matched or listed as intended) out of the replayed."""
    lines = []
    for set_name in sorted(sets):
        row = sets[set_name]
        replayed = row["total"] - row["skip"]
        share = 100.0 * row["match"] / replayed if replayed else 0.0
        listed = 100.0 * (row["match"] + row["known"]) / replayed if replayed else 0.0
        lines.append("%s: %d/%d match (%.1f%%), %.1f%% with intended differences" % (
            set_name, row["match"], replayed, share, listed))
    return lines


def _row(label: str, cells: Sequence[str]) -> str:
    return "%-12s" % label + "".join("%7s" % cell for cell in cells)
