"""The exec protocol end to end against a real mom: start, events, environment, output, status."""
import os
import stat
import time

import pytest

from fake_pbs.testing import wait_for

from .momrig import MomRig, kinds

ENV_SCRIPT = """#!/bin/bash
echo "== env"; env | sort
echo "== nodefile"; cat "$PBS_NODEFILE"
echo "== pwd"; pwd
echo "== umask"; umask
echo "== tmpdir"; test -d "$TMPDIR" && echo present
echo "== args: $0 $#"
echo to-stderr >&2
"""


def _env(text: str) -> dict:  # type: ignore[type-arg]
    section = text.split("== env\n", 1)[1].split("== nodefile\n", 1)[0]
    return dict(line.split("=", 1) for line in section.splitlines() if "=" in line)


def test_normal_job_events_env_and_output(node1: MomRig) -> None:
    """Extra i01/i02: the job environment, nodefile, cwd=home, umask 0077, files -rw-------;
    the stream is start, finish {status 0}, release final (docs/internals.md §5)."""
    job = node1.spec("7.vm", ENV_SCRIPT,
                     hosts=[{"host": "node1", "ncpus": 2, "mpiprocs": 2}],
                     attrs={"Resource_List.ncpus": "2", "Job_Name": "envdump",
                            "Variable_List": "PBS_O_HOME=/h,PBS_O_WORKDIR=/tmp,FOO=bar,"
                                             "LIST=a\\,b,PBS_O_QUEUE=workq"})
    events = node1.run("node1", job)
    assert kinds(events) == ["start", "finish", "release"]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert events[0]["session_id"] == events[0]["pid"] > 0
    assert events[1]["status"] == 0
    assert events[1]["resources_used"]["ncpus"] == "2"
    assert events[2]["final"] is True and events[2]["vnodes"] == ["node1"]
    out_path = node1.user_home / "job.o7"
    text = out_path.read_text()
    env = _env(text)
    tmpdir = str(node1.job_dir("node1", "7.vm").parents[1] / "tmp" / "pbs.7.vm")
    for name, value in {"PBS_JOBID": "7.vm", "PBS_JOBNAME": "envdump", "PBS_QUEUE": "workq",
                        "PBS_ENVIRONMENT": "PBS_BATCH", "ENVIRONMENT": "BATCH", "NCPUS": "2",
                        "OMP_NUM_THREADS": "2", "PBS_O_WORKDIR": "/tmp", "FOO": "bar",
                        "LIST": "a,b", "PBS_NODENUM": "0", "PBS_TASKNUM": "1",
                        "PBS_MOMPORT": "15003", "HOME": str(node1.user_home),
                        "PBS_JOBDIR": str(node1.user_home), "USER": "root",
                        "LOGNAME": "root", "TMPDIR": tmpdir}.items():
        assert env.get(name) == value, name
    assert len(env["PBS_JOBCOOKIE"]) == 32
    assert env["PATH"].split(":")[0].endswith("fake_pbs/bin")
    assert "== nodefile\nnode1\nnode1\n== pwd\n%s\n== umask\n0077\n== tmpdir\npresent\n" \
        % node1.user_home in text
    assert "== args: %s 0" % (node1.job_dir("node1", "7.vm") / "7.vm.SC") in text
    assert (node1.user_home / "job.e7").read_text() == "to-stderr\n"
    assert stat.S_IMODE(out_path.stat().st_mode) == 0o600
    assert not os.path.exists(tmpdir)  # TMPDIR is removed at the end of the job


def test_exit_code_is_reported(node1: MomRig) -> None:
    """Transcript exit3.sh: a script that exits 3 finishes with status 3."""
    events = node1.run("node1", node1.spec("8.vm", "#!/bin/bash\nexit 3\n"))
    assert kinds(events) == ["start", "finish", "release"]
    assert events[1]["status"] == 3


