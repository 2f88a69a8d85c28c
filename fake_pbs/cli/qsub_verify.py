"""Checking and normalizing qsub's attributes before submission (PBS's client-side ECL).

Errors are shown as qsub shows them (``handle_attribute_errors``): ``qsub: illegal -<opt>
value`` plus the usage (exit 2), ``qsub: Job name is too long `` (exit 2), or for ``-l``
``qsub: Illegal attribute or resource value Resource_List.<name>`` (exit 166).  Resources
qsub does not know (site resources such as ``ngpus``) go to the server unchecked, as in PBS.
"""
from __future__ import annotations

from fake_pbs import leanos
from fake_pbs.model import ecl, job_attrs, resources
from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_JOBNBIG, PBSE_NOATTR, PbsError, detail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict

# Attribute -> the option letter each command names in its error (qsub.c's and qalter.c's
# ``handle_attribute_errors``); the checks themselves are the attribute table's
# (fake_pbs/model/job_attrs.py).  A refused attribute neither lists (max_run_subjobs,
# no_stdio_sockets, ...) gets no letter: the command prints the bare error number instead.
_W_BOTH = ("depend", "stagein", "stageout", "sandbox", "umask", "run_count", "group_list")
_LETTERS: Dict[str, Dict[str, str]] = {
    "qsub": dict([
        ("Execution_Time", "a"), ("Account_Name", "A"), ("project", "P"), ("Checkpoint", "c"),
        ("Error_Path", "e"), ("Hold_Types", "h"), ("interactive", "I"), ("Join_Path", "j"),
        ("array_indices_submitted", "J"), ("Keep_Files", "k"), ("Mail_Points", "m"),
        ("Mail_Users", "M"), ("Job_Name", "N"), ("Output_Path", "o"), ("Priority", "p"),
        ("Rerunable", "r"), ("Remove_Files", "R"), ("Shell_Path_List", "S"),
        ("User_List", "u")] + [(name, "W") for name in _W_BOTH + (
            "block", "release_nodes_on_stageout", "tolerate_node_failures", "cred")]),
    "qalter": dict([
        ("Execution_Time", "a"), ("Account_Name", "A"), ("project", "P"), ("Checkpoint", "c"),
        ("Error_Path", "e"), ("Hold_Types", "h"), ("Join_Path", "j"), ("Keep_Files", "k"),
        ("Mail_Points", "m"), ("Mail_Users", "M"), ("Job_Name", "N"), ("Output_Path", "o"),
        ("Priority", "p"), ("Rerunable", "r"), ("Remove_Files", "R"),
        ("Shell_Path_List", "S"), ("User_List", "u")] + [(name, "W") for name in _W_BOTH]),
}
# Checked in this order first (the order the fake's commands always checked them in).
_FIRST = ("Checkpoint", "Hold_Types", "Join_Path", "array_indices_submitted", "Keep_Files",
          "Mail_Points", "Job_Name", "Priority", "Rerunable", "depend", "sandbox", "umask")
# Paths are prepared (and checked) with the submit host below, not by the table's check.
_PATHS = ("Output_Path", "Error_Path")

#: PBS's qsub when the ECL finds no such job attribute: ``pbs_geterrmsg`` has no text for a
#: client-side error, so qsub prints the number (exit 15002 % 256).
UNDEFINED = "%s: Error (%d) submitting job"


class VerifyError(Exception):
    """A value PBS's ECL refuses: ``message`` for stderr, ``code`` for the exit, ``usage``."""

    def __init__(self, message: str, code: int, usage: bool, resource: bool = False,
                 undefined: str = "", pbs_code: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.usage = usage
        self.resource = resource
        # an attribute refused without an option letter (none is defined, or its value fails
        # and the command names no option for it): qalter words ``pbs_code`` per job
        self.undefined = undefined
        self.pbs_code = pbs_code


def prepare_path(value: str, host: str, cwd: str) -> str:
    """``[host:]path`` -> ``host:/absolute/path`` (PBS's ``prepare_path``); an existing
    directory gains a trailing ``/`` (extra transcript i05y, ``-e .../outdir``)."""
    text = value.lstrip()
    given_host = ""
    head, colon, rest = text.partition(":")
    if colon and head and all(c.isalnum() or c in ".-" for c in head):
        given_host, text = head, rest
    elif colon and not text.startswith("/") and "/" not in head:
        raise PbsError(PBSE_BADATVAL)
    if not text and not given_host:
        raise PbsError(PBSE_BADATVAL)
    if not text.isprintable():
        raise PbsError(PBSE_BADATVAL)
    if text and not text.endswith("/") and leanos.isdir(text):
        text += "/"
    if not text.startswith("/") and not given_host:
        text = cwd.rstrip("/") + "/" + text
    return "%s:%s" % (given_host or host, text)


def submit_host() -> str:
    """The submit host's short name (PBS uses it in paths and Job_Owner)."""
    # os.uname() gives gethostname()'s answer without importing socket (costly at start-up).
    return leanos.uname().nodename.split(".")[0]


def verify(attrs: Dict[str, str], reslist: Dict[str, str], host: str, cwd: str,
           cmd: str = "qsub") -> None:
    """Check and normalize ``attrs`` and ``reslist`` in place; raise :class:`VerifyError`.

    ``cmd`` prefixes the messages (qalter shares these checks)."""
    for name in attrs:
        if not job_attrs.known(name):
            raise VerifyError(UNDEFINED % (cmd, PBSE_NOATTR), PBSE_NOATTR % 256, False,
                              undefined=name, pbs_code=PBSE_NOATTR)
    letters = _LETTERS.get(cmd, _LETTERS["qsub"])
    names = [n for n in _FIRST if n in attrs] + [n for n in attrs if n not in _FIRST]
    for name in names:
        if name in _PATHS or name.startswith("Resource_List."):
            continue
        try:
            attrs[name] = job_attrs.ecl_check(name, attrs[name])
        except PbsError as err:
            if err.code == PBSE_JOBNBIG:
                raise VerifyError("%s: Job %s " % (cmd, err.text), 2, False) from None
            letter = letters.get(name)
            if letter is None:
                raise VerifyError(UNDEFINED % (cmd, err.code), err.code % 256, False,
                                  undefined=name, pbs_code=err.code) from None
            raise VerifyError("%s: illegal -%s value" % (cmd, letter), 2, True) from None
    for name, letter in (("Output_Path", "o"), ("Error_Path", "e")):
        if name in attrs:
            try:
                attrs[name] = prepare_path(attrs[name], host, cwd)
            except PbsError:
                raise VerifyError("%s: illegal -%s value" % (cmd, letter), 2, True) from None
    for res, value in list(reslist.items()):
        defn = resources.lookup(res)
        if defn is None:
            continue
        if not value and cmd == "qsub":
            # a13: ``qsub -l walltime hello.sh`` is accepted (exit 0) and the job has no
            # walltime: PBS decodes an empty resource value as "not set".
            del reslist[res]
            continue
        try:
            reslist[res] = ecl.verify_resource(defn, value)
        except PbsError:
            raise VerifyError("%s: %s" % (cmd, detail(PBSE_BADATVAL, "Resource_List." + res)),
                              PBSE_BADATVAL % 256, False, True) from None
