"""qterm (OpenPBS qterm.c, server req_shutdown.c): ``-t quick`` (the default) stops the server
and leaves running jobs running; ``-m`` also stops the moms (pbsd_main.c tells them after its
main loop); the server logs ``Shutdown request from <user>@<host>`` and ``Starting to shutdown
the server, type is Quick``.  What the fake does not model (``-t immediate|delay``, a failover
secondary) is refused; a cluster is never started just to be stopped."""
import subprocess
import sys
import tempfile
from pathlib import Path

from fake_pbs import control
from fake_pbs.testing import wait_for

from ..reliability.rig import BIN, Rig


def _qterm(rig: Rig, *args: str) -> "subprocess.CompletedProcess[str]":
    return rig.run(["qterm"] + list(args))


def _down(rig: Rig) -> bool:
    return not control.server_answers(rig.home, 1.0)


def test_quick_leaves_jobs_running_and_the_moms_up() -> None:
    rig = Rig(hosts=("n1:ncpus=2",))
    try:
        rig.start()
        jobid = rig.qsub("sleep 4")
        rig.wait(jobid, "R")
        done = _qterm(rig)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        wait_for(lambda: _down(rig), 20, "the server stopped")
        assert control.mom_answers(rig.home, "n1", 2.0)
        lines = rig.log_lines("server")
        assert any(line.endswith(";Svr;Server@vm;Starting to shutdown the server, type is Quick")
                   for line in lines), lines[-5:]
        assert any(";0086;Server@vm;Svr;Server@vm;Shutdown request from " in line
                   for line in lines)
        rig.restart_missing()  # fake-pbs start: the server again, the job re-adopted
        assert rig.wait(jobid, timeout=60)["Exit_status"] == "0"
    finally:
        rig.close()


def test_m_stops_the_moms_too_and_what_is_not_modelled_is_refused() -> None:
    rig = Rig(hosts=("n1:ncpus=2",))
    try:
        rig.start()
        for args in (["-t", "immediate"], ["-t", "delay"], ["-f"], ["-i"]):
            done = _qterm(rig, *args)
            assert done.returncode == 2 and done.stderr.startswith(
                "qterm: No support for requested service (fake_pbs does not model "), done
        assert not _down(rig)
        for args in (["-t", "soon"], ["-f", "-i"], ["-m", "-F"], ["-x"]):
            done = _qterm(rig, *args)
            assert (done.returncode, done.stderr) == (1, (
                "Usage: qterm [-t immediate|delay|[quick]] [-m] [-s] [-f|-i] [server ...]\n"
                "       qterm --version\n")), args
        other = _qterm(rig, "otherhost")
        assert (other.returncode, other.stderr) == (
            2, "qterm: could not connect to server otherhost (15008)\n")
        done = _qterm(rig, "-m", "-s")
        assert done.returncode == 0, done.stderr
        wait_for(lambda: _down(rig) and not control.mom_answers(rig.home, "n1", 1.0), 30,
                 "the server and the mom stopped")
    finally:
        rig.close()


def test_no_cluster_is_started_to_be_stopped() -> None:
    home = Path(tempfile.mkdtemp(prefix="fpqterm"))
    try:
        env = {"PATH": BIN + ":/usr/bin:/bin", "FAKE_PBS_HOME": str(home / "h"),
               "FAKE_PBS_PYTHON": sys.executable, "HOME": str(home)}
        done = subprocess.run([BIN + "/qterm"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=60)
        assert (done.returncode, done.stderr) == (
            2, "qterm: could not connect to server  (15034)\n")
        assert not (home / "h" / "server_priv").exists()
    finally:
        control.sweep(home / "h")
        import shutil
        shutil.rmtree(str(home), ignore_errors=True)
