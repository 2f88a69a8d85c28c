"""Interactive sessions (``qsub -I`` under a pty) against the test run's cluster.

The job runs as the user running the tests.  Pinned: the group I transcripts
(tests/data/fidelity/openpbs-23.06.06-resv: I01/I02 session and qstat, I05 ``-- command``,
I06/I07 qdel, I08 environment, I09 script ignored, I10/I11 walltime) and OpenPBS's source
(src/cmds/qsub_sup.c interactive(), src/resmom/start_exec.c's interactive branch,
src/server/req_quejob.c: not rerunnable).  kill_delay is 1 s here so that a shell that ignores
SIGTERM (an interactive bash does) is killed in a second, not PBS's default 10.
"""
import os
import pwd
import re
import subprocess
import time
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from fake_pbs import paths
from fake_pbs.testing import FakeCluster, wait_for

from .ptydrive import PtySession

READY = re.compile(rb"qsub: job (\S+) ready\r\n\r\n")
PROMPT = "PROMPT> "


@pytest.fixture
def cluster(fake_pbs: FakeCluster) -> FakeCluster:
    fake_pbs.qmgr("set queue workq kill_delay = 1")
    return fake_pbs


@pytest.fixture
def sessions() -> Iterator[List[PtySession]]:
    """Every session a test opens is closed (its qsub killed) even when the test fails."""
    opened: List[PtySession] = []
    yield opened
    for session in opened:
        session.close()


def _env(cluster: FakeCluster) -> Dict[str, str]:
    """The transcripts' submitter environment (cap.py: no TERM, no DISPLAY, TZ, LANG, the
    login names), with this cluster's commands and home: PBS_O_* come from it."""
    entry = pwd.getpwuid(os.getuid())
    env = {"PATH": cluster.env["PATH"], "HOME": entry.pw_dir, "USER": entry.pw_name,
           "LOGNAME": entry.pw_name, "SHELL": "/bin/bash", "LANG": "C.UTF-8", "TZ": "UTC"}
    env.update({k: v for k, v in cluster.env.items() if k.startswith("FAKE_PBS_")})
    return env


def _start(cluster: FakeCluster, sessions: List[PtySession], argv: List[str],
           cwd: str, rows: int = 24, cols: int = 80) -> PtySession:
    session = PtySession(["qsub", "-I"] + argv, _env(cluster), cwd=cwd, rows=rows, cols=cols)
    sessions.append(session)
    return session


def _shell(session: PtySession) -> str:
    """Wait for the job's shell, give it a prompt of our own; the job id."""
    found = session.expect(READY, 30)
    session.expect("$ " if os.geteuid() else "# ", 15, start=found.end())
    mark = len(session.output)
    session.send("PS1='PROM''PT> '\n")  # the echo of the line does not match the prompt
    session.expect(PROMPT, 10, start=mark)
    return found.group(1).decode()


def _run(session: PtySession, line: str, timeout: float = 15.0) -> str:
    """Type ``line``; its output, up to an end mark the echo of the line cannot show.  Returns
    once the shell prompts again: a line typed before that prompt is echoed by the terminal
    ahead of it, so the next command's output would follow ``PROMPT> `` instead of its line."""
    mark = len(session.output)
    session.send(line + "; echo @@$((6*7))\n")
    found = session.expect("@@42\r\n", timeout, start=mark)
    session.expect(PROMPT, timeout, start=found.end())
    return session.output[mark:found.start()].decode("utf-8", "replace")


def test_session_lines_exit_status_and_record(cluster: FakeCluster,
                                              sessions: List[PtySession],
                                              tmp_path: Path) -> None:
    """I01: waiting / ready / blank line / shell / ``logout`` / blank line / completed, qsub
    rc 0 after ``exit 3``; I02: interactive True, Output_Path and Error_Path the job's pty
    without host, Rerunable False, Exit_status 0, no Stageout_status, comment 'finished'."""
    session = _start(cluster, sessions, ["-l", "walltime=00:01:00"], str(tmp_path))
    jobid = _shell(session)
    assert session.output.startswith(
        ("qsub: waiting for job %s to start\r\nqsub: job %s ready\r\n\r\n"
         % (jobid, jobid)).encode())
    session.send("echo INSIDE $PBS_JOBID $PBS_ENVIRONMENT; exit 3\n")
    assert session.wait(30) == 0
    # bash says ``logout`` as a login shell ends; dash (Debian's /bin/sh) says nothing
    farewell = "logout\r\n" if _login_shell().endswith("bash") else ""
    assert session.output.endswith(("INSIDE %s PBS_INTERACTIVE\r\n%s\r\n"
                                    "qsub: job %s completed\r\n"
                                    % (jobid, farewell, jobid)).encode())
    attrs = cluster.wait(jobid, "F", 30)
    assert attrs["interactive"] == "True"
    assert attrs["Rerunable"] == "False"
    assert re.fullmatch(r"/dev/pts/\d+", attrs["Output_Path"])
    assert attrs["Error_Path"] == attrs["Output_Path"]
    assert attrs["Exit_status"] == "0"
    assert "Stageout_status" not in attrs
    assert attrs["comment"].endswith(" and finished")
    assert attrs["Job_Name"] == "STDIN"
    assert attrs["Submit_arguments"] == "-I -l walltime=00:01:00"


