"""Attributes PBS acts on that fake_pbs does not: refused, never stored and ignored.

"Accepted and ignored is a bug" (docs/differences.md, docs/coverage.md): a value that would make
PBS act is refused with 15029 (``No support for requested service``) and a text naming the
attribute; the value that changes nothing (PBS's default, what the fake does anyway) is taken,
so ``qmgr`` scripts and ``print server`` output replayed as input still work.  Hook
``fail_action`` is flagged in the server log instead of refused: captured transcripts set it
on hooks whose failures they never exercise.

One row per attribute: object -> name -> the stored values that are taken (empty: none).
Resources are job requests (``Resource_List.<name>``, at qsub and qalter).
"""
from typing import Dict, FrozenSet, Optional

from fake_pbs.model.errors import PBSE_NOSUP, PbsError, message_for

_FALSE = frozenset(("False",))
_NONE: FrozenSet[str] = frozenset()
#: a job's boolean as qsub/qalter send it (not yet decoded): PBS's spellings of false, which
#: :func:`refusal` compares without case
_FALSE_SENT = frozenset(("false", "f", "n", "0"))

REFUSED: Dict[str, Dict[str, FrozenSet[str]]] = {
    "server": {
        "require_cred_enable": _FALSE, "require_cred": _NONE, "eligible_time_enable": _FALSE,
        "backfill_depth": _NONE,
        "restrict_res_to_release_on_suspend": _NONE, "show_hidden_attribs": _FALSE,
        "resv_post_processing_time": _NONE,
    },
    "queue": {
        "require_cred_enable": _FALSE, "require_cred": _NONE,
        "backfill_depth": _NONE, "partition": _NONE,
    },
    "node": {
        "provision_enable": _FALSE, "current_aoe": _NONE, "vnode_pool": _NONE,
        "power_provisioning": _FALSE, "current_eoe": _NONE, "partition": _NONE,
    },
    "sched": {
        "sched_preempt_enforce_resumption": _FALSE,
    },
    "job": {"create_resv_from_job": _FALSE_SENT,
            "release_nodes_on_stageout": _FALSE_SENT,
            "tolerate_node_failures": frozenset(("none",))},
    "resource": {
        "min_walltime": _NONE, "max_walltime": _NONE,
        "partition": _NONE, "aoe": _NONE,
    },
}

#: Taken and stored, with a line in the server log saying the fake does not act on it.
FLAGGED: Dict[str, FrozenSet[str]] = {"hook": frozenset(("fail_action",))}

_WHY = "%s (fake_pbs does not model %s: docs/differences.md)"


def refusal(objtype: str, name: str, value: str) -> Optional[PbsError]:
    """The error for setting ``name`` (``resources_available.x`` finds ``resources_available``)
    of ``objtype`` to the stored ``value``; None when the fake takes it."""
    base = name.split(".", 1)[0]
    table = REFUSED.get(objtype, {})
    taken = table.get(base)
    if taken is None:
        for known in table:  # attribute names are case-insensitive (qmgr_attrs.find)
            if known.lower() == base.lower():
                taken = table[known]
    if taken is None or value in taken or value.lower() in taken:
        return None
    return PbsError(PBSE_NOSUP, _WHY % (message_for(PBSE_NOSUP), name))


def check(objtype: str, name: str, value: str) -> None:
    """Raise :func:`refusal`'s error, if any."""
    error = refusal(objtype, name, value)
    if error is not None:
        raise error


#: dependency types PBS acts on (req_register.c: sync-start, run one of) that the fake does
#: not: a ``depend`` naming one is refused
DEPEND_REFUSED = frozenset(("synccount", "syncwith", "runone"))


def _check_depend(value: str) -> None:
    for item in value.split(","):
        kind = item.split(":", 1)[0].strip()
        if kind in DEPEND_REFUSED:
            raise PbsError(PBSE_NOSUP, _WHY % (message_for(PBSE_NOSUP), "depend=" + kind))


def check_request(name: str, value: str) -> None:
    """A job attribute as a client sends it: ``Resource_List.<resource>`` asks the resource row,
    any other name the job row (and ``depend`` its types).  An empty value (qalter's unset) is
    always taken."""
    if value == "":
        return
    base, _, resource = name.partition(".")
    if base == "Resource_List" and resource:
        check("resource", resource, value)
    elif base == "depend":
        _check_depend(value)
    else:
        check("job", base, value)


def flag_text(objtype: str, name: str) -> Optional[str]:
    """The server-log line for a flagged attribute, None for the others."""
    if name not in FLAGGED.get(objtype, frozenset()):
        return None
    return "%s %s is stored but not acted on: fake_pbs does not model it (docs/differences.md)" % (
        objtype, name)
