"""The golden cases: one JSON file per command captured from real OpenPBS, plus log excerpts."""
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "fidelity"

# Set name -> folder under tests/data/fidelity.
SETS: Dict[str, str] = {
    "release": "openpbs-23.06.06",
    "extra": "openpbs-23.06.06-extra",
    "master": "openpbs-master",
    "resv": "openpbs-23.06.06-resv",
}
# The sets the replay runs (the master set is read for reference only), in replay order.
REPLAYED_SETS: Tuple[str, ...] = ("release", "extra", "resv")

# The release set's prefixes that the replay tests cover (the README's letters).
RELEASE_PREFIXES = "abcdefghv"
# The resv set's groups that the replay covers (its README's letters): D, pbsdsh, pbs_tmrsh and
# pbs_attach (its R and I cases are pinned by tests/reservations and tests/interactive).
RESV_PREFIXES = "D"
_COVERED = {"release": RELEASE_PREFIXES, "resv": RESV_PREFIXES}


@dataclass(frozen=True)
class LogSpec:
    """How a log-excerpt case was cut from a daemon log, and how to cut the fake's the same way.

    ``daemon`` is ``server``, ``mom``, ``sched`` or ``accounting``; lines logged from just before
    case ``mark`` (or the whole day's log when None) are kept when they match ``include`` and not
    ``exclude``; with ``by_objects`` only lines about the objects (jobs, hooks) that the golden
    excerpt mentions are kept; ``head`` keeps the first N lines.  ``timing_free`` compares both
    sides without the lines that only PBS's timing decides (harness/timingfree.py).
    """

    daemon: str
    mark: Optional[str] = None
    include: Optional[str] = None
    exclude: Optional[str] = None
    by_objects: bool = False
    head: Optional[int] = None
    timing_free: bool = False


@dataclass(frozen=True)
class Case:
    """One golden case: what ran (user, cwd, command) and what real PBS printed."""

    name: str
    set_name: str
    user: str
    cwd: str
    command: str
    exit_code: int
    stdout: str
    stderr: str
    time: str
    log: Optional[LogSpec] = None

    @property
    def prefix(self) -> str:
        return prefix_of(self.name)


def prefix_of(name: str) -> str:
    """The case's section letter: ``b`` for ``b05_qstat_...``."""
    return name[:1]


def covered(case: "Case") -> bool:
    """Whether the replay covers ``case`` (every case of a set without a prefix list)."""
    prefixes = _COVERED.get(case.set_name)
    return prefixes is None or case.prefix in prefixes


def set_dir(set_name: str, data_dir: Path = DATA_DIR) -> Path:
    return data_dir / SETS[set_name]


def load_set(set_name: str, data_dir: Path = DATA_DIR) -> List[Case]:
    """The command cases of a set, in the order they were captured (their ``time``)."""
    cases = []
    for path in sorted(set_dir(set_name, data_dir).glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(raw, dict) or "command" not in raw:
            continue  # not a case (hook config data such as cfg_use.json)
        cases.append(Case(
            name=str(raw.get("case", path.stem)), set_name=set_name, user=str(raw["user"]),
            cwd=str(raw["cwd"]), command=str(raw["command"]), exit_code=int(raw["exit_code"]),
            stdout=str(raw["stdout"]), stderr=str(raw["stderr"]), time=str(raw["time"])))
    cases.sort(key=lambda case: (case.time, case.name))
    return cases


def log_case(set_name: str, file_name: str, spec: LogSpec, after: Case,
             data_dir: Path = DATA_DIR, stamp: str = "") -> Case:
    """A log-excerpt case: its expected text is the ``.log`` file; it is checked after ``after``.
    Its ``time`` is ``stamp`` (when the excerpt's last line was logged) or else ``after``'s."""
    path = set_dir(set_name, data_dir) / file_name
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    name = file_name[:-len(".log")] if file_name.endswith(".log") else file_name
    return Case(name=name, set_name=set_name, user="root", cwd="/root",
                command="<log excerpt: %s log>" % spec.daemon, exit_code=0, stdout=text,
                stderr="", time=max(stamp, after.time), log=spec)
