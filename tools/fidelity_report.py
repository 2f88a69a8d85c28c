#!/usr/bin/env python3
"""Replay the golden OpenPBS transcripts against fake_pbs and print a per-prefix match table.

usage: tools/fidelity_report.py [--set all|release|extra|resv] [--only PREFIXES] [-v] [--diff NAME]
                               [--goal PERCENT [--goal-only]] [--timing]

Runs as the tests do (tests/fidelity): root starts a conformance-mode cluster in a temporary
FAKE_PBS_HOME and replays each case as its user; see docs/fidelity.md.  By default both sets
replay, each on its own cluster, and the table ends with each set's figure and its verdict.
Exit status 0 when every replayed case matches or is listed in tests/fidelity/known_differences.py
(intended difference, timing snapshot or open gap) and, with ``--goal P``, at least P percent of
each set's replayed cases match or differ as intended (with ``--goal-only``: only that, and no
case that could not be replayed).
"""
import argparse
import sys
from pathlib import Path
from typing import List

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fidelity.harness.cases import REPLAYED_SETS, covered  # noqa: E402
from fidelity.harness.replay import Outcome, chain_replayers  # noqa: E402
from fidelity.harness.report import format_table, tally, time_profile, verdict  # noqa: E402
from fidelity.known_differences import KNOWN_DIFFERENCES, OPEN_GAPS, TIMING_SNAPSHOTS  # noqa: E402


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=REPLAYED_SETS + ("all",), default="all")
    parser.add_argument("--only", default="", help="replay up to the cases of these prefixes")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each case's status")
    parser.add_argument("--diff", action="append", default=[],
                        help="print the diff of this case (repeatable; 'all' for every failure)")
    parser.add_argument("--goal", type=float, default=0.0, metavar="PERCENT",
                        help="fail also when fewer than PERCENT of a set's replayed cases match "
                             "or differ as intended (the issue's 95)")
    parser.add_argument("--goal-only", action="store_true",
                        help="with --goal: unlisted differing cases are reported, and only the "
                             "goal and cases that could not be replayed fail the run")
    parser.add_argument("--timing", action="store_true",
                        help="print where the replay's wall time went (per case and in sum)")
    args = parser.parse_args(argv)
    known = dict(KNOWN_DIFFERENCES, **TIMING_SNAPSHOTS)
    sets = list(REPLAYED_SETS) if args.set == "all" else [args.set]
    outcomes: List[Outcome] = []
    # each chain of a set (tests/fidelity/harness/chains.py) in turn, on its own cluster
    replayers = [replayer for set_name in sets
                 for replayer in chain_replayers(set_name, dict(known, **OPEN_GAPS))]
    for replayer in replayers:
        try:
            for case in replayer.cases():
                if not covered(case):
                    continue
                if args.only and case.prefix not in args.only:
                    continue
                outcome = replayer.outcome(case.name)
                outcomes.append(outcome)
                if args.verbose:
                    timing = (" %.1fs %d %.1fs" % (outcome.seconds, outcome.attempts,
                                                   outcome.plateau)
                              if args.timing else "")
                    print("%-8s %s%s" % (outcome.status, case.name, timing), flush=True)
                if outcome.status != "match" and (case.name in args.diff or "all" in args.diff):
                    print(outcome.explain(), "\n", flush=True)
        finally:
            replayer.close()
    table = tally(outcomes, known, OPEN_GAPS)
    print("\n".join(format_table(table)))
    if args.timing:
        print("\n".join(time_profile(outcomes)))
    passed, lines = verdict(table, args.goal, args.goal_only)
    print("\n".join(lines))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
