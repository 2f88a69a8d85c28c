"""The task manager's error codes (src/include/tm_.h) and the words get_ecname gives them
(src/lib/Libifl/tm.c): what pbsdsh, pbs_tmrsh and pbs_attach print, and the ``tm_error`` of
the server's and the mom's tm_attach answers."""

TM_ESYSTEM = 17000
TM_ENOTCONNECTED = 17002
TM_EBADENVIRONMENT = 17005
TM_ENOTFOUND = 17006
TM_ESESSION = 17008
TM_EUSER = 17009
TM_EOWNER = 17010
TM_ENOPROC = 17011
TM_EHOOK = 17012

_TEXTS = {TM_ESYSTEM: "system error - MOM cannot be contacted",
          TM_ENOTCONNECTED: "not connected", 17003: "unknown command",
          17004: "not implemented/supported", TM_EBADENVIRONMENT: "bad environment",
          TM_ENOTFOUND: "no matching job found", TM_ESESSION: "session is already attached",
          TM_EUSER: "user not permitted to attach", TM_EOWNER: "process owner does not match job",
          TM_ENOPROC: "process does not exist",
          TM_EHOOK: "a hook has rejected the task manager request"}


def ecname(code: int) -> str:
    """get_ecname: the code's text and the code, ``no matching job found (17006)``."""
    return "%s (%d)" % (_TEXTS.get(code, "unknown"), code)
