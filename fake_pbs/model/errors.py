"""PBS error codes (PBSE_*) and their messages, as OpenPBS 23.06 prints them.

Every user-visible server error travels as a :class:`PbsError` carrying the real PBSE code;
commands exit with ``code % 256`` (see ``fake_pbs.cli.common``).  Messages keep PBS's exact
spelling, including the trailing spaces some of them carry.
"""
from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time: every PBS command imports this module
    from typing import Dict, Optional

PBSE_NONE = 0
PBSE_UNKJOBID = 15001
PBSE_NOATTR = 15002
PBSE_ATTRRO = 15003
PBSE_IVALREQ = 15004
PBSE_UNKREQ = 15005
PBSE_PERM = 15007
PBSE_BADHOST = 15008
PBSE_JOBEXIST = 15009
PBSE_SYSTEM = 15010
PBSE_INTERNAL = 15011
PBSE_REGROUTE = 15012
PBSE_UNKSIG = 15013
PBSE_BADATVAL = 15014
PBSE_MODATRRUN = 15015
PBSE_BADSTATE = 15016
PBSE_UNKQUE = 15018
PBSE_BADCRED = 15019
PBSE_EXPIRED = 15020
PBSE_QUNOENB = 15021
PBSE_QACESS = 15022
PBSE_BADUSER = 15023
PBSE_HOPCOUNT = 15024
PBSE_QUEEXIST = 15025
PBSE_ATTRTYPE = 15026
PBSE_OBJBUSY = 15027
PBSE_QUENBIG = 15028
PBSE_NOSUP = 15029
PBSE_QUENOEN = 15030
PBSE_PROTOCOL = 15031
PBSE_BADATLST = 15032
PBSE_NOCONNECTS = 15033
PBSE_NOSERVER = 15034
PBSE_UNKRESC = 15035
PBSE_EXCQRESC = 15036
PBSE_QUENODFLT = 15037
PBSE_NORERUN = 15038
PBSE_ROUTEREJ = 15039
PBSE_ROUTEEXPD = 15040
PBSE_MOMREJECT = 15041
PBSE_BADSCRIPT = 15042
PBSE_STAGEIN = 15043
PBSE_RESCUNAV = 15044
PBSE_BADGRP = 15045
PBSE_MAXQUED = 15046
PBSE_CKPBSY = 15047
PBSE_EXLIMIT = 15048
PBSE_BADACCT = 15049
PBSE_ALRDYEXIT = 15050
PBSE_NOCOPYFILE = 15051
PBSE_CLEANEDOUT = 15052
PBSE_NOSYNCMSTR = 15053
PBSE_BADDEPEND = 15054
PBSE_DUPLIST = 15055
PBSE_DISPROTO = 15056
PBSE_EXECTHERE = 15057
PBSE_SISREJECT = 15058
PBSE_SISCOMM = 15059
PBSE_SVRDOWN = 15060
PBSE_CKPSHORT = 15061
PBSE_UNKNODE = 15062
PBSE_UNKNODEATR = 15063
PBSE_NONODES = 15064
PBSE_NODENBIG = 15065
PBSE_NODEEXIST = 15066
PBSE_BADNDATVAL = 15067
PBSE_MUTUALEX = 15068
PBSE_GMODERR = 15069
PBSE_NORELYMOM = 15070
PBSE_NOTSNODE = 15071
PBSE_RESCNOTSTR = 15079
PBSE_RESVEXIST = 15080
PBSE_RESVFAIL = 15081
PBSE_UNKRESVID = 15084
PBSE_BADTSPEC = 15086
PBSE_RESVAUTH_H = 15092
PBSE_RESVAUTH_G = 15093
PBSE_RESVAUTH_U = 15094
PBSE_MaxArraySize = 15107
PBSE_LICENSE_MIN_BADVAL = 15118
PBSE_LICENSE_MAX_BADVAL = 15119
PBSE_LICENSE_LINGER_BADVAL = 15120
PBSE_BAD_RRULE_YEARLY = 15126
PBSE_BAD_RRULE_MONTHLY = 15127
PBSE_BAD_RRULE_WEEKLY = 15128
PBSE_BAD_RRULE_DAILY = 15129
PBSE_BAD_RRULE_HOURLY = 15130
PBSE_BAD_RRULE_MINUTELY = 15131
PBSE_BAD_RRULE_SECONDLY = 15132
PBSE_BAD_RRULE_SYNTAX = 15133
PBSE_BAD_RRULE_SYNTAX2 = 15134
PBSE_BAD_ICAL_TZ = 15135
PBSE_HOOKERROR = 15136
PBSE_HISTJOBID = 15139
PBSE_JOBHISTNOTSET = 15140
PBSE_MIXENTLIMS = 15141
PBSE_BAD_FORMULA = 15123
PBSE_BAD_FORMULA_KW = 15124
PBSE_BAD_FORMULA_TYPE = 15125
PBSE_SVR_SCHED_JSF_INCOMPAT = 15226
PBSE_ENTLIMCT = 15142  # the text is the limit's (model/entlimits.py)
PBSE_ENTLIMRESC = 15143
PBSE_HISTJOBDELETED = 15158
PBSE_FORCE_QSUB_UPDATE = 15160  # the text is the server's default_qsub_arguments
PBSE_NOHISTARRAYSUBJOB = 15159
PBSE_HOOK_REJECT = 15169
PBSE_HOOK_REJECT_RERUNJOB = 15170
PBSE_HOOK_REJECT_DELETEJOB = 15171
PBSE_JOBNBIG = 15173
PBSE_RESCBUSY = 15174
PBSE_JOBSCRIPTMAXSIZE = 15175
PBSE_BADJOBSCRIPTMAXSIZE = 15176
PBSE_WRONG_RESUME = 15177
PBSE_RESV_NOT_EMPTY = 15178
PBSE_RESV_FROM_RESVJOB = 15181
PBSE_RESV_FROM_ARRJOB = 15182
PBSE_UNKSCHED = 15213