def test_command_instead_of_shell_and_block_warning(cluster: FakeCluster,
                                                    sessions: List[PtySession],
                                                    tmp_path: Path) -> None:
    """I05: ``-- /bin/echo hi`` runs instead of a shell; qsub.c: ``-W block=true`` with -I
    warns (INTER_BLOCK_WARN) and does not block."""
    session = _start(cluster, sessions, ["-W", "block=true", "-l", "walltime=00:01:00", "--",
                                         "/bin/echo", "hi"], str(tmp_path))
    assert session.wait(30) == 0
    text = session.output.decode()
    jobid = re.search(r"job (\S+) ready", text)
    assert jobid is not None
    assert text == (
        'qsub (Warning) : setting "block" attribute as "true" for an interactive job will '
        "not return job's exit status\r\n"
        "qsub: waiting for job {0} to start\r\nqsub: job {0} ready\r\n\r\nhi\r\n\r\n"
        "qsub: job {0} completed\r\n".format(jobid.group(1)))


def test_keys_signals_job_control_and_window_size(cluster: FakeCluster,
                                                  sessions: List[PtySession],
                                                  tmp_path: Path) -> None:
    """The job's side is a real terminal (start_exec.c: the shell's controlling pty): the
    window size is qsub's, at the start and after a change; Ctrl-C interrupts the foreground
    ``sleep`` and not qsub; Ctrl-Z stops it and ``fg``/``kill`` work; ``tty`` answers."""
    session = _start(cluster, sessions, ["-l", "walltime=00:02:00"], str(tmp_path),
                     rows=33, cols=101)
    _shell(session)
    assert "\n33 101\r\n" in _run(session, "stty size")
    session.set_size(40, 120)
    wait_for(lambda: "\n40 120\r\n" in _run(session, "stty size"), 10,
             "the new window size did not reach the job's terminal")
    mark = len(session.output)
    session.send("sleep 30\n")
    time.sleep(0.5)  # let the shell start sleep in the foreground
    session.send(b"\x03")
    session.expect(PROMPT, 10, start=mark)
    # the echo may follow the next prompt, when the shell printed it before reading the line
    assert re.search(r"(\n|PROMPT> )rc=130\r\n", _run(session, "echo rc=$?"))
    mark = len(session.output)
    session.send("sleep 30\n")
    time.sleep(0.5)
    session.send(b"\x1a")
    stopped = session.expect(re.compile(rb"Stopped\s+sleep 30"), 10, start=mark)
    session.expect(PROMPT, 10, start=stopped.end())
    assert "Stopped" in _run(session, "jobs")
    mark = len(session.output)
    session.send("fg\n")
    session.expect("sleep 30\r\n", 10, start=mark)  # fg names the job it resumes
    time.sleep(0.5)
    session.send(b"\x03")
    session.expect(PROMPT, 10, start=mark)
    # the echo may follow the next prompt, when the shell printed it before reading the line
    assert re.search(r"(\n|PROMPT> )rc=130\r\n", _run(session, "echo rc=$?"))
    assert "\n/dev/pts/" in _run(session, "tty")
    session.send("exit\n")
    assert session.wait(30) == 0


