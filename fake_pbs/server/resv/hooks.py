"""The reservation hook events (``resvsub``, ``resv_confirm``, ``resv_begin``, ``resv_end``),
run through the server's hook points with ``pbs.event().resv`` (docs/hooks.md)."""
from fake_pbs.server import hookpoints
from fake_pbs.server.app import ServerApp
from fake_pbs.server.resv.records import Resv


def run(app: ServerApp, event: str, resv: Resv) -> None:
    """Run ``event``'s hooks; ``resvsub`` raises PbsError(PBSE_HOOKERROR) when rejected."""
    hookpoints.current().resv_event(app, event, resv)
