"""Assemble and run the server: app, handlers, scheduler, exec client, socket."""
import os
from pathlib import Path
from typing import Any, Callable, Optional

from fake_pbs import PBS_VERSION, paths
from fake_pbs.server.app import ServerApp
from fake_pbs.server.execclient import ExecClient
from fake_pbs.server.handlers import load_all
from fake_pbs.server.listener import Listener
from fake_pbs.server.nodehealth import NodeHealth
from fake_pbs.server.scheduling import Scheduler


def pid_file(home: Path) -> Path:
    return paths.run_dir(home) / "server.pid"


def build(home: Path) -> ServerApp:
    """A ready server application (state loaded, handlers registered), not yet serving."""
    app = ServerApp(home)
    app.bootstrap()
    load_all()
    app.scheduler = Scheduler(app)
    app.execs = ExecClient(app)
    return app


def run(home: Path, install_signals: Optional[Callable[[Callable[[], None]], Any]] = None) -> int:
    home.mkdir(parents=True, exist_ok=True)
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
    try:
        listener.serve_forever()
    finally:
        app.stopping.set()
        listener.close()
        scheduler.join(5.0)
        health.join(5.0)
        app.log.server("Server@%s shutting down" % app.server_name)
        with app.state.lock:
            app.state.store.close()
        try:
            pid_file(home).unlink()
        except OSError:
            pass
    return 0


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
