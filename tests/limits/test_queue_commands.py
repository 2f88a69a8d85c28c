"""qenable, qdisable, qstart, qstop (src/cmds/qenable.c, qdisable.c, qstart.c, qstop.c): one
manager request each, ``set queue <q> enabled|started = TRUE|FALSE``."""
import pytest

from fake_pbs.testing import FakeCluster


@pytest.mark.parametrize("cmd,attr,value", [("qdisable", "enabled", "False"),
                                            ("qenable", "enabled", "True"),
                                            ("qstop", "started", "False"),
                                            ("qstart", "started", "True")])
def test_sets_the_queue_attribute(pbs: FakeCluster, cmd: str, attr: str, value: str) -> None:
    pbs.qmgr("set queue workq %s = %s" % (attr, "False" if value == "True" else "True"))
    done = pbs.run([cmd, "workq"])
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert "    %s = %s\n" % (attr, value) in pbs.sh("qstat", "-Qf", "workq")


def test_no_argument_prints_usage_exit_1(pbs: FakeCluster) -> None:
    done = pbs.run(["qstop"])
    assert (done.returncode, done.stderr) == (
        1, "Usage: qstop [queue][@server] ...\n       qstop --version\n")


def test_unknown_queue_and_the_others_still_done(pbs: FakeCluster) -> None:
    """execute(): the server's message, the destination, exit 2; later ones still tried."""
    pbs.qmgr("set queue workq enabled = False")
    done = pbs.run(["qenable", "nosuch", "workq"])
    assert (done.returncode, done.stderr) == (2, "qenable: Unknown queue nosuch\n")
    assert "    enabled = True\n" in pbs.sh("qstat", "-Qf", "workq")


def test_qstop_error_line_says_disabling(pbs: FakeCluster) -> None:
    """qstop.c prints "Error (%d) disabling queue" only without a server message; with one,
    the message and the queue."""
    done = pbs.run(["qstop", "nosuch@vm"])
    assert (done.returncode, done.stderr) == (2, "qstop: Unknown queue nosuch@vm\n")
