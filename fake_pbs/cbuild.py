"""Compile a small C program or library into a cluster's home, once per source and compiler.

Used by the command runner's client (fake_pbs/runner/build.py) and the mom's host-name library
(fake_pbs/mom/hostnames.py).  The result is cached by a digest the caller computes (source,
compiler, settings) in ``<home>/<name>.sha256``, written under a temporary name and renamed into
place (no process ever sees half a file), mode 0755.
"""
import os
import subprocess
from pathlib import Path
from typing import List, Sequence, Tuple

BUILD_SECONDS = 60.0
OUTPUT = "{output}"  # stands for the temporary output file in a compiler command


def build(home: Path, name: str, digest: str,
          attempts: Sequence[Sequence[str]]) -> Tuple[bool, str]:
    """``<home>/<name>`` built by the first of ``attempts`` (compiler commands, ``OUTPUT`` for
    the output file) that succeeds, unless the one of ``digest`` is there: (done, why not)."""
    target, stamp = home / name, home / (name + ".sha256")
    try:
        if (stamp.read_text(encoding="ascii").strip() == digest and target.is_file()
                and not target.is_symlink()):
            return True, ""
    except OSError:
        pass
    tmp = home / (".%s.%d.tmp" % (name, os.getpid()))
    why = "no compiler command"
    try:
        for attempt in attempts:
            done = subprocess.run([str(tmp) if word == OUTPUT else word for word in attempt],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, timeout=BUILD_SECONDS, cwd=str(home))
            if done.returncode == 0:
                break
            lines: List[str] = done.stderr.decode(errors="replace").strip().splitlines()
            why = lines[-1] if lines else "exit %d" % done.returncode
        else:
            remove(tmp, target, stamp)
            return False, why
        os.chmod(str(tmp), 0o755)
        os.replace(str(tmp), str(target))
        stamp_tmp = home / (".%s.sha256.%d.tmp" % (name, os.getpid()))
        stamp_tmp.write_text(digest + "\n", encoding="ascii")
        os.replace(str(stamp_tmp), str(stamp))
        return True, ""
    except (OSError, subprocess.SubprocessError) as exc:
        remove(tmp)
        return False, str(exc)


def remove(*files: Path) -> None:
    for path in files:
        try:
            path.unlink()
        except OSError:
            pass
