"""Bad input (issue 6): a corpus of malformed scripts, directives, options, resource strings,
qmgr commands, hook files, odd bytes in names, paths and environment values, and raw garbage
on the server's socket.  Each gets an error (PBS's where it has one) and no traceback; the
daemons never crash; nothing already accepted is lost."""
import os
import socket
from typing import List, Optional, Tuple

from fake_pbs import control, paths

from .rig import Rig

Case = Tuple[List[str], Optional[str]]

# (argv, stdin): each must fail cleanly (or succeed), never crash a command or a daemon.
CORPUS: List[Case] = [
    (["qsub", "-l", "select=abc"], "true\n"),
    (["qsub", "-l", "select=1:ncpus=-1"], "true\n"),
    (["qsub", "-l", "select=1:ncpus=1:mem=lots"], "true\n"),
    (["qsub", "-l", "walltime=aa:bb"], "true\n"),
    (["qsub", "-l", "nosuchresource=1"], "true\n"),
    (["qsub", "-l", "place=sideways"], "true\n"),
    (["qsub", "-l", ""], "true\n"),
    (["qsub", "-W", ""], "true\n"),
    (["qsub", "-W", "depend=afterok:nosuchjob"], "true\n"),
    (["qsub", "-q", "nosuchqueue"], "true\n"),
    (["qsub", "-a", "99999999999"], "true\n"),
    (["qsub", "-Z"], "true\n"),
    (["qsub", "-N", "bad name\twith\ttabs"], "true\n"),
    (["qsub", "-N", "x" * 300], "true\n"),
    (["qsub"], "#PBS -l select=\"unbalanced\n#PBS -Q\ntrue\n"),
    (["qsub"], "#PBS -l ncpus=1,mem=\ntrue\n"),
    (["qsub"], "#!/bin/sh\n#PBS -N 'unterminated\ntrue\n"),
    (["qsub", "/nonexistent/script.sh"], None),
    (["qsub", "--", "/bin/echo", "a\"b", "c\\d", "tab\there", "nl\nhere"], None),
    (["qdel", "not-a-job-id"], None),
    (["qdel", "99999999.vm"], None),
    (["qdel", "1.other.server.example"], None),
    (["qstat", "-f", "-x", "1.vm,2,,,x"], None),
    (["qstat", "-Q", "nosuchqueue"], None),
    (["qalter", "-l", "walltime=bogus", "0"], None),
    (["qhold", "-h", "zzz", "0"], None),
    (["qsig", "-s", "SIGNOSUCH", "0"], None),
    (["qmgr", "-c", "set server"], None),
    (["qmgr", "-c", "set server nosuchattr = 1"], None),
    (["qmgr", "-c", "set server scheduler_iteration = banana"], None),
    (["qmgr", "-c", "create queue 9bad"], None),
    (["qmgr", "-c", "create node"], None),
    (["qmgr", "-c", "set queue workq max_running = -"], None),
    (["qmgr", "-c", "frobnicate everything"], None),
    (["qmgr", "-c", "s s \"unterminated"], None),
    (["qmgr", "-c", "import hook h application/x-python default /nonexistent.py"], None),
    (["pbsnodes", "nosuchnode"], None),
    (["pbsnodes", "-o", ""], None),
]

BAD_HOOKS = {
    "syntax": "import pbs\nthis is not python(\n",
    "raises": "import pbs\nraise RuntimeError('boom')\n",
    "loops": "import pbs\nwhile True:\n    pass\n",
    "chatty": "import pbs, sys\nsys.stdout.write('x' * 5000000)\npbs.logmsg(pbs.LOG_DEBUG, "
              "'y' * 100000)\npbs.event().accept()\n",
}


def _alive(rig: Rig) -> None:
    report = control.status(rig.home)
    assert report["server"]["answers"], "the server stopped answering"
    assert all(m["answers"] for m in report["moms"].values()), report


def test_command_corpus_fails_cleanly_and_loses_nothing(rig: Rig) -> None:
    canary = rig.qsub("true", "-h")
    pids = control._read_pids(rig.home)
    for argv, stdin in CORPUS:
        done = rig.run(argv, input=stdin)
        assert "Traceback" not in done.stderr, (argv, done.stderr)
        if done.returncode != 0:
            assert done.stderr.strip(), (argv, "failed without saying why")
    _alive(rig)
    assert control._read_pids(rig.home) == pids  # nothing restarted behind our back
    assert rig.job(canary)["job_state"] == "H"


