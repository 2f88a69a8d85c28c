"""Nothing a command needs is imported after a runner worker's fork (fake_pbs/runner/preload.py).

A worker of root's runner runs as its caller; a module first imported then is read with the
caller's rights, so an interpreter under a directory only root may read (``/root/.pyenv``,
0700) failed ``tracejob`` for every ordinary user with ``ModuleNotFoundError: _strptime``.  Two
checks keep the preload complete: every import inside a function of the commands' modules is
preloaded (static), and running each command over a wide set of options, after the runner's
preload and warm-up, loads no module (dynamic).
"""
import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set

from fake_pbs.runner import preload
from fake_pbs.testing import FakeCluster

PACKAGE = Path(preload.__file__).resolve().parent.parent


def _command_modules() -> List[Path]:
    """The files a command may run: the commands, their rendering and plumbing, the model."""
    plumbing = ["paths.py", "protocol.py", "leanos.py", "jsonwire.py", "verified_connect.py"]
    return (sorted(PACKAGE.glob("cli/**/*.py")) + [PACKAGE / name for name in plumbing]
            + sorted(PACKAGE.glob("model/**/*.py")))


def _function_imports(path: Path) -> Set[str]:
    names: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Import):
                names.update(alias.name for alias in inner.names)
            elif isinstance(inner, ast.ImportFrom) and inner.level == 0 and inner.module:
                names.add(inner.module)
                names.update("%s.%s" % (inner.module, alias.name) for alias in inner.names)
    return names


def test_every_import_inside_a_command_function_is_preloaded() -> None:
    """Static: each function-level import of the commands' code names a module the runner's
    preload loads (or a name inside one)."""
    probe = "import sys\nfrom fake_pbs.runner import preload\npreload.preload()\n" \
            "print('\\n'.join(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-S", "-c", probe], stdout=subprocess.PIPE,
                          universal_newlines=True, timeout=60, cwd=str(PACKAGE.parent),
                          check=True)
    loaded = set(done.stdout.split())
    missing = {}
    for path in _command_modules():
        for name in _function_imports(path):
            if name not in loaded and name.rsplit(".", 1)[0] not in loaded:
                missing[name] = str(path.relative_to(PACKAGE.parent))
    assert not missing, "imported in a function, not preloaded: %r" % missing


# Each command over the options that reach its lazily imported code; {job}: a held job.
ARGVS = [
    ["qsub", "-h", "-N", "pre", "-a", "2099-01-01T00:00", "--", "/bin/true"],
    ["qsub", "-h", "-a", "209901010000", "-l", "select=1:ncpus=1", "-l", "walltime=1:00",
     "-v", "A=1", "-V", "-W", "depend=afterok:{job}", "-J", "1-3", "--", "/bin/true"],
    ["qsub", "-h", "-o", "/tmp/x", "-e", "/tmp/y", "-j", "oe", "-m", "n", "-p", "5", "-r", "n",
     "-S", "/bin/sh", "-u", "root", "-W", "group_list=root", "--", "/bin/true"],
    ["qstat"], ["qstat", "-a"], ["qstat", "-f"], ["qstat", "-f", "-F", "json"],
    ["qstat", "-f", "-F", "dsv"], ["qstat", "-x"], ["qstat", "-xf", "{job}"], ["qstat", "-n1"],
    ["qstat", "-s"], ["qstat", "-t"], ["qstat", "-J"], ["qstat", "-i"], ["qstat", "-r"],
    ["qstat", "-H"], ["qstat", "-u", "root"], ["qstat", "-w", "-a"], ["qstat", "-T"],
    ["qstat", "-B"], ["qstat", "-Bf"], ["qstat", "-Q"], ["qstat", "-Qf"], ["qstat", "-q"],
    ["qstat", "-G"], ["qstat", "-M"], ["qstat", "nosuch.x"], ["qstat", "-f", "99999"],
    ["pbsnodes", "-a"], ["pbsnodes", "-av"], ["pbsnodes", "-a", "-F", "json"],
    ["pbsnodes", "-aSj"], ["pbsnodes", "-l"], ["pbsnodes", "-s", "x", "-a"],
    ["qselect"], ["qselect", "-s", "H"], ["qselect", "-a", "gt.202001010000"],
    ["qselect", "-l", "ncpus.gt.0"], ["qselect", "-N", "pre", "-u", "root"],
    ["qalter", "-a", "209901010101", "{job}"], ["qalter", "-l", "walltime=2:00", "{job}"],
    ["qalter", "-N", "x", "{job}"], ["qhold", "{job}"], ["qrls", "{job}"],
    ["qsig", "-s", "TERM", "{job}"], ["qmsg", "hello", "{job}"], ["qmsg", "-O", "x", "{job}"],
    ["qmsg", "only-a-message"], ["qrerun", "{job}"], ["qmove", "workq", "{job}"],
    ["qrun", "99999"],
    ["qmgr", "-c", "list server"], ["qmgr", "-c", "print server"],
    ["qmgr", "-c", "list node @default"],
    ["qmgr", "-c", "print queue workq"], ["qmgr", "-c", "list hook"], ["qmgr", "-c", "bad"],
    ["tracejob", "{job}"], ["tracejob", "-n", "3", "-z", "{job}"],
    ["tracejob", "-l", "-m", "-s", "-a", "{job}"],
    ["tracejob", "-f", "job", "-c", "2", "-w", "80", "{job}"],
    ["tracejob", "-p", "/nonexistent", "{job}"],
    ["qdel", "-W", "force", "{job}"], ["qdel", "{job}"], ["qdel", "12.othersrv"],
    ["qstat", "--version"], ["qsub", "--version"], ["tracejob"], ["qsub", "-Z"],
    ["pbs_rstat"], ["pbs_rstat", "-f"], ["pbs_rstat", "-B", "R1"], ["pbs_rdel", "R99999"],
    ["pbs_ralter", "-E", "1200", "R99999"], ["pbs_rsub", "-R", "2561"],
    ["pbs_rsub", "-R", "1200", "-D", "00:10:00", "-l", "select=1:ncpus=1"],
]

_PROBE = r"""
import io, json, os, sys
from fake_pbs import leanos
from fake_pbs.runner import preload, warm, worker
leanos._exit = worker.raise_exited  # as in a worker: qsub's os._exit ends only the command
preload.preload()
warm.warm_up()
before = set(sys.modules)
cases = json.loads(sys.stdin.read())
found = {}
job = ""
for argv in cases:
    argv = [arg.replace("{job}", job) for arg in argv]
    out = io.StringIO()
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(""), out, io.StringIO()
    code, clean = worker.run_command([os.fsencode(arg) for arg in argv])
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
    warm.forget_caches()
    if not job and argv[0] == "qsub":
        job = out.getvalue().strip()
    new = sorted(set(sys.modules) - before)
    if new:
        found[" ".join(argv)] = new
        before = set(sys.modules)
print(json.dumps(found))
"""


def test_no_command_imports_a_module_after_the_preload(fake_pbs: FakeCluster) -> None:
    """Dynamic: after the runner's preload and warm-up, running every command over
    :data:`ARGVS` (options that reach lazily imported code: dates, JSON, logs, qmgr) loads
    no module."""
    env = dict(fake_pbs.env, PYTHONPATH=str(PACKAGE.parent))
    done = subprocess.run([sys.executable, "-S", "-c", _PROBE], input=json.dumps(ARGVS),
                          env=env, cwd="/tmp", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found: Dict[str, List[str]] = json.loads(done.stdout)
    assert not found, "imported after the preload: %r" % found
