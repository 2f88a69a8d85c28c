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
    from typing import Dict, List, Tuple

# Attribute -> the option letter qsub names in its error (``handle_attribute_errors``), in the
# order checked; the checks themselves are the attribute table's (fake_pbs/model/job_attrs.py).
_LETTERS: List[Tuple[str, str]] = [
    ("Checkpoint", "c"), ("Hold_Types", "h"), ("Join_Path", "j"),
    ("array_indices_submitted", "J"), ("Keep_Files", "k"), ("Mail_Points", "m"),
    ("Job_Name", "N"), ("Priority", "p"), ("Rerunable", "r"), ("depend", "W"),
    ("sandbox", "W"), ("umask", "W"), ("max_run_subjobs", "W"),
]

#: PBS's qsub when the ECL finds no such job attribute: ``pbs_geterrmsg`` has no text for a
#: client-side error, so qsub prints the number (exit 15002 % 256).
UNDEFINED = "%s: Error (%d) submitting job"


class VerifyError(Exception):
    """A value PBS's ECL refuses: ``message`` for stderr, ``code`` for the exit, ``usage``."""

    def __init__(self, message: str, code: int, usage: bool, resource: bool = False,
                 undefined: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.usage = usage
        self.resource = resource
        self.undefined = undefined  # the attribute no job has (qalter words it per job)


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
                              undefined=name)
    for name, letter in _LETTERS:
        if name in attrs:
            try:
                attrs[name] = job_attrs.ecl_check(name, attrs[name])
            except PbsError as err:
                if err.code == PBSE_JOBNBIG:
                    raise VerifyError("%s: Job %s " % (cmd, err.text), 2, False) from None
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
