"""Parsl on PBS: the configuration .ci/clients runs Parsl's own test suite with, on the fake.

    pytest parsl/tests --config examples/clients/parsl_pbspro_config.py

A HighThroughputExecutor whose workers are one PBS job (a block) started through Parsl's
PBSProProvider: ``qsub`` of Parsl's script (``#PBS -l select=1:ncpus=4``), ``qstat -f -F json``
to follow it, ``qdel`` at the end.  Nothing here is special to the fake: on a real PBS cluster set
``queue`` (and ``account``) and it runs the same way.  Two lines of ``worker_init`` are what a PBS
job needs that a local process does not:

- PBS starts a job in the owner's home directory, not where ``qsub`` ran (OpenPBS's mom: the
  job's working directory is ``$HOME`` unless the script changes it); Parsl's tests write and read
  files relative to the directory they run in, so the job goes to ``$PBS_O_WORKDIR`` first.
- a job gets PBS's login-like ``PATH``, not the submitter's (no ``-V``): the interpreter that runs
  Parsl goes first on it, so that the job finds ``process_worker_pool.py`` and the same Parsl.
"""
import os
import sys

from parsl.config import Config
from parsl.executors import HighThroughputExecutor
from parsl.launchers import SimpleLauncher
from parsl.providers import PBSProProvider

_BIN = os.path.dirname(sys.executable)


def fresh_config() -> Config:
    return Config(
        executors=[
            HighThroughputExecutor(
                label="htex_pbspro",
                address="127.0.0.1",
                loopback_address="127.0.0.1",
                cores_per_worker=1,
                max_workers_per_node=4,
                encrypted=True,
                provider=PBSProProvider(
                    nodes_per_block=1,
                    cpus_per_node=4,
                    init_blocks=1,
                    min_blocks=0,
                    max_blocks=1,
                    walltime="00:30:00",
                    launcher=SimpleLauncher(),
                    worker_init='export PATH="%s:$PATH"; cd "$PBS_O_WORKDIR"' % _BIN,
                ),
            )
        ],
        strategy="none",
    )
