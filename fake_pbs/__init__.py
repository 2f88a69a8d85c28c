"""fake_pbs: a faithful OpenPBS 23.06 in a box, for testing PBS-facing code without a cluster.

Put ``fake_pbs/bin`` first on PATH; ``qsub``, ``qstat``, ... then talk to a real server, scheduler
and moms running on this machine.  This package never runs as part of ``psijpbs``.
"""

__version__ = "0.1.0"
PBS_VERSION = "23.06.06"
