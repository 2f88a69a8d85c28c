"""resources_used values and walltime limits, in PBS's notation (pure)."""
from typing import Dict, Mapping, Optional


def hhmmss(seconds: float) -> str:
    total = max(0, int(seconds))
    return "%02d:%02d:%02d" % (total // 3600, total % 3600 // 60, total % 60)


def parse_duration(value: str) -> Optional[int]:
    """``[[HH:]MM:]SS`` or plain seconds -> seconds; None when absent or malformed."""
    if not value:
        return None
    try:
        parts = [float(p) for p in value.split(":")]
    except ValueError:
        return None
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + part
    return int(seconds)


def resources_used(attrs: Mapping[str, str], cput: float, maxrss_kb: int,
                   walltime: float) -> Dict[str, str]:
    """The ``resources_used.*`` values reported in the finish event (flat names, no prefix)."""
    percent = int(round(100.0 * cput / walltime)) if walltime >= 1 else 0
    return {
        "cpupercent": str(percent),
        "cput": hhmmss(cput),
        "mem": "%dkb" % max(0, maxrss_kb),
        "ncpus": attrs.get("Resource_List.ncpus", "1"),
        "vmem": "%dkb" % max(0, maxrss_kb),
        "walltime": hhmmss(walltime),
    }


def poll_usage(attrs: Mapping[str, str], sample: Mapping[str, int],
               walltime: float) -> Dict[str, str]:
    """The ``resources_used.*`` a resource poll's status update carries (update_jobs_status):
    the live session's sample over the walltime since the start."""
    used = resources_used(attrs, float(sample.get("cput", 0)), int(sample.get("rss_kb", 0)),
                          walltime)
    used["vmem"] = "%dkb" % max(0, int(sample.get("vmem_kb", 0)))
    return used