MESSAGES: Dict[int, str] = {
    PBSE_UNKJOBID: "Unknown Job Id",
    PBSE_NOATTR: "Undefined attribute ",
    PBSE_ATTRRO: "Cannot set attribute, read only or insufficient permission ",
    PBSE_IVALREQ: "Invalid request",
    PBSE_UNKREQ: "Unknown request",
    PBSE_PERM: "Unauthorized Request ",
    PBSE_BADHOST: "Access from host not allowed, or unknown host",
    PBSE_JOBEXIST: "Job with requested ID already exists",
    PBSE_SYSTEM: "System error: ",
    PBSE_INTERNAL: "PBS server internal error",
    PBSE_UNKSIG: "Unknown/illegal signal name",
    PBSE_WRONG_RESUME: "Job can not be resumed with the requested resume signal",
    PBSE_BADATVAL: "Illegal attribute or resource value",
    PBSE_MODATRRUN: "Cannot modify attribute while job running ",
    PBSE_BADSTATE: "Request invalid for state of job",
    PBSE_UNKQUE: "Unknown queue",
    PBSE_BADCRED: "Invalid credential",
    PBSE_QUNOENB: "Queue is not enabled",
    PBSE_QACESS: "Access to queue is denied",
    PBSE_BADUSER: "Bad UID for job execution",
    PBSE_BADGRP: "Bad GID for job execution",
    PBSE_QUEEXIST: "Queue already exists",
    PBSE_ATTRTYPE: "Incompatible type",
    PBSE_OBJBUSY: "Cannot delete busy object",
    PBSE_NOSUP: "No support for requested service",
    PBSE_QUENOEN: "Cannot enable queue, incomplete definition",
    PBSE_UNKRESC: "Unknown resource",
    PBSE_EXCQRESC: "Job violates queue and/or server resource limits",
    PBSE_QUENODFLT: "No default queue specified",
    PBSE_NORERUN: "job is not rerunnable",
    PBSE_BADSCRIPT: "Bad file format or syntax",
    PBSE_RESCUNAV: "Resource temporarily unavailable",
    PBSE_MOMREJECT: "Execution server rejected request",
    PBSE_MAXQUED: "Maximum number of jobs already in queue",
    PBSE_ALRDYEXIT: "Job already exiting",
    PBSE_BADDEPEND: "Invalid Job Dependency",
    PBSE_DUPLIST: "Duplicate entry in list ",
    PBSE_SISCOMM: "Sister could not communicate",
    PBSE_SVRDOWN: "Request not allowed: Server shutting down",
    PBSE_UNKNODE: "Unknown node ",
    PBSE_NODEEXIST: "Node name already exists",
    PBSE_MaxArraySize: "Array job exceeds server or queue size limit",
    PBSE_LICENSE_MIN_BADVAL: "pbs_license_min is < 0, or > pbs_license_max",
    PBSE_LICENSE_MAX_BADVAL: "pbs_license_max is < 0, or < pbs_license_min",
    PBSE_LICENSE_LINGER_BADVAL: "pbs_license_linger_time is <= 0",
    PBSE_HOOKERROR: "hook error",
    PBSE_HISTJOBID: "Job has finished",
    PBSE_JOBHISTNOTSET: "PBS is not configured to maintain job history",
    PBSE_HISTJOBDELETED: "Job has been deleted from history",
    PBSE_MIXENTLIMS: "Cannot mix old and new style queue/run limit enforcement types",
    PBSE_BAD_FORMULA: "Invalid Formula Format",
    PBSE_BAD_FORMULA_KW: "Formula contains invalid keyword",
    PBSE_BAD_FORMULA_TYPE: "Formula contains a resource of an invalid type",
    PBSE_SVR_SCHED_JSF_INCOMPAT: "Server's job_sort_formula value is incompatible with sched's",
    PBSE_NOHISTARRAYSUBJOB: "Request invalid for finished array subjob",
    PBSE_HOOK_REJECT: "hook rejected request",
    PBSE_HOOK_REJECT_RERUNJOB: "hook rejected request, requiring job to be rerun",
    PBSE_HOOK_REJECT_DELETEJOB: "hook rejected request, requiring job to be deleted",
    PBSE_JOBNBIG: "name is too long",
    PBSE_RESCBUSY: "Resource busy",
    PBSE_JOBSCRIPTMAXSIZE: "jobscript size exceeded the jobscript_max_size",
    PBSE_BADJOBSCRIPTMAXSIZE: "jobscript max size exceeds 2GB",
    PBSE_UNKSCHED: "Unknown Scheduler",
    # reservations (pbs_messages.c)
    PBSE_RESVEXIST: "Reservation with requested ID already exists",
    PBSE_RESVFAIL: "reservation failure",
    PBSE_UNKRESVID: "Unknown Reservation Id",
    PBSE_BADTSPEC: "Bad time specification(s)",
    PBSE_RESVAUTH_H: "Host machine not authorized to submit reservations",
    PBSE_RESVAUTH_G: "Requestor's group not authorized to submit reservations",
    PBSE_RESVAUTH_U: "Requestor not authorized to make reservations",
    PBSE_BAD_RRULE_YEARLY: "YEARLY recurrence duration cannot exceed 1 year",
    PBSE_BAD_RRULE_MONTHLY: "MONTHLY recurrence duration cannot exceed 1 month",
    PBSE_BAD_RRULE_WEEKLY: "WEEKLY recurrence duration cannot exceed 1 week",
    PBSE_BAD_RRULE_DAILY: "DAILY recurrence duration cannot exceed 24 hours",
    PBSE_BAD_RRULE_HOURLY: "HOURLY recurrence duration cannot exceed 1 hour",
    PBSE_BAD_RRULE_MINUTELY: "MINUTELY recurrence duration cannot exceed 1 minute",
    PBSE_BAD_RRULE_SECONDLY: "SECONDLY recurrence duration cannot exceed 1 second",
    PBSE_BAD_RRULE_SYNTAX: "Undefined iCalendar syntax",
    PBSE_BAD_RRULE_SYNTAX2: "Undefined iCalendar syntax. A valid COUNT or UNTIL is required",
    PBSE_BAD_ICAL_TZ: "Unrecognized PBS_TZID environment variable",
    PBSE_RESV_NOT_EMPTY: "Reservation not empty",
    PBSE_RESV_FROM_RESVJOB: "Reservation may not be created from a job already within a "
                            "reservation",
    PBSE_RESV_FROM_ARRJOB: "Reservation may not be created from an array job",
}


