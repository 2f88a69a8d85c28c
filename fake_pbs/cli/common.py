"""What every fake PBS command shares: finding the cluster, one connection, PBS-style errors.

Kept to the standard library and few imports: these commands are called thousands of times, and
a Python start-up costs more than a request.  Nothing imported here may import ``os`` (use
:mod:`fake_pbs.leanos`), ``typing``, ``socket``, ``json``, ``re`` or ``pathlib`` at run time
(``docs/performance.md``).
"""
from __future__ import annotations

import sys

from fake_pbs import leanos, paths
from fake_pbs.model.errors import PBSE_NOSERVER, PbsError
from fake_pbs.protocol import LineChannel, call, connect
from fake_pbs.verified_connect import Untrusted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, NoReturn, Optional

_channel: Optional[LineChannel] = None


def server_channel(autostart: bool = True) -> LineChannel:
    """The connection to this cluster's server, starting the cluster first if none runs.

    Autostart is the embedded default; ``FAKE_PBS_AUTOSTART=0`` (or ``autostart`` False: qterm)
    turns it off (then a missing server is reported as PBS reports an unreachable one).  A
    socket that fails :mod:`fake_pbs.verified_connect`'s checks (another user's, maybe a trap)
    gets nothing, not even an autostart: the command says why and fails as for an unreachable
    server.
    """
    global _channel
    if _channel is not None:
        return _channel
    home = paths.cluster_home_path()
    sock = paths.server_socket_path(home)
    try:
        _channel = connect(sock)
        return _channel
    except Untrusted as err:
        raise _refused(err) from None
    except OSError as first:
        refused = first.errno or 0
        if not autostart or leanos.getenv("FAKE_PBS_AUTOSTART", "1") == "0":
            raise PbsError(PBSE_NOSERVER,
                           "cannot connect to server (errno=%d)" % (first.errno or 0))
    from fake_pbs import control  # imported only when the cluster must be started

    try:
        control.ensure_running(paths.cluster_home(home))
    except (control.ControlError, OSError) as err:  # e.g. another user's home: no traceback
        sys.stderr.write("fake-pbs: cannot start the cluster: %s\n" % err)
        raise PbsError(PBSE_NOSERVER,
                       "cannot connect to server (errno=%d)" % refused) from None
    try:
        _channel = connect(sock)
    except Untrusted as err:
        raise _refused(err) from None
    return _channel


def _refused(err: Untrusted) -> PbsError:
    sys.stderr.write("fake-pbs: %s\n" % err)
    return PbsError(PBSE_NOSERVER, "cannot connect to server (errno=%d)" % (err.errno or 0))


def drop_channel() -> None:
    """Forget a connection the server broke (the next request connects again)."""
    global _channel
    if _channel is not None:
        _channel.close()
        _channel = None


def request(op: str, **args: Any) -> Any:
    """One request to the server; raises :class:`PbsError` on an error reply."""
    return call(server_channel(), op, **args)


def wide_ids(server: Optional[Dict[str, Any]]) -> bool:
    """qstat's and pbs_rstat's test to widen their id columns: the server record's
    ``max_job_sequence_id`` exceeds 7 digits."""
    if server is None:
        return False
    for item in server.get("attrs", []):
        if item[0] == "max_job_sequence_id":
            digits = str(item[1]).strip()
            return digits.isdigit() and int(digits) > 9999999
    return False


def die(cmd: str, message: str, code: int) -> NoReturn:
    """Print ``cmd: message`` on stderr and exit with ``code`` (already reduced modulo 256)."""
    sys.stderr.write("%s: %s\n" % (cmd, message))
    sys.stderr.flush()
    raise SystemExit(code)


def run_main(cmd: str, body: Callable[[List[str]], int]) -> None:
    """Run a command's ``body(argv)`` and turn escaping errors into PBS-style exits.

    The cyclic garbage collector is switched off first: a command lives for one request and
    makes no reference cycles worth collecting, while decoding and rendering a large reply
    (``qstat -f -F json -x`` of 10,000 jobs: millions of lists and tuples) otherwise spends
    most of its time in collections that find nothing (docs/performance.md).
    """
    import _signal  # type: ignore[import-not-found]  # C module under signal: no enum import
    import gc

    gc.disable()
    # Like the C commands, die quietly of SIGPIPE when the reader has gone (`qsub ... | head -0`)
    # instead of Python's ignored SIGPIPE and a traceback from the final flush.
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    try:
        status = body(sys.argv[1:])
    except PbsError as err:
        die(cmd, err.text, err.exit_code)
    except BrokenPipeError:
        try:
            sys.stdout.close()
        except OSError:
            pass
        status = 1
    except KeyboardInterrupt:
        status = 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        status = status or 1
    raise SystemExit(status)
