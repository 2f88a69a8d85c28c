"""A sister mom lost while its job runs, and the mom configuration file that times it (issue 23).

Behaviour pinned: OpenPBS src/resmom/mom_comm.c ``im_eof`` and src/resmom/mom_main.c's poll of
the sisters and ``job_over_limit``: the primary waits ``$max_poll_downtime`` for a sister it
cannot reach (``lost communication with <host>, not killing job yet``), then logs ``node EOF``
and kills the job with JOB_EXEC_RERUN_SIS_FAIL (-14), which src/server/req_jobobit.c requeues
for a rerunnable job and ends for a ``-r n`` one.  mom_main.c ``parse_config``: an unknown
directive stops the mom from starting (``config file(s) parsing failed``).
"""
import os
import signal
from pathlib import Path
from typing import Iterator

import pytest

from fake_pbs import control, paths
from fake_pbs.mom import momconfig
from fake_pbs.testing import FakeCluster, wait_for

from .rig import started_cluster

pytestmark = pytest.mark.cluster  # starts its own cluster (docs/testing.md)

DOWNTIME = 4
SELECT2 = ("-l", "select=2:ncpus=1", "-l", "place=scatter")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    def configure(home: Path) -> None:
        config = paths.mom_priv(home, "node1") / "config"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text("# the primary's\n$max_poll_downtime %d\n" % DOWNTIME)
    yield from started_cluster(tmp_path_factory, "lostsister", before_start=configure)


def mom_pid(cluster: FakeCluster, host: str) -> int:
    return int((paths.mom_priv(Path(cluster.home), host) / "mom.pid").read_text())


def test_config_directive_is_logged(cluster: FakeCluster) -> None:
    """set_max_poll_downtime logs its value (``Svr;max_poll_downtime;<value>``)."""
    logs = sorted((Path(cluster.home) / "mom_logs" / "node1").glob("*"))
    assert any(";Svr;max_poll_downtime;%d" % DOWNTIME in log.read_text() for log in logs)


def test_sister_lost_past_the_downtime_ends_the_job(cluster: FakeCluster) -> None:
    """node2's mom dies: node1 waits $max_poll_downtime, then kills the job (-14); a job
    submitted ``-r n`` is not requeued and ends F with that status."""
    started = Path(cluster.home) / "lost-started"
    jobid = cluster.qsub("touch %s; sleep 120" % started, "-r", "n", *SELECT2)
    wait_for(started.exists, 30.0, "the job's shell runs (its sister joined)")
    cluster.mark_logs()
    try:
        control.kill(Path(cluster.home), "mom", "node2")
        cluster.wait(jobid, "F", DOWNTIME + 40.0)
        assert cluster.job(jobid)["Exit_status"] == "-14"
        messages = cluster.messages("mom:node1", jobid)
        first = messages.index("im_eof, lost communication with node2, not killing job yet")
        assert messages.index("send POLL failed") > first
        assert messages.index("node EOF 1 (node2)") > messages.index("send POLL failed")
    finally:
        cluster.start()  # node2's mom back for the other tests


def test_sister_back_within_the_downtime_is_forgiven(cluster: FakeCluster) -> None:
    """A sister that answers again before $max_poll_downtime is over leaves the job running."""
    started = Path(cluster.home) / "forgiven-started"
    jobid = cluster.qsub("touch %s; sleep 8" % started, *SELECT2)
    wait_for(started.exists, 30.0, "the job's shell runs (its sister joined)")
    cluster.mark_logs()
    pid = mom_pid(cluster, "node2")
    os.kill(pid, signal.SIGSTOP)
    try:
        cluster.wait_log("mom:node1", "lost communication with node2", timeout=DOWNTIME + 4.0)
    finally:
        os.kill(pid, signal.SIGCONT)
    cluster.wait(jobid, "F", 60.0)
    assert cluster.job(jobid)["Exit_status"] == "0"
    assert not cluster.messages("mom:node1", "node EOF")


def test_unknown_directive_stops_the_mom(tmp_path: Path) -> None:
    """parse_config: a directive the fake does not act on is refused and the mom does not
    start; ``fake-pbs start`` says why."""
    tmp_path.chmod(0o755)
    config = paths.mom_priv(tmp_path, "node1") / "config"
    config.parent.mkdir(parents=True)
    config.write_text("$restrict_user True\n")
    rig = FakeCluster(tmp_path, "vm", [{"name": "node1", "ncpus": 1, "mem": "1gb", "ngpus": 0}])
    try:
        with pytest.raises(control.ControlError, match="command name restrict_user not found"):
            rig.start()
    finally:
        rig.stop()


@pytest.mark.parametrize("text, error", [
    ("$max_poll_downtime 0\n", 'command "$max_poll_downtime 0" failed'),
    ("$max_poll_downtime -5\n", 'command "$max_poll_downtime -5" failed'),
    ("$max_poll_downtime\n", 'command "$max_poll_downtime " failed'),
    ("ngpus 4\n", "static resource 'ngpus': not supported"),
    ("$clienthost other\n", "command name clienthost not found"),
])
def test_bad_lines_are_refused(text: str, error: str) -> None:
    """set_max_poll_downtime: strtol, a value <= 0 fails; unknown names fail."""
    _, _, errors = momconfig.parse(text, "config")
    assert len(errors) == 1 and error in errors[0]


def test_values_and_comments() -> None:
    config, applied, errors = momconfig.parse(
        "# comment\n\n  $max_poll_downtime 45s\n", "config")
    assert (config.max_poll_downtime, applied, errors) == (
        45, [("max_poll_downtime", "45s")], [])
    assert momconfig.MomConfig().max_poll_downtime == 300  # job.h PBS_MAX_POLL_DOWNTIME


def test_a_file_others_may_write_is_not_trusted(tmp_path: Path) -> None:
    """A mom reads only a file its own user (or root) owns and no one else may write."""
    config = tmp_path / "config"
    config.write_text("$max_poll_downtime 10\n")
    config.chmod(0o666)
    with pytest.raises(momconfig.ConfigError, match="writable by group or others"):
        momconfig.load(config)
    config.chmod(0o644)
    assert momconfig.load(config)[0].max_poll_downtime == 10
    assert momconfig.load(tmp_path / "absent")[0].max_poll_downtime == 300