#: Texts that are not one code's message: what a command prints around a server's reply.
UNKQUE_DESTINATION = "Unknown queue destination"  # qselect -q for an unknown queue (PBSE_UNKQUE)
RETURNED_FROM_SERVER = " returned from server"  # qmgr: ``qmgr: hook error returned from server``


def message_for(code: int) -> str:
    """Return PBS's text for ``code`` (``pbse_to_txt``), or a generic one."""
    return MESSAGES.get(code, "Error %d" % code)


def detail(code: int, subject: str, sep: str = " ") -> str:
    """``code``'s message naming what it is about, as PBS joins them: ``Unknown resource
    Resource_List.foo`` (server), ``Unknown resource: foo`` (qsub's ``sep=": "``), ``Cannot modify
    attribute while job running  Priority`` (the message's own trailing space kept)."""
    return message_for(code) + sep + subject


class PbsError(Exception):
    """A PBS error: the PBSE ``code`` and the text the server would send.

    ``text`` replaces the standard message when PBS sends a custom one (hook rejections, ECL
    messages such as ``invalid argument (x) to event...``).
    """

    def __init__(self, code: int, text: Optional[str] = None) -> None:
        self.code = code
        self.text = message_for(code) if text is None else text
        super().__init__(self.text)

    @property
    def exit_code(self) -> int:
        """The exit status a PBS command uses for this error (``pbs_errno % 256``)."""
        return self.code % 256

    def to_wire(self) -> Dict[str, object]:
        return {"ok": False, "code": self.code, "msg": self.text}
