"""The command runner: one pre-imported process per cluster that runs PBS commands for clients.

A room of its own, below the commands it runs (docs/design.md):

- :mod:`fake_pbs.runner.listen` accepts clients, forks and hands connections to workers,
  reaps them (``python -S -m fake_pbs.runner --home HOME`` runs it);
- :mod:`fake_pbs.runner.worker` is a forked worker: one caller identity, one command at a time;
- :mod:`fake_pbs.runner.preload` imports, before any fork, every module a command may import;
- :mod:`fake_pbs.runner.warm` runs the common commands once so the workers inherit settled code;
- :mod:`fake_pbs.runner.build` compiles ``runclient.c``, the C client, into the cluster's home.

Clients follow :mod:`fake_pbs.verified_connect` (the C client mirrors it): nothing is sent to a
socket before its directory and its peer are checked (docs/security.md).
"""
