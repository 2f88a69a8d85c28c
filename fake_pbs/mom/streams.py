"""Where a job's stdout and stderr go: spool files, kept files, joined streams, final paths.

Rules (extra README i05): ``-j oe`` sends stderr into stdout's file and only stdout is delivered,
``-j eo`` the reverse; ``-k o|e`` writes that stream in the owner's home under the name the final
path would have, and nothing is delivered for it; ``-k d`` writes straight to the final path; a path
ending in ``/`` is a directory that receives ``<jobid>.OU`` / ``<jobid>.ER``; the ``host:`` prefix
of Output_Path/Error_Path is dropped (every fake host shares this machine's file system).
"""
import os
from typing import Dict, List, Mapping, NamedTuple, Optional

from fake_pbs.mom.layout import JobLayout


class Stream(NamedTuple):
    """One of the job's two streams."""

    key: str                 # "o" or "e"
    write_to: str            # the file the job writes (spool, kept or final)
    deliver_to: Optional[str]  # where write_to is copied at the end, or None
    merged: bool             # True when this stream is joined into the other one's file


def strip_host(path: str) -> str:
    """``vm:/home/u/x.o1`` -> ``/home/u/x.o1`` (a ``:`` after a ``/`` is part of the path)."""
    head, sep, tail = path.partition(":")
    if sep and "/" not in head:
        return tail
    return path


def final_path(attr_value: str, jobid: str, suffix: str, home_dir: str) -> str:
    path = strip_host(attr_value) if attr_value else ""
    if not path:
        return os.path.join(home_dir, jobid + suffix)
    if path.endswith("/"):
        path = path + jobid + suffix
    return path if os.path.isabs(path) else os.path.join(home_dir, path)


def job_streams(attrs: Mapping[str, str], layout: JobLayout, home_dir: str) -> Dict[str, Stream]:
    """The stdout ("o") and stderr ("e") streams of the job."""
    join = attrs.get("Join_Path", "n")
    keep = attrs.get("Keep_Files", "n")
    finals = {"o": final_path(attrs.get("Output_Path", ""), layout.jobid, ".OU", home_dir),
              "e": final_path(attrs.get("Error_Path", ""), layout.jobid, ".ER", home_dir)}
    spools = {"o": str(layout.stdout_spool), "e": str(layout.stderr_spool)}
    owner = {"o": "e" if join == "eo" else "o", "e": "o" if join == "oe" else "e"}
    own: Dict[str, Stream] = {}
    for key in ("o", "e"):
        if owner[key] != key:
            continue
        if "d" in keep:
            own[key] = Stream(key, finals[key], None, False)
        elif key in keep:
            kept = os.path.join(home_dir, os.path.basename(finals[key]))
            own[key] = Stream(key, kept, None, False)
        else:
            own[key] = Stream(key, spools[key], finals[key], False)
    result: Dict[str, Stream] = dict(own)
    for key in ("o", "e"):
        if key not in own:
            result[key] = own[owner[key]]._replace(key=key, merged=True)
    return result


def deliveries(streams: Mapping[str, Stream]) -> List[Stream]:
    """The streams that need a copy at the end, each once."""
    return [s for s in streams.values() if not s.merged and s.deliver_to is not None]
