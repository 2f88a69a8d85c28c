"""The site's job environment file (PBS's ``$PBS_HOME/pbs_environment``) and the settings
that make MPI launchers start their remote daemons through ``pbs_tmrsh``.

``<FAKE_PBS_HOME>/pbs_environment`` holds ``NAME=value`` lines; every job shell and TM task
gets them (before the variables PBS sets, which win).  ``fake-pbs start`` writes it once with
:func:`default_lines` when it does not exist: what a PBS site sets for MPICH's Hydra, Intel
MPI and Open MPI built without PBS support (docs/multinode.md).  A root mom reads it only
when it is root's and writable by no one else.

Some settings depend on the host or the job, and a site file cannot say them: where the site
file configures Open MPI (names an ``OMPI_MCA_`` or ``PRTE_MCA_`` variable), the mom adds them
(:func:`per_host`, :func:`per_job`): Open MPI's session directories go under the job's TMPDIR
(removed with the job), and Open MPI, built here without PBS support, reads the job's hosts
from PBS_NODEFILE.  A site file without them (a stock PBS install's) gets none.
"""
import os
import stat
from pathlib import Path
from typing import Dict, List, Mapping

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
        # Every fake host is this machine: Open MPI's daemons and ranks talk over loopback
        # (its other interfaces may not reach themselves, e.g. under gVisor).
        "OMPI_MCA_oob_tcp_if_include=lo",
        "OMPI_MCA_btl_tcp_if_include=lo",
        # No shared-memory transport: two fake hosts' ranks name their vader segments alike
        # (mpirun passes its own MCA settings to every orted, so a per-host backing
        # directory does not reach them) and crash in MPI_Finalize.
        "OMPI_MCA_btl=self,tcp",
        # A host named once in PBS_NODEFILE has one slot (mpiprocs=1), not this machine's
        # core count (Open MPI's default for a host file line without slots=).
        "OMPI_MCA_orte_set_default_slots=none",
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


_OPEN_MPI_PREFIXES = ("OMPI_MCA_", "PRTE_MCA_")


def configures_open_mpi(env: Mapping[str, str]) -> bool:
    """Whether ``env`` (the site file's variables, or an environment built on them) sets Open
    MPI up."""
    return any(name.startswith(_OPEN_MPI_PREFIXES) for name in env)


def per_host(tmpdir: str, env: Mapping[str, str]) -> Dict[str, str]:
    """Open MPI's session directory in this host's TMPDIR, where ``env`` sets Open MPI up."""
    if not tmpdir or not configures_open_mpi(env):
        return {}
    return {"OMPI_MCA_orte_tmpdir_base": tmpdir, "PRTE_MCA_prte_tmpdir_base": tmpdir}


def per_job(nodefile: str, env: Mapping[str, str]) -> Dict[str, str]:
    """Open MPI without PBS support finds the job's hosts in its default host file, where
    ``env`` sets Open MPI up."""
    if not configures_open_mpi(env):
        return {}
    return {"OMPI_MCA_orte_default_hostfile": nodefile}
