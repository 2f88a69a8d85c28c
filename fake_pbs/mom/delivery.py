"""Output delivery (stage-out): copy the spooled stdout/stderr to their final paths as the owner.

PBS's mom copies with ``/bin/cp`` as the job owner; so does the fake (a subprocess with the
owner's uid/gid and the job's umask, which is fork-safe in the threaded mom) when that identity
differs from the mom's; otherwise it copies in-process with ``cp``'s file-mode rules.

A copy that fails is tried again as PBS's ``sys_copy`` does (stage_func.c): four tries, each
failure logged (``command: /bin/cp -rp SRC DST status=1, try=N``), with a pause after the
second and the fourth (11 s and 21 s: ``sleep(loop / 2 * 10 + 1)``; the job stays in E the ~32
s, extra case i05g).  Then the spool file is moved into the host's ``undelivered/`` directory
(still the owner's: i05v), the mom logs PBS's report (``Job files not copied``, cp's error,
``Output retained on that host in``) and the stage-out is reported failed (Stageout_status = 0,
i05w).  The pauses are the pace's (fake_pbs/pace.py): none under ``fast``.
"""
import os
import shutil
import subprocess
from pathlib import Path
from typing import (Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence,
                    Tuple)

from fake_pbs.mom.streams import Stream

CP = "/bin/cp"
SH = "/bin/sh"
RM = "/bin/rm"
TRIES = 4  # sys_copy's loop


def pause_after(attempt: int) -> float:
    """sys_copy's sleep after a failed try: none after odd tries, else ``try / 2 * 10 + 1``."""
    return 0.0 if attempt % 2 else float(attempt // 2 * 10 + 1)


class Copied(NamedTuple):
    """One copy's outcome: cp's exit status and the first line of what it printed."""

    status: int
    error: str


def copy_file(src: str, dst: str, launch: Mapping[str, Any], as_owner: bool) -> Copied:
    """Copy ``src`` to ``dst``; with ``as_owner`` under the job owner's identity."""
    if _same_identity(launch, as_owner) and not os.path.isdir(dst):
        return _copy_here(src, dst, int(launch.get("umask", 0o077)))
    extra: Dict[str, Any] = {}
    if as_owner:
        extra = {"user": int(launch["uid"]), "group": int(launch["gid"]), "extra_groups": []}
    try:
        done = subprocess.run([CP, "--", src, dst], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              umask=int(launch.get("umask", 0o077)), timeout=60, **extra)
    except (OSError, subprocess.SubprocessError) as err:
        return Copied(1, "%s: %s" % (CP, err))
    lines = done.stderr.decode("utf-8", "replace").splitlines()
    return Copied(done.returncode, lines[0] if lines else "")


def copy_as(src: str, dst: str, launch: Mapping[str, Any], as_owner: bool) -> bool:
    """:func:`copy_file`, True when it worked."""
    return copy_file(src, dst, launch, as_owner).status == 0


def _same_identity(launch: Mapping[str, Any], as_owner: bool) -> bool:
    """True when ``cp`` would run with the mom's own identity, so the mom can copy itself.

    Two process starts per job were a third of a busy mom's time (docs/performance.md,
    hotspot 2); only a root mom must still drop to the owner's identity through ``cp``.
    """
    if not as_owner:
        return True
    return int(launch["uid"]) == os.geteuid() and int(launch["gid"]) == os.getegid()


def _copy_here(src: str, dst: str, umask: int) -> Copied:
    """What ``cp -- src dst`` does for a regular file: an existing ``dst`` is truncated and keeps
    its mode; a new one gets ``src``'s permission bits less ``umask``.  A failure reads as cp's
    message (coreutils' wording)."""
    try:
        mode = os.stat(src).st_mode & 0o777 & ~umask
        fd_in = os.open(src, os.O_RDONLY)
    except OSError as err:
        return Copied(1, "%s: cannot stat '%s': %s" % (CP, src, os.strerror(err.errno or 0)))
    try:
        try:
            fd_out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        except OSError as err:
            return Copied(1, "%s: cannot create regular file '%s': %s"
                          % (CP, dst, os.strerror(err.errno or 0)))
        try:
            try:
                while True:
                    block = os.read(fd_in, 1 << 20)
                    if not block:
                        break
                    view = memoryview(block)
                    while view:
                        view = view[os.write(fd_out, view):]
            finally:
                os.close(fd_out)
        except OSError as err:
            return Copied(1, "%s: error writing '%s': %s" % (CP, dst, os.strerror(err.errno or 0)))
    finally:
        os.close(fd_in)
    return Copied(0, "")


def append_as_owner(path: str, spools: Sequence[str], launch: Mapping[str, Any],
                    data: bytes) -> bool:
    """Append ``data`` (the walltime message) to one of the job's stream files.

    A spool file (one of ``spools``, the fixed names in the root-owned job directory) is
    written in place, never through a link; any other path (``-k``, sandbox, even one that
    names another file of the job directory) is written by ``sh`` running as the owner when the
    mom is root: a root mom never opens a user-chosen path on the owner's behalf."""
    spooled = path in spools
    if spooled or _same_identity(launch, bool(launch.get("drop_privileges"))):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | (os.O_NOFOLLOW if spooled else 0))
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except OSError:
            return False
        return True
    try:
        done = subprocess.run([SH, "-c", 'exec cat >> "$1"', "sh", path], input=data,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
                              user=int(launch["uid"]), group=int(launch["gid"]),
                              extra_groups=[])
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def remove_as_owner(path: str, launch: Mapping[str, Any]) -> None:
    """Remove the job's sandbox (``-W sandbox=PRIVATE``) with the owner's identity, as PBS's
    ``rmjobdir`` does (stage_func.c: impersonate_user, then ``rm -rf``): it lies in the owner's
    space, so a root mom would delete whatever the owner put or linked there."""
    if _same_identity(launch, bool(launch.get("drop_privileges"))):
        shutil.rmtree(path, ignore_errors=True)
        return
    try:
        subprocess.run([RM, "-rf", "--", path], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
                       user=int(launch["uid"]), group=int(launch["gid"]), extra_groups=[])
    except (OSError, subprocess.SubprocessError):
        pass


