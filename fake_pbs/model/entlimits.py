"""PBS's entity limits (``max_queued``, ``max_run``, ``queued_jobs_threshold`` and their ``_res``
forms): ``[o:PBS_ALL=N]``, ``[u:PBS_GENERIC=N]``, ``[u:name=N]``, ``[g:...]``, ``[p:...]``.

The checks follow the server's svr_func.c (check_single_entity_ct, check_single_entity_res and
the four ``check_entity_*_limit_*`` functions that call them): the overall limit first, then the
user's, the group's and the project's, each by its own (specific) limit when one is set and by
the generic one otherwise; a limit is exceeded when usage plus what the job adds is above it.
The messages are pbs_messages.c's ``msg_et_*`` texts, with PBS's own argument quirk kept: the
queue's generic per-user text is given ``"generic"`` where the queue's name belongs
(``would exceed queue generic's per-user limit``).
"""
from typing import Callable, Dict, Mapping, NamedTuple, Optional, Tuple

from fake_pbs.model import ecl
from fake_pbs.model.errors import PbsError

ALL = "PBS_ALL"
GENERIC = "PBS_GENERIC"
#: entity kinds in the order PBS checks them
KINDS = ("o", "u", "g", "p")

Limits = Dict[Tuple[str, str], str]


def parse(value: Optional[str]) -> Limits:
    """``[u:PBS_GENERIC=2],[o:PBS_ALL=10]`` -> {("u", "PBS_GENERIC"): "2", ("o", "PBS_ALL"): "10"}.

    Values qmgr accepted (model/qmgr_attrs.py ``_entity``) parse; anything else is skipped.
    """
    out: Limits = {}
    for item in (value or "").split(","):
        item = item.strip()
        if not (item.startswith("[") and item.endswith("]")):
            continue
        kind, _, rest = item[1:-1].strip().partition(":")
        name, equal, number = rest.partition("=")
        if equal and kind.strip() in KINDS:
            out[(kind.strip(), name.strip())] = number.strip()
    return out


class Entity(NamedTuple):
    """Who a job counts for: its execution user, group and project."""

    user: str
    group: str
    project: str

    def name(self, kind: str) -> str:
        return {"o": ALL, "u": self.user, "g": self.group, "p": self.project}[kind]


def amount(kind: str, value: str) -> float:
    """A resource value as a number to compare: sizes in bytes, times in seconds."""
    text = value.strip()
    if kind == "size":
        return float(ecl.parse_size(text))
    if kind == "time":
        return float(ecl.parse_time(text))
    return float(text)


#: (specific, generic) outcome of one entity against one limit table
SPECIFIC = "specific"
GENERIC_HIT = "generic"


def limit_for(limits: Limits, kind: str, name: str) -> Optional[Tuple[str, bool]]:
    """The limit on entity ``name`` of ``kind`` and whether it is its own (``[u:bob=2]``):
    a specific limit replaces the generic one; the overall kind (``o``) has no generic."""
    specific = limits.get((kind, name))
    if specific is not None:
        return specific, True
    if kind != "o":
        generic = limits.get((kind, GENERIC))
        if generic is not None:
            return generic, False
    return None


def _exceeds(limits: Limits, kind: str, name: str, total: float,
             parse_limit: Callable[[str], float]) -> Optional[str]:
    """check_single_entity_ct / _res: ``total`` above the limit that applies."""
    found = limit_for(limits, kind, name)
    if found is None or total <= parse_limit(found[0]):
        return None
    return SPECIFIC if found[1] else GENERIC_HIT


# -- job counts (max_queued, queued_jobs_threshold) -------------------------------------------
_CT = {
    # kind, outcome, on a queue?: message (queue name last where PBS passes it)
    ("o", SPECIFIC, True): "Maximum number of jobs{q} already in queue {queue}",
    ("o", SPECIFIC, False): "Maximum number of jobs{q} already in complex",
    ("u", SPECIFIC, True): "Maximum number of jobs{q} for user {name} already in queue {queue}",
    ("u", SPECIFIC, False): "Maximum number of jobs{q} for user {name} already in complex",
    ("u", GENERIC_HIT, True): "would exceed queue generic's per-user limit{qs}",
    ("u", GENERIC_HIT, False): "would exceed complex's per-user limit{qs}",
    ("g", SPECIFIC, True): "Maximum number of jobs{q} for group {name} already in queue {queue}",
    ("g", SPECIFIC, False): "Maximum number of jobs{q} for group {name} already in complex",
    ("g", GENERIC_HIT, True): "would exceed queue {queue}'s per-group limit{qs}",
    ("g", GENERIC_HIT, False): "would exceed complex's per-group limit{qs}",
    ("p", SPECIFIC, True): "Maximum number of jobs{q} for project {name} already in queue {queue}",
    ("p", SPECIFIC, False): "Maximum number of jobs{q} for project {name} already in complex",
    ("p", GENERIC_HIT, True): "would exceed queue {queue}'s per-project limit{qs}",
    ("p", GENERIC_HIT, False): "would exceed complex's per-project limit{qs}",
}