def test_environment_names(cluster: FakeCluster, sessions: List[PtySession],
                           tmp_path: Path) -> None:
    """I08: the PBS_* names inside the session (PBS_ENVIRONMENT=PBS_INTERACTIVE), TERM as
    qsub's, a terminal on stdin; pbsdsh's task writes on the terminal too."""
    session = _start(cluster, sessions, ["-l", "walltime=00:01:00"], str(tmp_path))
    _shell(session)
    out = _run(session, "env | grep ^PBS_ | cut -d= -f1 | sort | tr '\\n' ' '; "
               "echo $PBS_ENVIRONMENT $TERM; tty -s && echo has_tty")
    names = ("PBS_ENVIRONMENT PBS_JOBCOOKIE PBS_JOBDIR PBS_JOBID PBS_JOBNAME PBS_MOMPORT "
             "PBS_NODEFILE PBS_NODENUM PBS_O_HOME PBS_O_HOST PBS_O_LANG PBS_O_LOGNAME "
             "PBS_O_PATH PBS_O_QUEUE PBS_O_SHELL PBS_O_SYSTEM PBS_O_TZ PBS_O_WORKDIR "
             "PBS_QUEUE PBS_TASKNUM PBS_INTERACTIVE unknown\r\nhas_tty\r\n")
    assert names in out
    # a TM task's output goes where the job's does: the terminal (tm.py; D06 for a batch job).
    # Only bash gets the fake's commands first on PATH again after its profile
    # (docs/differences.md, interactive jobs): another login shell names pbsdsh in full.
    pbsdsh = "pbsdsh" if _login_shell().endswith("bash") else str(paths.bin_dir() / "pbsdsh")
    assert "\nvia TM\r\n" in _run(session, pbsdsh + " -- /bin/echo via TM")
    session.send("exit\n")
    assert session.wait(30) == 0


def test_script_body_is_not_run(cluster: FakeCluster, sessions: List[PtySession],
                                tmp_path: Path) -> None:
    """I09: ``qsub -I script.sh`` starts a shell; the script's body is not run (its name is
    the job's name, as for a batch job)."""
    marker = tmp_path / "ran"
    script = tmp_path / "hello.sh"
    script.write_text("#!/bin/sh\ntouch %s\n" % marker)
    session = _start(cluster, sessions, [str(script)], str(tmp_path))
    jobid = _shell(session)
    assert cluster.job(jobid)["Job_Name"] == "hello.sh"
    session.send("exit\n")
    assert session.wait(30) == 0
    assert not marker.exists()


def test_qdel_ends_the_session(cluster: FakeCluster, sessions: List[PtySession],
                               tmp_path: Path) -> None:
    """I06/I07: qdel from elsewhere: the session shows only a blank line and 'completed',
    qsub rc 0; the shell ignores SIGTERM, so it dies of kill_delay's SIGKILL: Exit_status
    265, comment 'terminated'."""
    session = _start(cluster, sessions, ["-l", "walltime=00:01:00"], str(tmp_path))
    jobid = _shell(session)
    mark = len(session.output)
    cluster.sh("qdel", jobid)
    assert session.wait(30) == 0
    assert session.output[mark:] == ("\r\nqsub: job %s completed\r\n" % jobid).encode()
    attrs = cluster.wait(jobid, "F", 30)
    assert attrs["Exit_status"] == "265"
    assert "and terminated" in attrs["comment"]


def test_walltime_ends_the_session(cluster: FakeCluster, sessions: List[PtySession],
                                   tmp_path: Path) -> None:
    """I10/I11: the mom's walltime message on the job's terminal, ``Terminated`` from the
    shell for its foreground sleep, a prompt, then 'completed'; Exit_status -29."""
    session = _start(cluster, sessions, ["-l", "walltime=00:00:03"], str(tmp_path))
    found = session.expect(READY, 30)
    jobid = found.group(1).decode()
    mark = session.expect("$ " if os.geteuid() else "# ", 15, start=found.end()).end()
    session.send("sleep 100\n")  # at once: it must be running when the 3 s are up
    assert session.wait(40) == 0
    tail = session.output[mark:].decode()
    assert re.search(r"\r\n=>> PBS: job killed: walltime \d+ exceeded limit 3\r\n"
                     r"Terminated\r\n.*\r\nqsub: job %s completed\r\n$" % re.escape(jobid),
                     tail, re.S), tail
    attrs = cluster.wait(jobid, "F", 30)
    assert attrs["Exit_status"] == "-29"
    assert attrs["comment"].endswith("and exceeded resource walltime")


def test_job_deleted_while_waiting(cluster: FakeCluster, sessions: List[PtySession],
                                   tmp_path: Path) -> None:
    """qsub.c interactive(): a job that goes away before it starts -> 'qsub: job N
    apparently deleted', rc 1 (held with -h, then deleted)."""
    session = _start(cluster, sessions, ["-h", "--", "/bin/true"], str(tmp_path))
    found = session.expect(re.compile(rb"waiting for job (\S+) to start\r\n"), 30)
    jobid = found.group(1).decode()
    subprocess.run(["qdel", jobid], env=cluster.env, check=True, timeout=60)
    assert session.wait(30) == 1
    assert session.output.endswith(("qsub: job %s apparently deleted\r\n" % jobid).encode())


