"""What the reservation command tests share: the transcripts of group R, a UTC clock, and a
stand-in for the server's reservation requests (no daemons)."""
import calendar
import json
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from fake_pbs.cli import common
from fake_pbs.model.errors import PBSE_UNKRESVID, PbsError

RESV = Path(__file__).resolve().parent.parent / "data" / "fidelity" / "openpbs-23.06.06-resv"
STATES = {"RESV_UNCONFIRMED": "1", "RESV_CONFIRMED": "2", "RESV_RUNNING": "5",
          "RESV_BEING_DELETED": "7"}
DATES = ("reserve_start", "reserve_end", "ctime", "mtime")


def case(name: str) -> Dict[str, Any]:
    """One transcript (``R04_rstat_f``)."""
    return dict(json.loads((RESV / (name + ".json")).read_text(encoding="utf-8")))


def case_time(name: str) -> float:
    """When the transcript's command ran (its ``time``), as epoch seconds."""
    stamp = case(name)["time"]
    whole, _, frac = stamp.rstrip("Z").partition(".")
    return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) + float("0." + frac)


def wire_records(full_listing: str) -> List[Dict[str, Any]]:
    """The ``resv_status`` records a ``pbs_rstat -f`` listing was made from: the inverse of
    the rendering (dates back to epoch seconds in UTC, long state names back to numbers)."""
    records: List[Dict[str, Any]] = []
    for block in full_listing.split("Resv ID: ")[1:]:
        lines = block.rstrip("\n").split("\n")
        attrs: Dict[str, str] = {}
        for line in lines[1:]:
            key, _, value = line.partition(" = ")
            if key == "reserve_state":
                value = STATES[value]
            elif key in DATES:
                value = str(calendar.timegm(time.strptime(value, "%a %b %d %H:%M:%S %Y")))
            attrs[key] = value
        records.append({"name": lines[0], "attrs": attrs})
    return records


def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """TZ=UTC for the process, as the transcripts were captured (a fixture's body:
    ``yield from utc(monkeypatch)``)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


Handler = Callable[..., Any]


class StubServer:
    """Answers ``common.request`` from per-op handlers and records every request."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: List[Tuple[str, Dict[str, Any]]] = []
        self.handlers: Dict[str, Handler] = {"ping": lambda **a: {"server_name": "vm"},
                                             "statsvr": lambda **a: {"name": "vm", "attrs": []}}
        monkeypatch.setattr(common, "request", self.request)
        from fake_pbs.cli import jobctl

        monkeypatch.setattr(jobctl, "_server_name", "vm")

    def on(self, op: str, handler: Handler) -> None:
        self.handlers[op] = handler

    def request(self, op: str, **args: Any) -> Any:
        self.calls.append((op, args))
        return self.handlers[op](**args)

    def sent(self, op: str) -> List[Dict[str, Any]]:
        return [args for name, args in self.calls if name == op]


def unknown_resv(**_: Any) -> Any:
    raise PbsError(PBSE_UNKRESVID)


def run(command: Any, argv: List[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], now: Optional[float] = None) -> Tuple[int, str, str]:
    """Run a command module's ``body`` over ``argv[1:]`` as ``common.run_main`` does (a
    :class:`PbsError` becomes ``<cmd>: <text>`` and its code): (exit status, stdout, stderr)."""
    import sys

    if now is not None:
        monkeypatch.setattr(time, "time", lambda: now)
    try:
        code = command.body(argv[1:])
    except PbsError as err:
        sys.stderr.write("%s: %s\n" % (argv[0], err.text))
        code = err.exit_code
    out, err_text = capsys.readouterr()
    return code, out, err_text