def test_command_job_runs_executable(node1: MomRig) -> None:
    """``qsub -- /bin/echo a b`` (b22e attributes): the executable runs directly."""
    attrs = {"executable": "<jsdl-hpcpa:Executable>/bin/echo</jsdl-hpcpa:Executable>",
             "argument_list": "<jsdl-hpcpa:Argument>a</jsdl-hpcpa:Argument>"
                              "<jsdl-hpcpa:Argument>b c</jsdl-hpcpa:Argument>"}
    events = node1.run("node1", node1.spec("9.vm", "", attrs=attrs))
    assert events[1]["status"] == 0
    assert (node1.user_home / "job.o9").read_text() == "a b c\n"


def test_join_oe_and_output_directory(node1: MomRig) -> None:
    """Extra i05c/i05e: -j oe puts stderr after stdout in .o only; -o dir/ -> <dir>/<id>.OU."""
    out_dir = node1.user_home / "outdir"
    out_dir.mkdir()
    job = node1.spec("10.vm", "echo to-stdout\necho to-stderr >&2\n",
                     attrs={"Join_Path": "oe"})
    node1.run("node1", job)
    assert (node1.user_home / "job.o10").read_text() == "to-stdout\nto-stderr\n"
    assert not (node1.user_home / "job.e10").exists()
    job = node1.spec("11.vm", "echo out\necho err >&2\n",
                     attrs={"Output_Path": "vm:%s/" % out_dir, "Error_Path": "vm:%s/" % out_dir})
    node1.run("node1", job)
    assert (out_dir / "11.vm.OU").read_text() == "out\n"
    assert (out_dir / "11.vm.ER").read_text() == "err\n"


def test_undeliverable_output_is_kept(node1: MomRig) -> None:
    """Extra i05g: a missing destination directory: exit 0, Stageout_status 0, file kept."""
    job = node1.spec("12.vm", "echo x\n",
                     attrs={"Error_Path": "vm:%s/missing/e.err" % node1.user_home})
    events = node1.run("node1", job)
    # stage-out follows the obit (copy file request): its status is on the final release
    assert events[1]["status"] == 0 and events[-1]["stageout_status"] == 0
    assert (node1.home / "mom_priv" / "node1" / "undelivered" / "12.vm.ER").exists()


def test_termjob_sigterm_gives_271(node1: MomRig) -> None:
    """Reference §3: qdel sends TermJob -> SIGTERM -> Exit_status 271 (256+15)."""
    channel = node1.submit("node1", node1.spec("13.vm", "sleep 300\n"))
    assert kinds(node1.read_until(channel, "start")) == ["start"]
    node1.request("node1", "signal", job="13.vm", signal="TermJob")
    events = node1.read_until(channel, "release")
    assert kinds(events) == ["finish", "release"]
    assert events[0]["status"] == 271


def test_termjob_escalates_to_sigkill_265(node1: MomRig) -> None:
    """Reference §3: a job that survives SIGTERM for kill_delay is SIGKILLed -> 265."""
    trapped = node1.user_home / "trapped.14"
    script = "trap '' TERM\ntouch %s\nsleep 300\n" % trapped
    channel = node1.submit("node1", node1.spec("14.vm", script, kill_delay=1))
    node1.read_until(channel, "start")
    # The start event comes when the shell starts, maybe before it read the trap line.
    wait_for(trapped.exists, 30, "the job's TERM trap set")
    node1.request("node1", "signal", job="14.vm", signal="TermJob")
    events = node1.read_until(channel, "release")
    assert events[0]["ev"] == "finish" and events[0]["status"] == 265


def test_walltime_kill(node1: MomRig) -> None:
    """Extra i06: walltime exceeded -> killed, stderr ends with the PBS line, status -29."""
    job = node1.spec("15.vm", "echo before\necho err-before >&2\nsleep 30\n",
                     attrs={"Resource_List.walltime": "00:00:01"}, kill_delay=2)
    events = node1.run("node1", job)
    assert kinds(events) == ["start", "finish", "release"]
    assert events[1]["status"] == -29
    err = (node1.user_home / "job.e15").read_text()
    lines = err.splitlines()
    assert lines[0] == "err-before"
    assert lines[1].startswith("=>> PBS: job killed: walltime ")
    assert lines[1].endswith(" exceeded limit 1") and err.endswith("\n")
    log = "".join(p.read_text() for p in (node1.home / "mom_logs" / "node1").iterdir())
    assert ";0008;pbs_mom;Job;15.vm;walltime " in log


