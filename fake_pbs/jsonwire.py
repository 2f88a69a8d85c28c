"""JSON for the wire without importing :mod:`json` (which imports ``re``: together they cost a
PBS command more start-up time than all its own work).

:func:`dumps` gives exactly ``json.dumps(value, ensure_ascii=True, separators=(",", ":"))`` and
:func:`loads` exactly ``json.loads(text)``, using the C accelerator module ``_json`` that the
``json`` package itself uses.  Where ``_json`` is missing or its interface differs (another Python
implementation or version), both fall back to :mod:`json`.  ``tests/bench/test_jsonwire.py``
pins the equivalence.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Tuple


def _no_default(value: Any) -> Any:
    raise TypeError("Object of type %s is not JSON serializable" % type(value).__name__)


def _constant(name: str) -> float:
    # NaN, Infinity and -Infinity, as json.loads accepts them.
    return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


class _ScanContext:
    """The attributes ``_json.make_scanner`` reads from a ``json.JSONDecoder``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_constant)

    def __init__(self) -> None:
        self.memo: dict = {}  # type: ignore[type-arg]


def _fast() -> Tuple[Callable[[Any], str], Callable[[str], Any]]:
    import _json

    encoder = _json.make_encoder(
        None, _no_default, _json.encode_basestring_ascii, None, ":", ",", False, False, True)
    scan = _json.make_scanner(_ScanContext())  # type: ignore[arg-type]

    def fast_dumps(value: Any) -> str:
        if isinstance(value, str):  # the C encoder wants a container at the top
            return str(_json.encode_basestring_ascii(value))
        return "".join(encoder(value, 0))

    def fast_loads(text: str) -> Any:
        body = text.strip(" \t\n\r")
        try:
            value, end = scan(body, 0)
        except (StopIteration, SystemError):
            # Malformed text: the bare scanner stops, or (inside a container) fails without an
            # error of its own (SystemError); json raises its precise ValueError for both.
            import json
            return json.loads(text)
        if end != len(body):
            import json
            return json.loads(text)
        return value

    if fast_loads(fast_dumps({"a": [1, 2.5, "\u00e9", None, True]})) != {
            "a": [1, 2.5, "\u00e9", None, True]}:
        raise ImportError("_json does not behave as expected")
    return fast_dumps, fast_loads


def _slow() -> Tuple[Callable[[Any], str], Callable[[str], Any]]:
    import json

    def slow_dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"))

    return slow_dumps, json.loads


try:
    dumps, loads = _fast()
except (ImportError, AttributeError, TypeError):  # pragma: no cover - other Pythons
    dumps, loads = _slow()
