"""The site's job environment file (PBS's ``$PBS_HOME/pbs_environment``) and the settings
that make MPI launchers start their remote daemons through ``pbs_tmrsh``.

``<FAKE_PBS_HOME>/pbs_environment`` holds ``NAME=value`` lines; every job shell and TM task
gets them (before the variables PBS sets, which win).  ``fake-pbs start`` writes it once with
:func:`default_lines` when it does not exist: what a PBS site sets for MPICH's Hydra, Intel
MPI and Open MPI built without PBS support (docs/multinode.md).  A root mom reads it only
when it is root's and writable by no one else.

Some settings depend on the host or the job, and a site file cannot say them: the mom adds
them (:func:`per_host`, :func:`per_job`).  Two fake hosts are one machine, so Open MPI's
session directories and shared-memory segments, named after the machine, must be kept
apart per host: both go under the job's TMPDIR on that host.
"""
import os
import stat
from pathlib import Path
from typing import Dict, List

from fake_pbs import paths

FILE = "pbs_environment"


def default_lines() -> List[str]:
    tmrsh = str(paths.bin_dir() / "pbs_tmrsh")
    return [
        "HYDRA_LAUNCHER=rsh",  # MPICH / Intel MPI's Hydra: rsh launcher, no ssh options
        "HYDRA_LAUNCHER_EXEC=" + tmrsh,
        "I_MPI_HYDRA_BOOTSTRAP=rsh",
        "I_MPI_HYDRA_BOOTSTRAP_EXEC=" + tmrsh,
        "OMPI_MCA_plm_rsh_agent=" + tmrsh,  # Open MPI 4
        "PRTE_MCA_plm_ssh_agent=" + tmrsh,  # Open MPI 5 (PRRTE)
    ]


def write_default(home: Path) -> None:
    """Create the file with :func:`default_lines` unless it exists (a site's edits stay)."""
    try:
        fd = os.open(str(home / FILE), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                     0o644)
    except FileExistsError:
        return
    with os.fdopen(fd, "w") as handle:
        handle.write("\n".join(default_lines()) + "\n")


def load(home: Path) -> Dict[str, str]:
    """The file's variables; nothing when it is missing or could be written by another user."""
    try:
        fd = os.open(str(home / FILE), os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return {}
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if info.st_uid != os.geteuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return {}
        text = handle.read(1 << 20).decode("utf-8", "replace")
    env: Dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.strip().partition("=")
        if sep and name and not name.startswith("#"):
            env[name] = value
    return env


def per_host(tmpdir: str) -> Dict[str, str]:
    """Open MPI's session directory and shared-memory backing files in this host's TMPDIR."""
    if not tmpdir:
        return {}
    return {"OMPI_MCA_orte_tmpdir_base": tmpdir,
            "OMPI_MCA_btl_vader_backing_directory": tmpdir,
            "PRTE_MCA_prte_tmpdir_base": tmpdir}


def per_job(nodefile: str) -> Dict[str, str]:
    """Open MPI without PBS support finds the job's hosts in its default host file."""
    return {"OMPI_MCA_orte_default_hostfile": nodefile}
