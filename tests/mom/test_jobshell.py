"""How the mom starts the job shell and what the job's environment holds (extra j14*, i04*).

PBS's mom starts the shell (``-S`` or the login shell) and feeds it the script's path, so a script
that starts with ``#!`` runs under its own interpreter whatever the shell; and it decodes
``Variable_List`` (attr_fn_arst.c ``parse_comma_string_bs``) so values arrive as the user had them.
"""
import os
import time
from pathlib import Path

import pytest

from fake_pbs.mom.environment import parse_variable_list
from fake_pbs.mom.launch import shell_argv

from .momrig import MomRig

# The shellid.sh of the extra transcripts (j14*), plus a bash-only construct.
SHELLID = """#!/bin/bash
#PBS -N shellid
[[ -n "$BASH_VERSION" ]] && echo bash-only-syntax-ok
echo "exe=$(readlink /proc/$$/exe) dollar0=$0 SHELL=$SHELL"
"""
NOSHEBANG = 'echo "exe=$(readlink /proc/$$/exe) SHELL=$SHELL"\n'


def _exe(name: str) -> str:
    return os.path.realpath(name)


def test_shell_argv_runs_a_shebang_script_as_a_command() -> None:
    """Extra j14, j14g: with ``#!`` the shell runs the script's path (the interpreter wins);
    without, the shell reads the script itself (j14e: ``/bin/sh <id>.SC``)."""
    assert shell_argv("/bin/sh", "/m/jobs/1.vm/1.vm.SC", "#!/bin/bash\necho\n") == [
        "/bin/sh", "-c", "/m/jobs/1.vm/1.vm.SC\nexit $?"]
    assert shell_argv("/bin/sh", "/m/jobs/2[1].vm/2[1].vm.SC", "#!/bin/bash\n") == [
        "/bin/sh", "-c", "'/m/jobs/2[1].vm/2[1].vm.SC'\nexit $?"]
    assert shell_argv("/bin/sh", "/m/1.vm.SC", "echo\n") == ["/bin/sh", "/m/1.vm.SC"]
    assert shell_argv("/bin/sh", "/m/1.vm.SC", " #!/bin/bash\n") == ["/bin/sh", "/m/1.vm.SC"]


def test_the_shell_stays_the_parent_of_a_shebang_script(node1: MomRig) -> None:
    """Extra k03a, k03h-k03k: PBS's ``-bash`` runs ``/bin/bash <id>.SC`` as its child, so
    ``qsig -s USR1`` (sent to the whole session) ends the job through the shell although the
    script traps USR1: Exit_status 266 (256 + 10); the script sees SHLVL 2 (i01b).  (Whether
    the script's bash reports its ``sleep``'s death on stderr before the session is killed is
    a race, in PBS too.)"""
    script = ("#!/bin/bash\ntrap 'echo got USR1' USR1\necho SHLVL=$SHLVL\n"
              "for i in $(seq 1 300); do sleep 1; done\n")
    channel = node1.submit("node1", node1.spec("27.vm", script))
    node1.read_until(channel, "start")
    spool = node1.job_dir("node1", "27.vm") / "27.vm.OU"
    for _ in range(250):  # the script runs once its first line is in the spool
        if spool.exists() and spool.read_text():
            break
        time.sleep(0.02)
    assert spool.read_text() == "SHLVL=2\n"
    node1.request("node1", "signal", job="27.vm", signal="USR1")
    events = node1.read_until(channel, "release")
    assert events[0]["ev"] == "finish" and events[0]["status"] == 266
    assert (node1.user_home / "job.o27").read_text().splitlines()[0] == "SHLVL=2"
    # k03n: a real signal goes through the mom's kill_job, which logs it
    log = "".join(p.read_text() for p in (node1.home / "mom_logs" / "node1").iterdir())
    lines = [ln.split(";", 5)[-1] for ln in log.splitlines() if ";27.vm;" in ln]
    at = lines.index("signal job with USR1")
    assert lines[at + 1] == "kill_job"


