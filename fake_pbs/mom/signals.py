"""Signal names as qsig, qdel and the server send them to the mom."""
import signal
from typing import Optional

TERMJOB = "TermJob"        # qdel: SIGTERM, then SIGKILL after kill_delay
SUSPEND = "suspend"        # qsig -s suspend: SIGSTOP the session
RESUME = "resume"          # qsig -s resume: SIGCONT the session
ADMIN_SUSPEND = "admin-suspend"  # as suspend; the server puts the vnodes in maintenance
ADMIN_RESUME = "admin-resume"


def signal_number(name: str) -> Optional[int]:
    """``SIGUSR1``, ``USR1`` or ``10`` -> 10; None for an unknown name (PBSE_UNKSIG)."""
    text = name.strip()
    if text.isdigit():
        number = int(text)
        return number if 0 < number < signal.NSIG else None
    upper = text.upper()
    if not upper.startswith("SIG"):
        upper = "SIG" + upper
    try:
        return int(signal.Signals[upper])
    except KeyError:
        return None
