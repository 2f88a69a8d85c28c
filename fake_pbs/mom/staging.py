"""File staging: ``-W stagein=local@host:remote`` before the job, ``-W stageout=...`` after it.

PBS's mom does each copy request in a child that has become the job's owner (requests.c
req_cpyfile, fork_to_user), in the owner's home or, under ``sandbox=PRIVATE``, in the job's
sandbox, which a stage-in creates first.  Every file of the request goes through
stage_func.c's rules, which this module follows:

- ``stage_file``: a wildcard (``*`` / ``?``) in the source's last component is matched against
  that directory's entries (names starting with ``.`` never match, pbs_glob); otherwise one copy.
- ``sys_copy``: ``/bin/cp -rp SRC DST`` (directories copy whole), four tries with a pause after
  the second and the fourth (11 s, 21 s: the pace's, none under ``fast``), each failure logged;
  a stage-out source that does not exist fails at once, untried; a destination of
  ``/dev/null`` is not copied at all.
- ``copy_file``: a staged-out file is removed once copied (unless it lies in the sandbox, which
  goes whole); a staged-in file is remembered, and removed again when a later file of the
  same stage-in fails.  A failure adds ``Unable to copy file ...`` and cp's words to the
  request's bad list, and the first failing file ends the request: the files after it are not
  tried (req_cpyfile's loop) but count in ``Staged N/M items``.
- every host is this host (one machine: PBS's ``$usecp`` for every path), so the host part
  of a pair only appears in messages.

A root mom never touches these paths itself: :func:`run_as_owner` runs :func:`perform` in a
``python -S -m fake_pbs.mom.staging`` child with the owner's uid, gid and groups, so a user
can stage only what the user could copy by hand.  A mom that already is the owner runs it in
process.
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple

from fake_pbs.hooks import runas
from fake_pbs.model import ecl
from fake_pbs.mom.delivery import CP, TRIES, pause_after
from fake_pbs.mom.momlog import EV_ADMIN, EV_DEBUG, EV_ERROR

WORK_TIMEOUT = 600.0  # bound on one stage request (four tries of each file, with pauses)


class Pair(NamedTuple):
    """One ``local@host:remote`` item of a stagein/stageout list."""

    local: str
    host: str
    remote: str


def stage_pairs(value: Optional[str]) -> List[Pair]:
    """The pairs of a stored stagein/stageout value (job_func.c cpy_stage splits each at its
    first ``@``; ``\\,`` is a comma of the name: stage_func.c replace)."""
    pairs: List[Pair] = []
    for item in [i.strip() for i in ecl.stage_items(value or "") if i.strip()]:
        local, _, rest = item.partition("@")
        host, _, remote = rest.partition(":")
        pairs.append(Pair(local.replace("\\,", ","), host, remote.replace("\\,", ",")))
    return pairs


ARRAY_INDEX_TAG = "^array_index^"  # job.h PBS_FILE_ARRAY_INDEX_TAG


def for_subjob(pairs: List[Pair], jobid: str) -> List[Pair]:
    """A subjob's pairs with its index in place of the first ``^array_index^`` of each path
    (array_func.c subst_array_index, applied by setup_cpyfiles to both names)."""
    head, bracket, rest = jobid.partition("[")
    index = rest.split("]", 1)[0]
    if not bracket or not index.isdigit():
        return pairs
    return [Pair(p.local.replace(ARRAY_INDEX_TAG, index, 1), p.host,
                 p.remote.replace(ARRAY_INDEX_TAG, index, 1)) for p in pairs]


def pbs_glob(name: str, pattern: str) -> bool:
    """stage_func.c pbs_glob: ``*`` any run, ``?`` one character, anything else itself."""
    if not pattern:
        return not name
    head = pattern[0]
    if head == "*":
        rest = pattern.lstrip("*")
        return any(pbs_glob(name[i:], rest) for i in range(len(name) + 1))
    if not name:
        return False
    if head == "?" or head == name[0]:
        return pbs_glob(name[1:], pattern[1:])
    return False


def _dash_safe(path: str) -> str:
    """sys_copy prefixes a path starting with ``-`` with ``./``, so cp reads it as a name."""
    return "./" + path if path.startswith("-") else path


class _Work:
    """One copy request, done in the owner's identity; collects the mom's log lines."""

    def __init__(self, request: Mapping[str, Any]) -> None:
        self.inbound = request["direction"] == "in"
        self.jobid = str(request["jobid"])
        self.owner = str(request["owner"])
        self.sandbox = request.get("sandbox") or None
        self.pauses = bool(request.get("pauses"))
        self.cwd = str(request["cwd"]) if os.path.isdir(str(request["cwd"])) else "/"
        self.log: List[Tuple[int, str, str, str]] = []
        self.bad: List[str] = []
        self.staged_in: List[str] = []

    def note(self, mask: int, name: str, text: str, cls: str = "Fil") -> None:
        self.log.append((mask, cls, name, text))

    def at(self, path: str) -> str:
        """A request's path as the copy child sees it: relative ones from its cwd (the mom
        never changes its own, shared by its threads)."""
        return os.path.join(self.cwd, path)

    def sys_copy(self, src: str, dst: str) -> Tuple[int, str]:
        """cp with sys_copy's tries; returns (status, cp's first line of error)."""
        if not self.inbound and not os.path.lexists(self.at(src)):
            return 1, ""  # "Is the file there?  If not, don't try copy"
        if dst == "/dev/null":
            return 0, ""
        status, error = 1, ""
        for attempt in range(1, TRIES + 1):
            try:
                done = subprocess.run([CP, "-rp", _dash_safe(src), _dash_safe(dst)],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, cwd=self.cwd, timeout=120)
                status = done.returncode
                lines = done.stderr.decode("utf-8", "replace").splitlines()
                error = lines[0] if lines else ""
            except (OSError, subprocess.SubprocessError) as err:
                status, error = 1, "%s: %s" % (CP, err)
            if status == 0:
                return 0, ""
            self.note(EV_DEBUG, "sys_copy", "command: %s -rp %s %s status=%d, try=%d"
                      % (CP, src, dst, status, attempt))
            if self.pauses:
                time.sleep(pause_after(attempt))
        return status, error

    def copy_file(self, src: str, pair: Pair) -> bool:
        """stage_func.c copy_file: one copy, then the removal or the remembering it implies."""
        remote = "%s:%s" % (pair.host, pair.remote)
        if self.inbound:
            dest = pair.local
            if os.path.isdir(self.at(dest)):
                dest = os.path.join(dest, os.path.basename(src))
            status, error = self.sys_copy(src, pair.local)
        else:
            status, error = self.sys_copy(src, pair.remote)
        if status == 0:
            if self.inbound:
                self.staged_in.append(self.at(dest))
            elif not (self.sandbox and _inside(self.sandbox, self.at(src))):
                _remove_tree(self.at(src))
            return True
        self.note(EV_ERROR, "copy_file", "Job %s: sys_copy failed, return value=%d"
                  % (self.jobid, status))
        line = ("Unable to copy file %s from %s" % (dest, src) if self.inbound
                else "Unable to copy file %s to %s" % (src, remote))
        self.bad.append(line)
        self.note(EV_ADMIN, pair.local, line)
        if error:
            self.bad += [">>> error from copy", error, ">>> end error output"]
            self.note(EV_ADMIN, pair.local, error)
        return False

    def stage_file(self, pair: Pair) -> bool:
        """stage_func.c stage_file: expand a wildcard in the source's last component."""
        source = pair.remote if self.inbound else pair.local
        parent, _, last = source.rpartition("/")
        parent = parent + "/" if _ else "./"
        direction = "in" if self.inbound else "out"
        target = pair.local if self.inbound else "%s:%s" % (pair.host, pair.remote)
        if "*" not in last and "?" not in last:
            if self.copy_file(source, pair):
                return True
            kind = "no wildcards"
        else:
            try:
                names = sorted(os.listdir(self.at(parent)))
            except OSError:
                names = None
            if names is None:
                if self.copy_file(source, pair):
                    return True
                kind = "Cannot open directory"
            else:
                matched = [parent + n for n in names if not n.startswith(".") and pbs_glob(n, last)]
                failed = next((m for m in matched if not self.copy_file(m, pair)), None)
                if failed is None:
                    return True
                kind = "Pattern matched"
        self.note(EV_ERROR, "stage_file", "Job %s: %s:local stage%s failed for %s from %s to %s"
                  % (self.jobid, kind, direction, self.owner, source, target))
        if self.inbound:
            for path in self.staged_in:
                _remove_tree(path)
        return False


