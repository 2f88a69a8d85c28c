"""Job identifiers: ``12``, ``12.vm``, ``12.vm.example.com``, ``12[]``, ``12[3].vm``: canonical."""
import re
from typing import Optional, Tuple

_ID = re.compile(r"^(?P<seq>\d+)(?P<index>\[\d*\])?(?:\.(?P<server>.*))?$")


def normalize(text: str, server_name: str, any_server: bool = False) -> Optional[str]:
    """``<seq>[<index>].<server_name>``, or None when ``text`` is not a job id of this server
    (not an id at all, or another server's suffix: never taken for one of ours).

    ``any_server`` keeps the suffix out of it (dependency lists, whose other-server entries the
    fake does not model)."""
    match = _ID.match(text.strip())
    if match is None:
        return None
    suffix = (match.group("server") or "").split("@", 1)[0].lower()
    own = server_name.lower()
    if suffix and suffix != own and not suffix.startswith(own + ".") and not any_server:
        return None
    return "%s%s.%s" % (match.group("seq"), match.group("index") or "", server_name)


def split(jobid: str) -> Tuple[int, Optional[str]]:
    """(sequence number, array index text or None) of a canonical id."""
    match = _ID.match(jobid)
    if match is None:
        return -1, None
    index = match.group("index")
    return int(match.group("seq")), (index[1:-1] if index else None)


def make(seq: int, server_name: str, array: bool = False, index: Optional[int] = None) -> str:
    if index is not None:
        return "%d[%d].%s" % (seq, index, server_name)
    return "%d%s.%s" % (seq, "[]" if array else "", server_name)


def parent_of(jobid: str) -> Optional[str]:
    """``12[3].vm`` -> ``12[].vm``; None for other ids."""
    seq, index = split(jobid)
    if index:
        return "%d[].%s" % (seq, jobid.split(".", 1)[1])
    return None


def index_of(jobid: str) -> Optional[int]:
    """``12[3].vm`` -> 3; None for other ids."""
    index = split(jobid)[1]
    return int(index) if index else None


#: ``12[3-5].vm``, ``12[0-10:2]``: a range of an array's subjobs (qdel, qsig, qstat).
SUBJOB_RANGE = re.compile(r"^(\d+)\[(\d+)-(\d+)(?::(\d+))?\](?:\.(.*))?$")
