"""Figures of the coverage map: per object, how many attributes behave, are stored only, or are
not modelled (and of those, how many another helper is implementing now).

``python3 -m tools.coverage.probe`` prints them; docs/coverage.md carries them in its header.
"""
from typing import Dict, List, Optional, Tuple

from tools.coverage.rows import BEHAVES, NOT_MODELLED, STORED, Row
from tools.coverage.sources import OBJECTS, fake_attributes, pbs_attributes
from tools.coverage.states import TABLES

Figures = Dict[str, int]


def names_of(obj: str) -> List[str]:
    """Every attribute of ``obj`` the map must cover, PBS's order first, then the fake's own."""
    names = [name for o, name, _ in pbs_attributes() if o == obj]
    names += sorted(fake_attributes().get(obj, set()) - set(names))
    return names


def figures() -> List[Tuple[str, Figures]]:
    """(object, {state: count, "in progress": n, "total": n, "no state": n}) per object."""
    out = []
    for obj, _ in OBJECTS:
        rows = TABLES.get(obj, {})
        counts: Figures = {BEHAVES: 0, STORED: 0, NOT_MODELLED: 0, "in progress": 0,
                           "no state": 0, "total": 0}
        for name in names_of(obj):
            row: Optional[Row] = rows.get(name)
            counts["total"] += 1
            if row is None:
                counts["no state"] += 1
                continue
            counts[row.state] += 1
            if row.in_progress:
                counts["in progress"] += 1
        out.append((obj, counts))
    return out


def main() -> None:
    line = "%-12s %6s %8s %7s %13s %12s"
    print(line % ("object", "total", "behaves", "stored", "not modelled", "in progress"))
    for obj, counts in figures():
        print(line % (obj, counts["total"], counts[BEHAVES], counts[STORED],
                      counts[NOT_MODELLED], counts["in progress"]))


if __name__ == "__main__":
    main()