def test_variable_list_is_decoded_as_the_mom_decodes_it() -> None:
    """attr_fn_arst.c parse_comma_string_bs: ``\\"`` ``\\'`` ``\\,`` ``\\\\`` lose their
    backslash, any other backslash stays; entries are stripped of surrounding white space.
    qsub -V escaped ``{"a": 1}`` as ``{\\"a\\": 1}`` (qsub_env.copy_value)."""
    pairs = parse_variable_list('J={\\"a\\": 1},Q=it\\\'s,L=a\\,b,B=c\\\\d,K=x\\yz, T=v ,E=')
    assert pairs == [("J", '{"a": 1}'), ("Q", "it's"), ("L", "a,b"), ("B", "c\\d"),
                     ("K", "x\\yz"), ("T", "v"), ("E", "")]


def test_shebang_wins_over_the_job_shell(node1: MomRig) -> None:
    """Extra j14/j14d and j14g: ``qsub -S /bin/sh`` (or dash) of a ``#!/bin/bash`` script runs
    bash with the script's path as $0; only $SHELL names the -S shell."""
    for seq, shell in ((21, "/bin/sh"), (22, "/bin/bash")):
        job = node1.spec("%d.vm" % seq, SHELLID, attrs={"Shell_Path_List": shell})
        events = node1.run("node1", job)
        assert events[1]["status"] == 0
        script = node1.job_dir("node1", "%d.vm" % seq) / ("%d.vm.SC" % seq)
        expected = "bash-only-syntax-ok\nexe=%s dollar0=%s SHELL=%s\n" % (
            _exe("/bin/bash"), script, shell)
        assert (node1.user_home / ("job.o%d" % seq)).read_text() == expected


def test_script_without_shebang_runs_in_the_job_shell(node1: MomRig) -> None:
    """Extra j14e/j14h: no ``#!``: ``-S /bin/sh`` runs the script in /bin/sh itself."""
    events = node1.run("node1", node1.spec("23.vm", NOSHEBANG,
                                           attrs={"Shell_Path_List": "/bin/sh"}))
    assert events[1]["status"] == 0
    assert (node1.user_home / "job.o23").read_text() == "exe=%s SHELL=/bin/sh\n" % _exe("/bin/sh")


def test_missing_shell_ends_the_job_with_254(node1: MomRig) -> None:
    """Extra j14b/j14c/j14d: ``-S /no/such/shell`` starts, ends with Exit_status 254 and the
    mom's line in the stderr file (the shebang does not save it: the shell runs first)."""
    events = node1.run("node1", node1.spec("24.vm", SHELLID,
                                           attrs={"Shell_Path_List": "/no/such/shell"}))
    assert [e["ev"] for e in events][:2] == ["start", "finish"]
    assert events[1]["status"] == 254
    assert (node1.user_home / "job.o24").read_text() == ""
    assert (node1.user_home / "job.e24").read_text() == (
        "pbs_mom, exec of /no/such/shell failed with error: No such file or directory\n")


@pytest.mark.parametrize("shell", ["/bin/sh", "/bin/bash"])
def test_environment_values_arrive_as_the_user_had_them(node1: MomRig, shell: str) -> None:
    """Issue 11 / attr_fn_arst.c: a -V value ``{"a": 1}`` (stored ``{\\"a\\": 1}``), a quote and
    a comma reach the job unescaped, under either shell."""
    seq = 25 if shell == "/bin/sh" else 26
    varlist = ('PBS_O_HOME=%s,PBS_O_WORKDIR=/tmp,J={\\"a\\": 1},Q=it\\\'s,L=a\\,b,'
               "PBS_O_QUEUE=workq" % node1.user_home)
    script = 'printf "%s|%s|%s\\n" "$J" "$Q" "$L"\n'
    events = node1.run("node1", node1.spec("%d.vm" % seq, script, attrs={
        "Shell_Path_List": shell, "Variable_List": varlist}))
    assert events[1]["status"] == 0
    assert Path(node1.user_home / ("job.o%d" % seq)).read_text() == '{"a": 1}|it\'s|a,b\n'
