"""Request handlers, one module per family; ``load_all()`` imports them."""
import importlib

from fake_pbs.server.handlers.registry import (Caller, Context, Handler, dispatch, handler,
                                               registered)

__all__ = ["Caller", "Context", "Handler", "dispatch", "handler", "registered", "load_all"]

_MODULES = ("submit", "status", "jobctl", "running", "admin", "qmgr", "tm", "resv")


def load_all() -> None:
    """Import every handler module so that their ``@handler`` registrations run."""
    for name in _MODULES:
        importlib.import_module("fake_pbs.server.handlers." + name)
