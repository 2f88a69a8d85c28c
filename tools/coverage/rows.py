"""One row of the coverage map: an attribute's state, the tests that pin it, its PBS source,
and the reason.  ``states.py`` holds the rows; ``generate.py`` writes docs/coverage.md from them.
"""
from typing import NamedTuple, Tuple

BEHAVES = "behaves"
STORED = "stored only"
NOT_MODELLED = "not modelled"
STATES = (BEHAVES, STORED, NOT_MODELLED)


class Row(NamedTuple):
    state: str
    tests: Tuple[str, ...] = ()
    source: str = ""
    reason: str = ""
    #: for a "not modelled" row another helper is implementing now: that area's name
    in_progress: str = ""


def behaves(source: str, *tests: str) -> Row:
    """Acted on as PBS acts on it (``source``: the OpenPBS file:function it follows), pinned
    by ``tests`` (node ids, ``tests/...py::test_name``)."""
    return Row(BEHAVES, tuple(tests), source)


def stored(reason: str) -> Row:
    """Kept and shown, and rightly nothing more (``reason`` says why that is PBS's behaviour
    here)."""
    return Row(STORED, reason=reason)


def missing(reason: str) -> Row:
    """Not modelled: refused (or PBS itself refuses every write) and listed in
    docs/differences.md."""
    return Row(NOT_MODELLED, reason=reason)


def in_progress(area: str, reason: str = "") -> Row:
    """Not modelled yet, being implemented by helper ``area`` (the lead updates the row when
    that branch merges)."""
    return Row(NOT_MODELLED, reason=reason or "in progress by " + area, in_progress=area)


def refused(what: str) -> Row:
    """Not modelled, and a value other than PBS's default is refused."""
    return missing(what + "; refused")


def refused_when_true(what: str) -> Row:
    """Not modelled, and setting the switch true is refused."""
    return missing(what + "; refused when set true")