def test_odd_bytes_in_names_paths_and_environment(rig: Rig) -> None:
    """Tabs, dollars, shell metacharacters and non-UTF-8 bytes travel through -v, the job's
    name and its script; the job runs and the environment arrives byte for byte.  An
    unbalanced quote in a -v value gets qsub's own refusal (copy_env_value)."""
    env = dict(rig.env)
    env["UNBALANCED"] = "q\"uote's"
    done = rig.run(["qsub", "-v", "UNBALANCED"], input="true\n", env=env)
    assert (done.returncode, done.stderr) == (1, "qsub: cannot send environment with the job\n")
    # (Backslashes are escaped by qsub as PBS's copy_env_value does; how PBS's mom unescapes
    # them is not pinned by a transcript, so they are left out here: docs/reliability.md.)
    odd = "tab\there $dollar ~tilde;semi|pipe"
    env["ODD_VALUE"] = odd
    out = rig.work / "env.out"
    script = "#!/bin/sh\nprintf '%%s' \"$ODD_VALUE\" > %s\nprintf '\\377\\376' >> %s\n" % (
        out, out)
    done = rig.run(["qsub", "-v", "ODD_VALUE", "-N", "odd_name-1"], input=script, env=env)
    assert done.returncode == 0, done.stderr
    attrs = rig.wait(done.stdout.strip())
    assert attrs["Exit_status"] == "0"
    assert out.read_bytes() == odd.encode() + b"\xff\xfe"
    raw_env = dict(os.environb)
    raw_env.update({k.encode(): v.encode() for k, v in rig.env.items()})
    raw_env[b"BAD_BYTES"] = b"\xff\xfe\x80 not utf-8"
    import subprocess
    proc = subprocess.run(["qsub", "-V"], input=b"#!/bin/sh\ntrue\n", env=raw_env,
                          cwd=str(rig.work), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=60)
    assert b"Traceback" not in proc.stderr
    if proc.returncode == 0:
        assert rig.wait(proc.stdout.decode().strip())["Exit_status"] == "0"
    _alive(rig)


def test_bad_hooks_never_take_a_daemon_down(rig: Rig) -> None:
    """Hook files with syntax errors, exceptions, an endless loop (alarm) and huge output: the
    events they hook fail or pass as PBS says, the daemons live on, accepted jobs stay."""
    canary = rig.qsub("true", "-h")
    for name, body in BAD_HOOKS.items():
        path = rig.work / (name + ".py")
        path.write_text(body)
        for command in ("create hook %s event=queuejob" % name,
                        "set hook %s alarm = 2" % name,
                        "import hook %s application/x-python default %s" % (name, path)):
            done = rig.run(["qmgr", "-c", command])
            if name == "syntax" and command.startswith("import"):
                # PBS compiles on import and refuses (hook error, qmgr exit 32)
                assert "Failed to compile script" in done.stderr, done.stderr
                continue
            assert done.returncode == 0, (command, done.stderr)
        done = rig.run(["qsub"], input="true\n")
        assert "Traceback" not in done.stderr
        assert done.returncode != 0 or name in ("chatty", "syntax"), (name, done.stdout)
        assert rig.run(["qmgr", "-c", "delete hook %s" % name]).returncode == 0
        _alive(rig)
    assert rig.job(canary)["job_state"] == "H"


def test_garbage_on_the_server_socket(rig: Rig) -> None:
    """Non-JSON, wrong types, unknown ops, a line without its end, a huge line: each gets an
    error reply or a closed connection; the server answers the next client as before."""
    canary = rig.qsub("true", "-h")
    lines = [b"not json\n", b"[1,2,3]\n", b"{\"op\": 5}\n", b"{\"op\": \"nosuchop\"}\n",
             b"{\"op\": \"statjob\", \"id\": {\"x\": 1}}\n", b"{\"op\": \"deljob\"}\n",
             b"{\"op\": \"queuejob\", \"attrs\": \"zzz\"}\n", b"\xff\xfe\n",
             b"{\"op\": \"ping\"" + b" " * (1 << 20) + b"\n", b"{\"op\": \"ping\""]
    for line in lines:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(10)
        try:
            sock.connect(str(paths.server_socket(rig.home)))
            sock.sendall(line)
            sock.shutdown(socket.SHUT_WR)
            sock.recv(65536)
        finally:
            sock.close()
        assert rig.call("ping")["server_name"] == "vm", line[:40]
    _alive(rig)
    assert rig.job(canary)["job_state"] == "H"
