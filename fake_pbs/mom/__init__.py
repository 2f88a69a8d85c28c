"""pbs_mom for the fake cluster: one daemon per fake host (``python3 -m fake_pbs.mom``).

Run: ``python3 -m fake_pbs.mom --home H --host NAME`` (foreground; SIGTERM stops it; job shells
keep running under their shepherds and are re-adopted by the next mom of that host). It listens on
``paths.mom_socket(home, host)``, keeps state under ``paths.mom_priv(home, host)`` (layout.py) and
logs to ``<home>/mom_logs/<host>/YYYYMMDD``; ``mom_priv/<host>/mom.pid`` holds its pid.

Requests are listed in daemon.py; the exec protocol is docs/internals.md §5. Modules:

- daemon: sockets and request dispatch; job: one job's life on its primary mom;
  sisters: join/abort/kill/release between moms; shepherd: the detached parent of a job shell;
- launch, environment, streams: what the job runs, its environment, where its output goes;
- delivery: output delivery; staging: -W stagein/stageout lists (as the owner);
- usage: resources_used; signals: signal names; procs: /proc helpers;
- eventlog, durable: the fsynced event stream and atomic records; momlog: PBS-format log lines;
- hookpoints: mom hook events (run the site's hooks through fake_pbs.hooks); faults: injection.
- hookshep: the detached shepherd of prologue/launch/epilogue/end hook runs (crash-safe).
- tm, tasks: TM tasks (pbsdsh, pbs_tmrsh) of a job on this host; siteenv: pbs_environment.

This package file imports nothing: the shepherd starts once per job and must start fast.
"""