def test_signals_suspend_resume_and_errors(node1: MomRig) -> None:
    """qsig (extra k03): plain signals reach the job; unknown names -> 15013; unknown job ->
    15001; suspend/resume stop and continue the session."""
    script = "trap 'echo got-usr1; exit 7' USR1\nwhile true; do sleep 0.1; done\n"
    channel = node1.submit("node1", node1.spec("16.vm", script))
    start = node1.read_until(channel, "start")[0]
    node1.request("node1", "signal", job="16.vm", signal="suspend")
    assert _state(start["pid"]) == "T"
    node1.request("node1", "signal", job="16.vm", signal="resume")
    for bad, code in (({"job": "16.vm", "signal": "SIGFOO"}, 15013),
                      ({"job": "99.vm", "signal": "USR1"}, 15001)):
        try:
            node1.request("node1", "signal", **bad)
        except Exception as err:  # PbsError
            assert getattr(err, "code") == code
        else:
            raise AssertionError("expected an error for %r" % bad)
    node1.request("node1", "signal", job="16.vm", signal="USR1")
    events = node1.read_until(channel, "release")
    assert events[0]["status"] == 7
    assert (node1.user_home / "job.o16").read_text() == "got-usr1\n"


def _state(pid: int) -> str:
    for _ in range(50):
        with open("/proc/%d/stat" % pid) as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
        if state == "T":
            return state
        time.sleep(0.02)
    return state


def test_discard_removes_job_files_and_logs(node1: MomRig) -> None:
    """Mom log lines as f04d/i06d: Started, pid = N ... Obit sent ... delete job request."""
    events = node1.run("node1", node1.spec("17.vm", "true\n"))
    pid = events[0]["pid"]
    assert node1.job_dir("node1", "17.vm").exists()
    node1.request("node1", "discard", job="17.vm")
    assert not node1.job_dir("node1", "17.vm").exists()
    log = "".join(p.read_text() for p in (node1.home / "mom_logs" / "node1").iterdir())
    assert ";0008;pbs_mom;Job;17.vm;Started, pid = %d\n" % pid in log
    assert ";0100;pbs_mom;Job;17.vm;Obit sent\n" in log
    assert ";0080;pbs_mom;Job;17.vm;delete job request received\n" in log
    assert node1.request("node1", "status")["jobs"] == []


@pytest.mark.root
def test_job_runs_as_its_owner(node1: MomRig) -> None:
    """A root mom runs the job as its owner (uid/gid), output owned by that user, 0600."""
    home = node1.user_home / "nobody"
    home.mkdir()
    os.chown(str(home), 65534, 65534)
    job = node1.spec("18.vm", "id -u; id -g; touch $TMPDIR/x && echo tmp-ok\n",
                     uid=65534, gid=65534, user="nobody", home=str(home),
                     attrs={"Output_Path": "vm:%s/o" % home, "Error_Path": "vm:%s/e" % home})
    events = node1.run("node1", job)
    assert events[1]["status"] == 0
    out = home / "o"
    assert out.read_text() == "65534\n65534\ntmp-ok\n"
    info = out.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (65534, 65534, 0o600)


def test_private_sandbox(node1: MomRig) -> None:
    """Extra i07/i07c_sandbox_output: -W sandbox=PRIVATE -> PBS_JOBDIR = PWD =
    ~/pbs.<id>.x8z (PBS's fixed suffix); the start event gives the server that jobdir; output
    still delivered to Output_Path; the sandbox is removed at the end."""
    job = node1.spec("19.vm", 'echo "$PBS_JOBDIR $PWD"\n', attrs={"sandbox": "PRIVATE"})
    events = node1.run("node1", job)
    assert events[1]["status"] == 0
    jobdir, pwd = (node1.user_home / "job.o19").read_text().split()
    assert jobdir == pwd == "%s/pbs.19.vm.x8z" % node1.user_home
    assert [e.get("jobdir") for e in events if e["ev"] == "start"] == [jobdir]
    assert not os.path.exists(jobdir)
