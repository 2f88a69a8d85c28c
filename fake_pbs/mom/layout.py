"""Where one fake host keeps its state, under ``paths.mom_priv(home, host)``::

    jobs/<jobid>/spec.json       the start message's job object (written before anything runs)
    jobs/<jobid>/<jobid>.SC      the job script, run by the job shell
    jobs/<jobid>/launch.json     what the shepherd runs: argv, env, cwd, ids, umask, streams
    jobs/<jobid>/shepherd.json   written by the shepherd once the job shell runs: pids, start ticks
    jobs/<jobid>/exit.json       written by the shepherd when the job shell ended: status, rusage
    jobs/<jobid>/kill.json       why the mom killed the job (walltime, TermJob)
    jobs/<jobid>/events.jsonl    exec-protocol events for the server, written before sent, with seq
    jobs/<jobid>/discard.json    spec.json renamed: the server's delete-job request was received,
                                 finish the cleanup
    jobs/.gone-<jobid>-<pid>     a discarded job's directory being deleted (swept at restart)
    jobs/.bad-<jobid>-<pid>      a job directory a restart could not trust, kept as evidence
    jobs/<jobid>/<jobid>.OU/.ER  stdout/stderr spool, delivered at the end
    aux/<jobid>                  PBS_NODEFILE
    tmp/pbs.<jobid>              the job's TMPDIR
    undelivered/                 output files that could not be delivered
    faults.json                  injected faults (survive a restart)
    mom.lock, mom.pid            one mom per host
"""
import os
from pathlib import Path

from fake_pbs import paths
from fake_pbs.mom.spoolnames import spool_paths


class HostLayout:
    """The directories of one fake host."""

    def __init__(self, home: Path, host: str) -> None:
        self.home = home
        self.host = host
        self.root = paths.mom_priv(home, host)
        self.jobs = self.root / "jobs"
        self.aux = self.root / "aux"
        self.tmp = self.root / "tmp"
        self.undelivered = self.root / "undelivered"
        self.faults = self.root / "faults.json"
        self.lock = self.root / "mom.lock"
        self.pidfile = self.root / "mom.pid"
        self.config = self.root / "config"  # momconfig.py
        self.socket = paths.mom_socket(home, host)

    def create(self) -> None:
        # 0711: job owners must reach their nodefile, TMPDIR and script, but not list other jobs.
        for directory in (self.root, self.jobs, self.aux, self.tmp, self.undelivered):
            directory.mkdir(parents=True, exist_ok=True)
            directory.chmod(0o711)
        # PBS's undelivered/ is 1777 (pbs_postinstall): owners fetch the output kept there, which
        # stays theirs (delivery.keep_undelivered).  A private cluster's owns every file anyway.
        self.undelivered.chmod(0o1777 if os.geteuid() == 0 else 0o700)

    def job(self, jobid: str) -> "JobLayout":
        """The files of ``jobid``: a ValueError for an id that is not one plain file name, so
        no id (from a request or a record) can name a directory outside ``jobs/``."""
        if not jobid or "/" in jobid or "\0" in jobid or jobid.startswith("."):
            raise ValueError("not a job id: %r" % jobid)
        return JobLayout(self, jobid)


class JobLayout:
    """The files of one job on one host."""

    def __init__(self, host: HostLayout, jobid: str) -> None:
        self.jobid = jobid
        self.dir = host.jobs / jobid
        self.spec = self.dir / "spec.json"
        self.script = self.dir / (jobid + ".SC")
        self.launch = self.dir / "launch.json"
        self.shepherd = self.dir / "shepherd.json"
        self.exit = self.dir / "exit.json"
        self.kill = self.dir / "kill.json"
        self.events = self.dir / "events.jsonl"
        self.discard = self.dir / "discard.json"
        # The only stream files the mom creates itself (spoolnames.py).
        self.spools = spool_paths(str(self.dir), jobid)
        self.stdout_spool = Path(self.spools[0])
        self.stderr_spool = Path(self.spools[1])
        self.nodefile = host.aux / jobid
        self.tmpdir = host.tmp / ("pbs." + jobid)