class Report:
    """Where a stage-out's failures are written: the mom log, as PBS's mom words them."""

    def __init__(self, log: Any, jobid: str, owner: str, host: str) -> None:
        self.log = log
        self.jobid = jobid
        self.owner = owner
        self.host = host
        self.failed: List[Tuple[str, str, str, Optional[str]]] = []  # (src, dst, error, kept)

    def attempt(self, src: str, dst: str, status: int, attempt: int) -> None:
        self.log.write(0x0080, "Fil", "sys_copy", "command: %s -rp %s %s status=%d, try=%d"
                       % (CP, src, dst, status, attempt))

    def rename_failed(self, src: str, dst: str, errno: int) -> None:
        """log_err's line for stage_func.c's failed move into undelivered."""
        self.log.write(0x0001, "Svr", "pbs_mom", "%s (%d) in req_cpyfile, Unable to rename %s "
                       "to %s" % (os.strerror(errno), errno, src, dst))

    def gave_up(self, src: str, dst: str, copied: Copied, kept: Optional[str]) -> None:
        name = os.path.basename(src)
        remote = "%s:%s" % (self.host, dst)
        self.log.write(0x0001, "Fil", "copy_file", "Job %s: sys_copy failed, return value=%d"
                       % (self.jobid, copied.status))
        self.log.write(0x0004, "Fil", name, "Unable to copy file %s to %s" % (src, remote))
        self.log.write(0x0004, "Fil", name, copied.error)
        self.log.write(0x0001, "Fil", "stage_file",
                       "Job %s: no wildcards:local stageout failed for %s from %s to %s"
                       % (self.jobid, self.owner, src, remote))
        self.failed.append((src, remote, copied.error, kept))

    def summary(self, more: Sequence[str] = ()) -> None:
        """The job's ``Job files not copied`` block (after every stream was tried), with the
        bad list of the stage-out files (``more``) after the streams'."""
        if not self.failed and not more:
            return
        lines = ["Job files not copied:---->>>>"]
        for src, remote, error, kept in self.failed:
            lines += ["Unable to copy file %s to %s" % (src, remote), ">>> error from copy",
                      error, ">>> end error output"]
            if kept is not None:
                lines.append("Output retained on that host in: %s" % kept)
        lines += list(more)
        lines.append("---->>>>")
        for line in lines:
            self.log.job(self.jobid, line, 0x0100)


def keep_undelivered(spool: str, undelivered: Path, report: Optional["Report"]) -> Optional[str]:
    """Move a spool file that could not be delivered into ``undelivered``; its new path, or None
    when the move failed (logged as PBS's ``Unable to rename``).

    PBS renames the file (stage_func.c, from_spool): it stays the owner's, mode and all, so the
    owner can fetch it from the world-writable, sticky directory.  A rename never follows a link
    someone planted under the target name there, and replaces whatever file was in the way."""
    kept = str(undelivered / os.path.basename(spool))
    try:
        undelivered.mkdir(parents=True, exist_ok=True)
        os.replace(spool, kept)
    except OSError as err:
        if report is not None:
            report.rename_failed(spool, kept, err.errno or 0)
        return None
    return kept


def deliver(streams: List[Stream], launch: Mapping[str, Any], undelivered: Path,
            as_owner: bool, report: Optional[Report] = None,
            pause: Callable[[float], None] = lambda seconds: None,
            summarize: bool = True) -> Tuple[int, int]:
    """Deliver each stream that has a destination; return (delivered, attempted).

    A failed copy is tried :data:`TRIES` times with sys_copy's pauses (``pause`` sleeps them;
    the pace decides), then kept under ``undelivered``."""
    done = attempted = 0
    for stream in streams:
        if stream.deliver_to is None or not os.path.exists(stream.write_to):
            continue
        attempted += 1
        copied = Copied(1, "")
        for attempt in range(1, TRIES + 1):
            copied = copy_file(stream.write_to, stream.deliver_to, launch, as_owner)
            if copied.status == 0:
                break
            if report is not None:
                report.attempt(stream.write_to, stream.deliver_to, copied.status, attempt)
            pause(pause_after(attempt))
        if copied.status == 0:
            done += 1
            continue
        kept = keep_undelivered(stream.write_to, undelivered, report)
        if report is not None:
            report.gave_up(stream.write_to, stream.deliver_to, copied, kept)
    if report is not None and summarize:
        report.summary()
    return done, attempted