def _inside(directory: str, path: str) -> bool:
    """is_child_path: ``path`` (absolute) lies under ``directory``."""
    full = os.path.realpath(path)
    base = os.path.realpath(directory)
    return full == base or full.startswith(base.rstrip("/") + "/")


def _remove_tree(path: str) -> None:
    """remtree: a file or a whole directory, as the owner (this process is the owner)."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except OSError:
        pass


def perform(request: Mapping[str, Any]) -> Dict[str, Any]:
    """Do one copy request (its cwd, its pairs) in this process's identity; the result holds
    the counts, the bad list, the log lines and the files staged in."""
    if request.get("direction") == "in" and request.get("sandbox"):
        sandbox = str(request["sandbox"])
        try:
            os.mkdir(sandbox, 0o700)  # mkjobdir: the sandbox before its files
        except FileExistsError:
            pass
        except OSError as err:
            return {"done": 0, "total": 0, "bad": ["unable to create the job directory %s: %s"
                                                   % (sandbox, err.strerror)],
                    "log": [], "staged_in": []}
    work = _Work(request)
    done = total = 0
    failed = False
    for raw in request["pairs"]:
        pair = Pair(*raw)
        total += 1
        if failed:
            continue  # req_cpyfile: after a failure the rest are counted, not tried
        if work.stage_file(pair):
            done += 1
        else:
            failed = True
    if failed and work.inbound and work.sandbox:
        shutil.rmtree(str(work.sandbox), ignore_errors=True)
    return {"done": done, "total": total, "bad": work.bad, "log": work.log,
            "staged_in": work.staged_in}


def delete_staged_in(request: Mapping[str, Any]) -> Dict[str, Any]:
    """requests.c del_files: after the job, each stage-in's local file goes (under the
    sandbox it goes with the sandbox), unless it is the very file it was copied from."""
    cwd = str(request["cwd"])
    sandbox = request.get("sandbox")
    for raw in request["pairs"]:
        pair = Pair(*raw)
        local, remote = os.path.join(cwd, pair.local), os.path.join(cwd, pair.remote)
        if sandbox and _inside(str(sandbox), local):
            continue
        try:
            if os.path.samefile(local, remote):
                continue
        except OSError:
            pass
        _remove_tree(local)
    return {"done": 0, "total": 0, "bad": [], "log": [], "staged_in": []}


def run_as_owner(request: Dict[str, Any], launch: Mapping[str, Any]) -> Dict[str, Any]:
    """Run :func:`perform` (or ``request["op"] == "delete"``) as the job's owner: in a child
    that has the owner's identity when this mom is another user (root), else in process."""
    uid, gid = int(launch["uid"]), int(launch["gid"])
    if uid == os.geteuid() and gid == os.getegid():
        return _dispatch(request)
    try:
        groups = os.getgrouplist(str(launch.get("user", "")), gid)
    except (OSError, KeyError):
        groups = [gid]
    package_root = str(Path(__file__).resolve().parents[2])
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": package_root, "LANG": "C.UTF-8"}
    try:
        done = subprocess.run([runas.interpreter(sys.executable), "-S", "-m",
                               "fake_pbs.mom.staging"],
                              input=json.dumps(request).encode(), stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, timeout=WORK_TIMEOUT, cwd="/", env=env,
                              user=uid, group=gid, extra_groups=groups, umask=0o022)
        result = json.loads(done.stdout.decode() or "null")
    except (OSError, ValueError, subprocess.SubprocessError) as err:
        result = None
        reason = str(err)
    else:
        reason = "staging child ended with status %d" % done.returncode
    if not isinstance(result, dict):
        return {"done": 0, "total": len(request.get("pairs", [])),
                "bad": ["stage %s failed: %s" % (request.get("direction"), reason)],
                "log": [], "staged_in": []}
    return result


def remove_files(request: Mapping[str, Any]) -> Dict[str, Any]:
    """job_func.c's purge under ``Remove_Files``: each kept output file goes (a link is
    removed, never followed); one that is already gone is no error."""
    for path in request["paths"]:
        try:
            os.unlink(str(path))
        except FileNotFoundError:
            pass
        except OSError:
            continue
    return {"done": 0, "total": 0, "bad": [], "log": [], "staged_in": []}


def _dispatch(request: Mapping[str, Any]) -> Dict[str, Any]:
    if request.get("op") == "delete":
        return delete_staged_in(request)
    if request.get("op") == "unlink":
        return remove_files(request)
    return perform(request)


def main() -> int:
    """The owner's child: one JSON request on stdin, its result on stdout."""
    request = json.loads(sys.stdin.read())
    sys.stdout.write(json.dumps(_dispatch(request)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
