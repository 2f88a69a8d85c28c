"""The fixed names of a job's spool files, the only stream files a root mom creates itself.

As PBS's ``open_std_file`` (start_exec.c), the mom and its shepherd create ``<jobid>.OU`` and
``<jobid>.ER`` in the root-owned job directory for the owner; every other stream path (``-k``,
direct write, sandbox), even one that names a file of that directory, is opened only by the
owner's own identity.  Standard library only: every shepherd imports this module.
"""
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Tuple


def spool_paths(jobdir: str, jobid: str) -> "Tuple[str, str]":
    """The job's stdout and stderr spool files."""
    folder = jobdir.rstrip("/")
    return os.path.join(folder, jobid + ".OU"), os.path.join(folder, jobid + ".ER")


def is_spool(path: str, jobdir: str, jobid: str) -> bool:
    """True when ``path`` is exactly one of the job's own spool files."""
    return path in spool_paths(jobdir, jobid)
