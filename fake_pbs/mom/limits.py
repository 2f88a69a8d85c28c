"""The limits PBS's mom puts on a job's processes, and those it polls (pure).

Set at each process start (OpenPBS mom_mach.c ``mom_set_limits``): ``cput``/``pcput`` (the
lesser) -> RLIMIT_CPU, ``pvmem`` or this host's share of ``vmem`` (the lesser) -> RLIMIT_AS,
``pmem`` or this host's ``mem`` -> RLIMIT_RSS, ``file`` -> RLIMIT_FSIZE, ``nice`` -> nice().
Polled with the walltime (mom_main.c ``mom_over_limit``): the job's live ``vmem`` over this
host's share, and (on the primary) its ``cput`` over the request; a job over one is killed
with ``=>> PBS: job killed: <reason>`` on its stderr and the reason's Exit_status (job.h).
``mem`` is polled only with the mom's ``$enforce mem``, which the fake has no config for: as
PBS's default, it is not.
"""
from typing import Dict, Mapping, Optional, Tuple

from fake_pbs.model.nodes import parse_exec_vnode
from fake_pbs.model.select import parse_size
from fake_pbs.mom.usage import parse_duration

# job.h JOB_EXEC_KILL_*: the Exit_status of a job killed over a polled limit.
JOB_EXEC_KILL_VMEM = -26
JOB_EXEC_KILL_CPUT = -28
KILL_STATUS = {"vmem": JOB_EXEC_KILL_VMEM, "cput": JOB_EXEC_KILL_CPUT}

_PREFIX = "Resource_List."


def _size(attrs: Mapping[str, str], name: str) -> int:
    try:
        return parse_size(attrs.get(_PREFIX + name, "")).to_bytes()
    except ValueError:
        return 0


def host_share(exec_vnode: str, host: str, name: str) -> int:
    """Bytes of size resource ``name`` the job's chunks on ``host`` were given (the mom's
    ``hn_nrlimit``); 0 when none of them names it."""
    total = 0
    for chunk in parse_exec_vnode(exec_vnode):
        if chunk.get("vnode", "").split("[", 1)[0] != host or not chunk.get(name):
            continue
        try:
            total += parse_size(chunk[name]).to_bytes()
        except ValueError:
            continue
    return total


def _lesser(*values: int) -> int:
    given = [v for v in values if v > 0]
    return min(given) if given else 0


def process_limits(attrs: Mapping[str, str], exec_vnode: str, host: str) -> Dict[str, int]:
    """What ``mom_set_limits`` sets on each of the job's processes on ``host``: {"cpu": s,
    "as": bytes, "rss": bytes, "fsize": bytes, "nice": n}, the ones the job asks for only."""
    limits: Dict[str, int] = {}
    cpu = _lesser(parse_duration(attrs.get(_PREFIX + "cput", "")) or 0,
                  parse_duration(attrs.get(_PREFIX + "pcput", "")) or 0)
    space = _lesser(host_share(exec_vnode, host, "vmem"), _size(attrs, "pvmem"))
    resident = _lesser(host_share(exec_vnode, host, "mem"), _size(attrs, "pmem"))
    for key, value in (("cpu", cpu), ("as", space), ("rss", resident)):
        if value:
            limits[key] = value
    if attrs.get(_PREFIX + "file"):
        limits["fsize"] = _size(attrs, "file")
    nice = attrs.get(_PREFIX + "nice", "")
    if nice.lstrip("+-").isdigit():
        limits["nice"] = int(nice)
    return limits


def over_limit(attrs: Mapping[str, str], exec_vnode: str, host: str, primary: bool,
               sample: Mapping[str, int]) -> Optional[Tuple[str, str]]:
    """``mom_over_limit``'s verdict on a live sample (session_usage): (reason, message) of the
    first limit passed, vmem before cput, else None."""
    vmem = host_share(exec_vnode, host, "vmem")
    used_vmem = int(sample.get("vmem_kb", 0)) * 1024
    if vmem and used_vmem > vmem:
        return "vmem", "vmem %dkb exceeded limit %dkb" % (used_vmem // 1024, vmem // 1024)
    cput = parse_duration(attrs.get(_PREFIX + "cput", ""))
    used_cput = int(sample.get("cput", 0))
    if primary and cput is not None and used_cput > cput:
        return "cput", "cput %d exceeded limit %d" % (used_cput, cput)
    return None


def polled(attrs: Mapping[str, str], exec_vnode: str) -> bool:
    """Whether the job has a polled limit besides walltime: cput, or vmem on some host."""
    return bool(attrs.get(_PREFIX + "cput")) or "vmem=" in exec_vnode
