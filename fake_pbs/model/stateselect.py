"""Job selection by state, as PBS's server applies it (req_select.c select_job).

A suspended job is R inside PBS (S is its substate: SUSPEND or SCHSUSP), so a list of states
selects it by its R, except that a list starting with R leaves it out (``qstat -r`` asks for
"RS" and lists no suspended job, extra set k08h), and a list starting with S always takes it
(``qselect -s S``, k07e).  Commands (qstat's status selection) and the server (selectjob) share
this rule.  No imports: qstat loads it at start-up.
"""


def state_selected(letter: str, wanted: str) -> bool:
    """True when a job shown in state ``letter`` matches the state list ``wanted``."""
    if letter != "S":
        return bool(letter) and letter in wanted
    return ("R" in wanted and not wanted.startswith("R")) or wanted.startswith("S")
