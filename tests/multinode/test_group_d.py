"""Replay of the group D transcripts (pbsdsh, pbs_tmrsh, pbs_attach on one host `vm`) of
../shared/fidelity/openpbs-23.06.06-resv, copied to tests/data/fidelity/openpbs-23.06.06-resv.

Each D<nn> job runs capture.sh's ``mkd D<nn>`` script (the set's scripts/D<nn>.sh) with
``qsub -l select=1:ncpus=2`` (D08: ``select=2:ncpus=1``) on a fake cluster whose one host is
``vm`` with 2 cpus, as the capture did; its .o file is compared with the transcript's stdout
and its .e file with its stderr, after job ids, the job cookie, TMPDIR and the home directory
are normalized.  D20-D25 run outside a job.  The replay runs as the user running the tests
(the capture's user was pbsuser2), with the job's home directory masked.
"""
import json
import os
import re
import socket
import subprocess
from pathlib import Path
from typing import Dict, Iterator, Tuple

import pytest

from fake_pbs.testing import FakeCluster

from .rig import started_cluster

pytestmark = pytest.mark.cluster  # starts its own cluster (docs/testing.md)

DATA = Path(__file__).resolve().parents[1] / "data" / "fidelity" / "openpbs-23.06.06-resv"

# capture.sh's mkd job scripts, by case (the set's scripts/, which tests/fidelity replays too).
SCRIPTS: Dict[str, str] = {path.stem: path.read_text() for path in
                           sorted((DATA / "scripts").glob("D*.sh"))}
OUTSIDE = ("D20_pbsdsh_outside", "D21_pbsdsh_outside_noargs", "D22_pbs_tmrsh_outside",
           "D23_pbs_tmrsh_noargs", "D24_pbs_attach_usage", "D25_pbs_attach_outside")
# Intended differences (docs/differences.md, "Multi-node jobs").
DIFFERENCES = {
    "D06": "the task's environment: fake_pbs/bin first on PATH, FAKE_PBS_HOME, the site "
           "file's MPI settings and the host-name library's variables (docs/multinode.md), "
           "TMPDIR under mom_priv/<host>, the "
           "variables in name order",
}
EXTRA_PREFIXES = ("HYDRA_", "I_MPI_", "OMPI_", "PRTE_")  # the site file (docs/multinode.md)
# the cluster, and the host-name library (docs/multinode.md, Host names)
EXTRA_NAMES = ("FAKE_PBS_HOME", "FAKE_PBS_HOSTS", "FAKE_PBS_HOSTNAME", "LD_PRELOAD")
# D04: the mom prints an uninitialised buffer before the error (the set's README): only the
# suffix is PBS's; the fake names the program.
SUFFIX_ONLY = {"D04": ": No such file or directory\n"}


def transcript(name: str) -> Dict[str, object]:
    with open(str(DATA / (name + ".json")), encoding="utf-8") as handle:
        loaded: Dict[str, object] = json.load(handle)
        return loaded


def normalize(text: str, home: str) -> str:
    # `hostname` prints this machine's name on every fake host (docs/differences.md)
    text = text.replace("host=%s\n" % socket.gethostname(), "host=vm\n")
    text = re.sub(r"\b\d+\.vm\b", "<JOBID>", text)
    text = re.sub(r"PBS_JOBCOOKIE=[0-9A-F]+", "PBS_JOBCOOKIE=<COOKIE>", text)
    text = re.sub(r"TMPDIR=\S+", "TMPDIR=<TMPDIR>", text)
    return text.replace(home, "<HOME>").replace("/home/pbsuser2", "<HOME>")


@pytest.fixture(scope="module")
def vm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    yield from started_cluster(tmp_path_factory, "groupd", ("vm",))


def run_case(vm: FakeCluster, case: str) -> Tuple[str, str, str]:
    """(stdout, stderr, the job's home) of the D<nn> job, as D<nn>_output shows them."""
    workdir = Path(vm.home) / case
    workdir.mkdir()
    workdir.chmod(0o755)
    script = workdir / (case + ".sh")
    script.write_text(SCRIPTS[case])
    select = "select=2:ncpus=1" if case == "D08" else "select=1:ncpus=2"
    out, err = workdir / (case + ".out"), workdir / (case + ".err")
    done = vm.run(["qsub", "-l", select, "-o", str(out), "-e", str(err), str(script)],
                  cwd=str(workdir))
    assert done.returncode == 0, done.stderr
    jobid = done.stdout.strip()
    vm.wait(jobid, "F", 90.0)
    home = os.path.expanduser("~")
    return out.read_text(), err.read_text(), home


# Cases whose tasks run side by side and print one line each.
CONCURRENT_TASKS = frozenset(("D08", "D09"))


@pytest.mark.parametrize("case", sorted(SCRIPTS))
def test_group_d_job(vm: FakeCluster, case: str) -> None:
    stdout, stderr, home = run_case(vm, case)
    want = transcript(case + "_output")
    if case in DIFFERENCES:
        # The same variables as PBS's task, besides the listed additions; values and order
        # (PBS's: the order it builds them in) are the listed difference.
        names = {line.split("=", 1)[0] for line in stdout.splitlines() if "=" in line}
        pbs = {line.split("=", 1)[0] for line in str(want["stdout"]).splitlines() if "=" in line}
        added = {n for n in names if n in EXTRA_NAMES or n.startswith(EXTRA_PREFIXES)}
        submitter = {n for n in names | pbs if n.startswith("PBS_O_")}  # qsub's environment
        assert names - added - submitter == pbs - submitter
        pytest.xfail(DIFFERENCES[case])
    got, expected = normalize(stdout, home), normalize(str(want["stdout"]), home)
    if case in CONCURRENT_TASKS:
        # pbsdsh spawns its tasks at once and each writes to the job's output file: the order of
        # their lines is a race, on PBS too (the README's note on D08); the lines are the same
        got = "\n".join(sorted(got.splitlines()))
        expected = "\n".join(sorted(expected.splitlines()))
    assert got == expected
    if case in SUFFIX_ONLY:
        assert str(want["stderr"]).endswith(SUFFIX_ONLY[case])
        assert stderr.endswith(SUFFIX_ONLY[case])
    else:
        assert normalize(stderr, home) == normalize(str(want["stderr"]), home)


@pytest.mark.parametrize("name", OUTSIDE)
def test_group_d_outside_a_job(vm: FakeCluster, name: str) -> None:
    want = transcript(name)
    env = {k: v for k, v in vm.env.items() if not k.startswith("PBS_")}
    done = subprocess.run(["/bin/sh", "-c", str(want["command"])], env=env, cwd=str(vm.home),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (
        want["exit_code"], want["stdout"], want["stderr"])