def test_directive_I_through_the_command_runner(cluster: FakeCluster,
                                                sessions: List[PtySession],
                                                tmp_path: Path) -> None:
    """``#PBS -I`` in a script makes the job interactive as ``-I`` does (qsub.c process_opts
    for directives).  Such a qsub runs in a command runner worker (runclient.c sends only
    option words with I or X to the Python path): the worker has the terminal's descriptors,
    not as its controlling terminal, so the window size is looked at, not signalled."""
    script = tmp_path / "inter.sh"
    script.write_text("#!/bin/sh\n#PBS -I\n#PBS -l walltime=00:01:00\necho body\n")
    session = PtySession(["qsub", str(script)], _env(cluster), cwd=str(tmp_path), rows=30,
                         cols=90)
    sessions.append(session)
    _shell(session)
    if (cluster.home / "runclient").exists():  # the runner took it: the pty's child is the client
        assert os.readlink("/proc/%d/exe" % session.pid).endswith("runclient")
    assert "\n30 90\r\n" in _run(session, "stty size")
    session.set_size(31, 91)
    wait_for(lambda: "\n31 91\r\n" in _run(session, "stty size"), 10,
             "the new window size did not reach the job's terminal")
    session.send("exit\n")
    assert session.wait(30) == 0
    assert b"body" not in session.output


def test_ctrl_c_while_waiting_asks(cluster: FakeCluster, sessions: List[PtySession],
                                   tmp_path: Path) -> None:
    """qsub_sup.c catchint/bailout: Ctrl-C before the job starts asks; ``n`` goes on waiting
    (the job, released, then runs its session), ``y`` deletes the job ('Job N is being
    deleted') and qsub exits 0."""
    question = "Do you wish to terminate the job and exit (y|[n])? "
    jobids = []
    for answer in ("n", "y"):
        session = _start(cluster, sessions, ["-h", "--", "/bin/echo", "hi"], str(tmp_path))
        found = session.expect(re.compile(rb"waiting for job (\S+) to start\r\n"), 30)
        jobids.append(found.group(1).decode())
        session.send(b"\x03")
        session.expect(question, 10, start=found.end())
        session.send(answer + "\n")
        if answer == "n":
            cluster.sh("qrls", jobids[0])
            session.expect("ready\r\n\r\nhi\r\n\r\nqsub: job %s completed\r\n" % jobids[0], 30)
            assert session.wait(30) == 0
        else:
            assert session.wait(30) == 0
            assert session.output.endswith(
                ("Job %s is being deleted\r\n" % jobids[1]).encode())
            assert cluster.wait(jobids[1], "F", 30)["job_state"] == "F"


def test_qsub_killed_ends_the_job_and_its_processes(cluster: FakeCluster,
                                                    sessions: List[PtySession],
                                                    tmp_path: Path) -> None:
    """A qsub that dies mid-session (SIGKILL) hangs the job's terminal up, as a closed
    login does (PBS's mom_reader sees the socket's end); the shell ends, the job finishes, and
    nothing it started outlives it (the mom's kill of the session, as for any job)."""
    session = _start(cluster, sessions, ["-l", "walltime=00:01:00"], str(tmp_path))
    jobid = _shell(session)
    _run(session, "sleep 299.25 & disown")
    assert subprocess.run(["pgrep", "-f", "sleep 299.25"], capture_output=True,
                          timeout=30).returncode == 0
    session.close()  # SIGKILL to qsub
    attrs = cluster.wait(jobid, "F", 30)
    assert attrs["Exit_status"] != "0"  # ended by the hang-up, not by the shell's own exit
    wait_for(lambda: subprocess.run(["pgrep", "-f", "sleep 299.25"], capture_output=True,
                                    timeout=30).returncode == 1, 15,
             "a process of the session outlived the job")


def test_server_refuses_interactive_array(cluster: FakeCluster) -> None:
    """req_quejob.c: an interactive array job (a raw request; qsub refuses it before) is
    15029 'No support for requested service'; an interactive job is made not rerunnable
    whatever was asked."""
    from fake_pbs.model.errors import PBSE_NOSUP, PbsError

    base = {"Job_Name": "raw", "Rerunable": "True", "interactive": "True"}
    with pytest.raises(PbsError) as refused:
        cluster.call("queuejob", token="i-array", attrs=dict(base, array_indices_submitted="1-2"),
                     script="", cwd="/", env={})
    assert refused.value.code == PBSE_NOSUP
    reply = cluster.call("queuejob", token="i-rerun", attrs=dict(base, Hold_Types="u"),
                         script="", cwd="/", env={})
    assert cluster.job(str(reply["jobid"]))["Rerunable"] == "False"


def _login_shell() -> str:
    """The login shell of the user running the tests: the session's shell (start_exec.c)."""
    return pwd.getpwuid(os.getuid()).pw_shell
