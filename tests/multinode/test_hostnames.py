"""The fake hosts' names inside jobs (issue 23): every name of PBS_NODEFILE and exec_host
resolves to this machine, and each job shell and task sees its own host's name, through the
LD_PRELOAD library the mom sets (fake_pbs/mom/hostnames.c; docs/multinode.md, Host names).

PBS behaviour pinned: on a real cluster the names in PBS_NODEFILE are the hosts' names, which
resolve (pbs_mom's own host name, mom_main.c), and ``hostname`` on a host prints its name;
MPI launchers decide from the names which host is the local one.
"""
import os
import shlex
import socket
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from fake_pbs.mom import hostnames
from fake_pbs.testing import FakeCluster

from .rig import started_cluster
from .test_tm import SELECT2, _mpi_program, run_job

pytestmark = pytest.mark.cluster  # starts its own cluster (docs/testing.md)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc): the host-name library cannot be built")
    yield from started_cluster(tmp_path_factory, "hostnames")


PROBE = ("getent hosts {h} | tr -s ' ' ; python3 -c 'import socket; "
         "print(\"py\", socket.gethostbyname(\"{h}\"), socket.gethostname())'; "
         "echo name $(hostname) $(uname -n)")


def test_names_resolve_and_each_host_has_its_name(cluster: FakeCluster) -> None:
    """getent, Python's socket and ``hostname`` in the job shell (node1) and in a task on the
    sister (node2): each host's own loopback address; the task has its host's name, the job
    shell the machine's."""
    text = run_job(cluster, "\n".join([
        PROBE.format(h="node2"),
        "pbs_tmrsh node2 sh -c %s" % shlex.quote(PROBE.format(h="node1")),
        "echo rc=$?",
    ]), *SELECT2)
    lines = text.splitlines()
    machine = socket.gethostname()  # the job shell's: outside processes resolve what it says
    assert "127.1.0.2 node2" in lines, text
    assert "py 127.1.0.2 %s" % machine in lines, text
    assert "name %s %s" % (machine, machine) in lines, text
    assert "127.1.0.1 node1" in lines, text
    assert "py 127.1.0.1 node2" in lines, text
    assert "name node2 node2" in lines, text
    assert "rc=0" in lines, text


def test_library_is_the_owners_and_only_in_jobs(cluster: FakeCluster) -> None:
    """The library is a file of the cluster's owner that no one else may write; outside a
    job nothing changes (the names do not resolve, hostname is the machine's)."""
    library = hostnames.library_path(Path(cluster.home))
    info = os.stat(str(library))
    assert info.st_uid == os.geteuid() and not info.st_mode & 0o022
    assert hostnames.trusted(Path(cluster.home))
    done = subprocess.run(["getent", "hosts", "node2"], stdout=subprocess.PIPE, timeout=30)
    assert done.returncode == 2


def test_mpich_hosts_from_the_node_file_by_name(cluster: FakeCluster) -> None:
    """Hydra with ``-f $PBS_NODEFILE``: it resolves node1 and node2, finds node1 is itself
    (its proxy is forked, as on a PBS host) and starts node2's through pbs_tmrsh; each rank
    prints its host's name."""
    program = _mpi_program("mpich", Path(cluster.home))
    text = run_job(cluster, "mpiexec.hydra -f $PBS_NODEFILE -n 4 %s\necho rc=$?" % program,
                   *SELECT2, timeout=120.0)
    ranks = sorted(line.split(" host ")[1] for line in text.splitlines()
                   if line.startswith("rank "))
    assert ranks == ["node1 on PBS_NODENUM 0", "node1 on PBS_NODENUM 0",
                     "node2 on PBS_NODENUM 1", "node2 on PBS_NODENUM 1"], text
    assert "sum 10" in text and "rc=0" in text, text


def test_openmpi_through_pbs_tmrsh_by_name(cluster: FakeCluster) -> None:
    """Open MPI with its rsh agent pbs_tmrsh: mpirun on node1 runs node1's ranks itself and
    starts an orted on node2 through pbs_tmrsh; each rank prints its host's name."""
    program = _mpi_program("openmpi", Path(cluster.home))
    root = " --allow-run-as-root" if os.geteuid() == 0 else ""
    text = run_job(cluster, "mpiexec.openmpi%s -n 4 %s\necho rc=$?" % (root, program),
                   *SELECT2, timeout=120.0)
    ranks = sorted(line.split(" host ")[1].split(" on ")[0] for line in text.splitlines()
                   if line.startswith("rank "))
    assert ranks == ["node1", "node1", "node2", "node2"], text
    assert "sum 10" in text and "rc=0" in text, text
