"""qmsg: a message into a running job's output files (OpenPBS qmsg.c; server req_message.c
req_messagejob: not for arrays, the job must run; mom requests.c message_job: appended with a
newline, stdout first then stderr, to the file each stream is joined into)."""
from pathlib import Path

from fake_pbs.testing import FakeCluster, wait_for


def _running(cluster: FakeCluster, body: str, *options: str, cwd: Path) -> str:
    jobid = cluster.qsub(body, *options, cwd=str(cwd))
    cluster.wait(jobid, "R", started=True)
    return jobid


def test_messages_go_to_stderr_by_default_and_stdout_with_o(
        fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """``qmsg TEXT id`` writes ``TEXT\\n`` to stderr (MSG_ERR by default); ``-O`` to stdout;
    ``-O -E`` to both; the job's own output is kept around them."""
    tmp_path.chmod(0o777)
    go, ready = tmp_path / "go", tmp_path / "ready"
    jobid = _running(fake_pbs, "echo before; echo before-err >&2; touch %s\n"
                     "while [ ! -e %s ]; do sleep 0.1; done\necho after" % (ready, go),
                     cwd=tmp_path)
    seq = jobid.split(".")[0]
    wait_for(ready.exists, 20, "the job wrote its first lines")
    for argv in (["qmsg", "to stderr", jobid], ["qmsg", "-O", "to stdout", jobid],
                 ["qmsg", "-O", "-E", "to both\n", jobid]):
        done = fake_pbs.run(argv)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), argv
    go.touch()
    fake_pbs.wait(jobid)
    assert (tmp_path / ("job.sh.o" + seq)).read_text() == "before\nto stdout\nto both\nafter\n"
    assert (tmp_path / ("job.sh.e" + seq)).read_text() == "before-err\nto stderr\nto both\n"


def test_a_joined_job_takes_both_messages_in_one_file(fake_pbs: FakeCluster,
                                                      tmp_path: Path) -> None:
    """message_job: with ``-j oe`` stderr is stdout's file, so ``-O -E`` writes it twice."""
    tmp_path.chmod(0o777)
    go = tmp_path / "go"
    jobid = _running(fake_pbs, "while [ ! -e %s ]; do sleep 0.1; done" % go, "-j", "oe",
                     cwd=tmp_path)
    assert fake_pbs.run(["qmsg", "-O", "-E", "twice", jobid]).returncode == 0
    go.touch()
    fake_pbs.wait(jobid)
    assert (tmp_path / ("job.sh.o" + jobid.split(".")[0])).read_text() == "twice\ntwice\n"


def test_refusals_are_pbs_errors(fake_pbs: FakeCluster, tmp_path: Path) -> None:
    """req_messagejob: an unknown job (15001), a queued one (state, 15018), a finished one
    (15139), an array or subjob (15029 ``not supported for Array Jobs``); qmsg prints
    ``qmsg: <text> <id>`` for each and exits with the last code modulo 256; a missing job id
    is qmsg's usage (exit 2)."""
    held = fake_pbs.qsub("true", "-h")
    over = fake_pbs.qsub("true")
    fake_pbs.wait(over)
    array = fake_pbs.qsub("true", "-h", "-J", "1-2")
    result = fake_pbs.run(["qmsg", "hi", "99999", held, over, array])
    server = held.split(".", 1)[1]
    assert result.stderr.splitlines() == [
        "qmsg: Unknown Job Id 99999.%s" % server,
        "qmsg: Request invalid for state of job %s" % held,
        "qmsg: Job has finished",  # prt_job_err names no id for 15139 (qsig's k-case too)
        "qmsg: not supported for Array Jobs %s" % array]
    assert result.returncode == 15029 % 256
    usage = fake_pbs.run(["qmsg", "hi"])
    assert usage.returncode == 2
    assert usage.stderr == ("usage: qmsg [-O] [-E] msg_string job_identifier...\n"
                            "       qmsg --version\n")
