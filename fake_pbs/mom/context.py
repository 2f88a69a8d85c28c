"""What every part of one mom shares: its host, directories, log, faults and identity."""
import os
import threading
import time
from pathlib import Path
from typing import Callable, Optional

from fake_pbs import pace, paths
from fake_pbs.mom.exitwatch import ExitWatch
from fake_pbs.mom.faults import Faults
from fake_pbs.mom.hookpoints import HookSite
from fake_pbs.mom.layout import HostLayout
from fake_pbs.mom.momconfig import MomConfig
from fake_pbs.mom.momlog import MomLog


class MomContext:
    def __init__(self, home: Path, host: str, clock: Optional[Callable[[], float]] = None) -> None:
        self.home = home
        self.host = host
        self.layout = HostLayout(home, host)
        self.clock = clock or time.time
        self.log = MomLog(home, host, self.clock)
        self.faults = Faults(self.layout.faults)
        self.config = MomConfig()  # mom_priv/<host>/config, read at start-up (__main__.py)
        # End-of-job timing (fake_pbs/pace.py); under ``pbs`` the resource-poll schedule
        # decides when a TermJob'd job is seen ended.
        self.pace = pace.load(paths.config_file(home))
        self.polls = pace.PollClock(self.clock())
        self.polls_lock = threading.Lock()
        self.exits = ExitWatch()  # wakes a job's watcher when its shepherd exits
        # Running as root, jobs run as their owners; otherwise as this user whatever the spec says.
        self.is_root = os.geteuid() == 0

    def site(self, primary: bool) -> HookSite:
        return HookSite(self.home, self.host, primary, self.log.write)
