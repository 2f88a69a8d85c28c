"""The server application: configuration, model, logs, scheduler and exec client together.

Request handlers, the scheduling thread and the exec-event threads all reach the server through
one :class:`ServerApp`.  It owns no socket (see ``listener.py``) so tests can drive it directly.
"""
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from fake_pbs import paths
from fake_pbs import pace
from fake_pbs.model import resources as rdefs
from fake_pbs.model import sched_config
from fake_pbs.server import config as cluster_config
from fake_pbs.server import defaults
from fake_pbs.server.logs import AccountingLog, DaemonLog
from fake_pbs.server.state import ServerState
from fake_pbs.server.store import Store


class ServerApp:
    def __init__(self, home: Path, clock: Callable[[], float] = time.time) -> None:
        self.home = home
        self.clock = clock
        self.config = cluster_config.load(home)
        self.pace = pace.of(self.config)  # end-of-job timing profile (fake_pbs/pace.py)
        self.server_name = str(self.config["server_name"])
        self.host = self.server_name
        self.owner_uid = int(self.config.get("owner_uid", os.getuid()))
        self.pid = os.getpid()
        self.state = ServerState(Store(paths.server_priv(home) / "server.db"))
        self.log = DaemonLog(home / "server_logs", "Server@%s" % self.server_name, clock,
                             self._log_mask)
        self.sched_log = DaemonLog(home / "sched_logs", "pbs_sched", clock,
                                   self._sched_log_mask)
        self.acct = AccountingLog(paths.server_priv(home) / "accounting", "", clock)
        self.stopping = threading.Event()
        self.stop_moms = False  # qterm -m: the moms are told to shut down after the server
        # Set by a phased shutdown: nothing new starts while in-flight starts settle.
        self.draining = threading.Event()
        # Set by __main__ once the scheduler and exec client exist (they need the app).
        self.scheduler: Optional["SchedulerLike"] = None
        self.execs: Optional["ExecLike"] = None

    def _log_mask(self) -> int:
        try:
            return int(self.state.server.get("log_events", "511"))
        except ValueError:
            return 511

    def _sched_log_mask(self) -> int:
        """The scheduler object's log_events (767, 0x2FF, by default), as PBS's scheduler
        takes it at each SCH_CONFIGURE."""
        try:
            return int(self.state.sched.get("log_events", "767"))
        except ValueError:
            return 767

    # -- set-up -------------------------------------------------------------------------------
    def bootstrap(self) -> None:
        """Load the stored state; on a fresh store create the configuration of a new install."""
        with self.state.lock:
            if not self.state.load():
                self.install_defaults()
            else:
                self._add_missing_nodes()
                if not paths.sched_config(self.home).exists():
                    self._install_site_resources()  # a home from before site_resources

    def install_defaults(self) -> None:
        state = self.state
        state.server = defaults.server_attrs(self.server_name, self.host)
        state.sched = defaults.sched_attrs(self.host, str(self.home))
        state.queues = {"workq": defaults.queue_attrs()}
        state.nodes = {}
        # A fake-only setting of cluster.json: the first job number of a new install (the
        # fidelity replay numbers like its capture did, so fixed-width columns line up).
        state.start_numbering(int(self.config.get("first_job_seq", 0)))
        self._add_missing_nodes()
        self._install_site_resources()
        state.save_all()

    def _install_site_resources(self) -> None:
        """What a site's admin does after install: `qmgr -c 'create resource NAME type=T,
        flag=F'` for each site resource, and the scheduled ones on sched_config's line."""
        site = site_resources(self.config)
        records = self.state.objects.setdefault("resource", {})
        for entry in site:
            name = str(entry["name"])
            if name not in records:
                records[name] = {"type": str(entry.get("type", "long")),
                                 "flag": str(entry.get("flag", ""))}
                self.state.save_object("resource", name)
        self._write_sched_config([str(e["name"]) for e in site if e.get("sched")])

    def _write_sched_config(self, scheduled: List[str]) -> None:
        """A new install's sched_priv/sched_config: PBS's resources line plus the site's."""
        path = paths.sched_config(self.home)
        if path.exists():
            return
        path.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
        path.write_text(sched_config.default_text(scheduled), encoding="utf-8")

    def read_sched_config(self) -> Optional[str]:
        """The scheduler's file as it is now (None when there is none)."""
        try:
            return paths.sched_config(self.home).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def _add_missing_nodes(self) -> None:
        now = self.now()
        for host in self.config.get("hosts", []):
            name = str(host["name"])
            if name not in self.state.nodes:
                self.state.nodes[name] = defaults.node_attrs(host, now)
                self.state.save_node(name)

    # -- shared helpers -----------------------------------------------------------------------
    def now(self) -> int:
        return int(self.clock())

    def trigger_schedule(self) -> None:
        """Ask for a scheduling cycle soon (after a submit, an end, a release, a qmgr change)."""
        if self.scheduler is not None:
            self.scheduler.trigger()

    def reconfigure_scheduler(self) -> None:
        """Tell the scheduler to re-read its configuration (PBS's SCH_CONFIGURE)."""
        if self.scheduler is not None:
            self.scheduler.reconfigure()

    def sched_consumables(self) -> Sequence[str]:
        """The consumables the scheduler schedules now (its resources line, read at start and
        at each SCH_CONFIGURE)."""
        if self.scheduler is not None:
            return self.scheduler.consumables()
        from fake_pbs.server.sched.resources import consumables_of
        return consumables_of(sched_config.scheduled(self.read_sched_config()),
                              self.state.objects.get("resource"))

    def history_enabled(self) -> bool:
        return self.state.server.get("job_history_enable", "False").lower() in ("true", "1", "y")


def site_resources(config: Dict[str, Any]) -> Sequence[Dict[str, Any]]:
    """The resources a new install creates: cluster.json ``site_resources`` when given (the
    fidelity replay gives none: PBS's built-ins only), else :data:`rdefs.SITE_DEFAULTS`."""
    given = config.get("site_resources")
    if given is None:
        return rdefs.SITE_DEFAULTS
    return [entry for entry in given if isinstance(entry, dict) and entry.get("name")]


class SchedulerLike:
    def trigger(self) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def reconfigure(self) -> None:  # pragma: no cover - interface
        """SCH_CONFIGURE: re-read sched_config (no cycle)."""
        raise NotImplementedError

    def consumables(self) -> Sequence[str]:  # pragma: no cover - interface
        raise NotImplementedError


class ExecLike:  # pragma: no cover - interface
    def start(self, jobid: str) -> None:
        raise NotImplementedError

    def signal(self, jobid: str, signal: str) -> None:
        raise NotImplementedError

    def message(self, jobid: str, text: str, stdout: bool, stderr: bool) -> None:
        raise NotImplementedError

    def discard(self, jobid: str, host: str, run_count: int, run_key: str) -> None:
        raise NotImplementedError