def check_count(limits: Limits, entity: Entity, usage: Mapping[Tuple[str, str], int],
                adding: int, queue: Optional[str], queued_only: bool) -> Optional[str]:
    """The message of the first count limit ``adding`` more jobs would exceed, else None.

    ``usage``: jobs counted per (kind, entity name), ``("o", "PBS_ALL")`` for all.
    ``queued_only``: the ``queued_jobs_threshold`` texts (``jobs in 'Q' state``).
    """
    for kind in KINDS:
        name = entity.name(kind)
        total = usage.get((kind, name), 0) + adding
        hit = _exceeds(limits, kind, name, total, float)
        if hit is not None:
            return _CT[(kind, hit, queue is not None)].format(
                q=" in 'Q' state" if queued_only else "", name=name, queue=queue,
                qs=" of jobs in 'Q' state" if queued_only else "")
    return None


# -- resource sums (max_queued_res, queued_jobs_threshold_res) --------------------------------
_RES = {
    ("o", SPECIFIC, True): "would exceed limit on resource {res} in queue {queue}",
    ("o", SPECIFIC, False): "would exceed limit on resource {res} in complex",
    ("u", SPECIFIC, True): "would exceed user {name}'s limit on resource {res} in queue {queue}",
    ("u", SPECIFIC, False): "would exceed user {name}'s limit on resource {res} in complex",
    ("u", GENERIC_HIT, True): "would exceed per-user limit on resource {res} in queue {queue}",
    ("u", GENERIC_HIT, False): "would exceed per-user limit on resource {res} in complex",
    ("g", SPECIFIC, True): "would exceed group {name}'s limit on resource {res} in queue {queue}",
    ("g", SPECIFIC, False): "would exceed group {name}'s limit on resource {res} in complex",
    ("g", GENERIC_HIT, True): "would exceed per-group limit on resource {res} in queue {queue}",
    ("g", GENERIC_HIT, False): "would exceed per-group limit on resource {res} in complex",
    ("p", SPECIFIC, True):
        "would exceed project {name}'s limit on resource {res} in queue {queue}",
    ("p", SPECIFIC, False): "would exceed project {name}'s limit on resource {res} in complex",
    ("p", GENERIC_HIT, True): "would exceed per-project limit on resource {res} in queue {queue}",
    ("p", GENERIC_HIT, False): "would exceed per-project limit on resource {res} in complex",
}


def check_resources(limits_by_res: Mapping[str, Limits], kinds: Mapping[str, str],
                    entity: Entity, usage: Mapping[Tuple[str, str, str], float],
                    request: Mapping[str, str], adding: int, queue: Optional[str],
                    queued_only: bool) -> Optional[str]:
    """The message of the first resource limit the job's ``request`` would exceed, else None.

    ``limits_by_res``: resource name -> its entity limits (``max_queued_res.ncpus``);
    ``kinds``: resource name -> type (``size``, ``time``, ``long``...); ``usage``: amounts per
    (kind, entity name, resource); ``adding``: how many jobs of this request (subjobs).
    """
    for res, value in request.items():
        limits = limits_by_res.get(res)
        if not limits:
            continue
        kind_of = kinds.get(res, "long")
        try:
            wanted = amount(kind_of, value) * adding
        except (ValueError, PbsError):
            continue

        def parse_limit(text: str, kind_of: str = kind_of) -> float:
            return amount(kind_of, text)
        for kind in KINDS:
            name = entity.name(kind)
            total = usage.get((kind, name, res), 0.0) + wanted
            try:
                hit = _exceeds(limits, kind, name, total, parse_limit)
            except (ValueError, PbsError):
                hit = None
            if hit is not None:
                text = _RES[(kind, hit, queue is not None)].format(
                    name=name, res=res, queue=queue)
                return text + (" for jobs in 'Q' state" if queued_only else "")
    return None


def by_resource(attrs: Mapping[str, str], prefix: str) -> Dict[str, Limits]:
    """``max_queued_res.ncpus`` and friends of an object: resource -> parsed limits."""
    start = prefix + "."
    return {key[len(start):]: parse(value) for key, value in attrs.items()
            if key.startswith(start)}
