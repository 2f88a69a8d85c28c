"""Put a launch record's ``limits`` (fake_pbs/mom/limits.py) on the calling process, as PBS's
mom_set_limits does in the job's child before the exec (mom_mach.c): soft and hard limit alike,
then the nice increment.  Run by the shepherd's child while it is still root, as PBS's is:
lowering a limit needs no privilege, a negative nice does.  Standard library only (shepherd).
"""
from __future__ import annotations

import os
import resource

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Optional

_RLIMITS = (("fsize", "file", resource.RLIMIT_FSIZE), ("as", "RLIMIT_AS", resource.RLIMIT_AS),
            ("rss", "RLIMIT_RSS", resource.RLIMIT_RSS), ("cpu", "RLIMIT_CPU", resource.RLIMIT_CPU))

# pbs_messages.c msg_momsetlim: the job's stderr line when a limit cannot be set.
SETLIM_FAILED = "Job start failed."
SETLIM_MESSAGE = SETLIM_FAILED + '  Can\'t set "%s" limit: %s.\n'


def apply(limits: Dict[str, int]) -> Optional[str]:
    """Set ``limits``; None, or the stderr line PBS writes for the first that failed."""
    if "nice" in limits:  # mom_set_limits meets nice before the rlimits (resource order)
        try:
            os.nice(int(limits["nice"]))
        except OSError:
            return SETLIM_MESSAGE % ("nice", "Illegal attribute or resource value")
    for key, name, which in _RLIMITS:
        if key not in limits:
            continue
        value = int(limits[key])
        try:
            resource.setrlimit(which, (value, value))
        except (OSError, ValueError) as exc:
            return SETLIM_MESSAGE % (name, "System error: %s" % (
                getattr(exc, "strerror", None) or exc))
    return None
