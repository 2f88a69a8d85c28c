"""Assemble and run the server: app, handlers, scheduler, exec client, socket."""
import gc
import os
from pathlib import Path
from typing import Any, Callable, Optional

from fake_pbs import PBS_VERSION, paths
from fake_pbs.model.errors import PbsError
from fake_pbs.server.app import ServerApp
from fake_pbs.server.execclient import ExecClient
from fake_pbs.server.handlers import load_all
from fake_pbs.server.listener import Listener
from fake_pbs.server import vnodeslots, vnodestate
from fake_pbs.server.nodehealth import NodeHealth
from fake_pbs.server.sched.loop import Scheduler


def pid_file(home: Path) -> Path:
    return paths.run_dir(home) / "server.pid"


def build(home: Path) -> ServerApp:
    """A ready server application (state loaded, handlers registered), not yet serving."""
    app = ServerApp(home)
    app.bootstrap()
    load_all()
    app.scheduler = Scheduler(app)
    app.execs = ExecClient(app)
    # PBS's log lines for what other parts change: vnode states, each end record's usage.
    vnodeslots.state_observer = vnodestate.observer(app)
    app.acct.usage_log = app.log
    return app


def run(home: Path, install_signals: Optional[Callable[[Callable[[], None]], Any]] = None) -> int:
    home.mkdir(parents=True, exist_ok=True)
    _raise_fd_limit()
    app = build(home)
    listener = Listener(app, paths.server_socket(home))
    listener.open()
    if install_signals is not None:
        install_signals(app.stopping.set)
    _write_pid(home)
    _write_version(home)
    app.log.server("Server@%s started, pid %d" % (app.server_name, os.getpid()))
    health = NodeHealth(app)
    health.check_round()  # stale runs on the moms are discarded before anything is scheduled
    scheduler = app.scheduler
    assert isinstance(scheduler, Scheduler)
    scheduler.start()
    execs = app.execs
    assert isinstance(execs, ExecClient)
    execs.resume_all()
    health.start()
    app.trigger_schedule()
    _tune_collector()
    try:
        listener.serve_forever()
    finally:
        app.stopping.set()
        listener.close()
        scheduler.join(5.0)
        health.join(5.0)
        app.log.server("Server@%s shutting down" % app.server_name)
        if app.stop_moms:
            _stop_moms(app, execs)
        with app.state.lock:
            app.state.store.close()
        try:
            pid_file(home).unlink()
        except OSError:
            pass
    return 0


def _stop_moms(app: ServerApp, execs: ExecClient) -> None:
    """qterm -m (pbsd_main.c after its main loop): each mom is told to shut down; its jobs run
    on under their shepherds, as a pbs_mom's do when the server shuts it down."""
    with app.state.lock:
        hosts = sorted({str(node.get("Mom") or name) for name, node in app.state.nodes.items()})
    for host in hosts:
        try:
            execs.request(host, "shutdown")
        except (PbsError, OSError):
            pass  # a mom that is down already


def _raise_fd_limit(ceiling: int = 65536) -> None:
    """Use the descriptors the system allows (the soft limit is often 1024): each client
    connection holds one while it is served."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (OSError, ValueError):
            pass


def _tune_collector() -> None:
    """Keep the cyclic collector off the hot paths of a large state.

    The job dicts make no reference cycles, yet with the default thresholds every few hundred
    allocations of building a statjob reply set off a collection that walks the whole heap (a
    10,000-job reply took 4-8x longer with it; docs/performance.md, hotspot 4). Objects alive
    after start-up are frozen (never scanned again) and generation 0 is collected far less
    often; cycles are still collected, just in bigger batches.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def _write_pid(home: Path) -> None:
    path = pid_file(home)
    tmp = path.with_name("server.pid.tmp")
    tmp.write_text("%d\n" % os.getpid())
    os.replace(str(tmp), str(path))


def _write_version(home: Path) -> None:
    """``$PBS_HOME/pbs_version`` holds the emulated release, as an installed PBS's does (v02)."""
    path = home / "pbs_version"
    tmp = path.with_name("pbs_version.tmp")
    tmp.write_text("%s\n" % PBS_VERSION)
    os.replace(str(tmp), str(path))
