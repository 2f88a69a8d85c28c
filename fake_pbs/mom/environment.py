"""The job's environment and node file, as a PBS mom builds them (extra README i01, i02, i04).

Pure functions of the start message's job object and the host's paths: no I/O here.
"""
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from fake_pbs import paths

_BIN_DIR: List[str] = []


def _bin_dir() -> str:
    """``fake_pbs/bin``, resolved once: realpath costs a few syscalls per path component."""
    if not _BIN_DIR:
        _BIN_DIR.append(str(paths.bin_dir()))
    return _BIN_DIR[0]


# The mom's port as PBS reports it (PBS_MOMPORT); the fake has no ports but keeps the value.
MOM_PORT = "15003"
# login(1)'s default PATH for ordinary users and for root (Debian /etc/login.defs ENV_PATH/SUPATH).
LOGIN_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/games:/usr/games"
LOGIN_SUPATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_ARRAY_SUBJOB = re.compile(r"^(\d+)\[(\d+)\](.*)$")


def parse_variable_list(value: str) -> List[Tuple[str, str]]:
    """Split ``Variable_List`` (``A=1,B=x\\,y``) into pairs, decoded as the mom decodes it.

    PBS's ``decode_arst_bs`` (parse_comma_string_bs): a backslash before ``"`` ``'`` ``,`` or
    another backslash is dropped, any other backslash is kept; an unescaped comma ends an entry,
    whose leading and trailing white space is stripped.  qsub escaped the values on the way in,
    so the job sees them as the user had them (``{"a": 1}`` arrives as ``{"a": 1}``).
    """
    if "\\" not in value:  # nothing escaped (the usual case): every comma ends an entry
        return [pair for pair in map(_split_pair, value.split(",")) if pair[0]]
    # By runs of plain characters rather than one character at a time: a psij job's -V list
    # is a few KB, which cost the mom ~0.1 ms a job character by character.
    pairs: List[Tuple[str, str]] = []
    item: List[str] = []
    for match in _TOKEN.finditer(value):
        token = match.group()
        if token == ",":
            pairs.append(_split_pair("".join(item)))
            item = []
        elif token[0] == "\\":
            nxt = match.group(1)
            item.append(nxt if not nxt or nxt in _ESCAPED else token)
        else:
            item.append(token)
    if item:
        pairs.append(_split_pair("".join(item)))
    return [pair for pair in pairs if pair[0]]


# The characters qsub and the server escape in Variable_List (copy_env_value, encode_arst_bs).
_ESCAPED = frozenset("\"',\\")
# A run of plain characters, a comma, or a backslash with the character it escapes (if any).
_TOKEN = re.compile(r"[^\\,]+|,|\\(.?)", re.S)
_SPACE = " \t\n\v\f\r"  # C's isspace()


def _split_pair(text: str) -> Tuple[str, str]:
    name, _, val = text.strip(_SPACE).partition("=")
    return name, val


def nodefile_lines(hosts: Sequence[Mapping[str, Any]]) -> List[str]:
    """One line per MPI process, chunk by chunk (PBS_NODEFILE)."""
    lines: List[str] = []
    for chunk in hosts:
        count = int(chunk.get("mpiprocs", 1 if int(chunk.get("ncpus", 1)) > 0 else 0))
        lines.extend([str(chunk["host"])] * count)
    return lines


def array_ids(jobid: str) -> Optional[Tuple[str, str]]:
    """(PBS_ARRAY_ID, PBS_ARRAY_INDEX) for a subjob id ``12[3].vm``, else None."""
    match = _ARRAY_SUBJOB.match(jobid)
    if not match:
        return None
    return "%s[]%s" % (match.group(1), match.group(3)), match.group(2)


def login_path(uid: int) -> str:
    return LOGIN_SUPATH if uid == 0 else LOGIN_PATH


def job_environment(job: Mapping[str, Any], shell: str, nodefile: str, tmpdir: str,
                    cookie: str, home_dir: str, cluster_home: str) -> Dict[str, str]:
    """The complete environment of the job shell.

    PATH is the login PATH with ``fake_pbs/bin`` put FIRST (real PBS appends /opt/pbs/bin; first
    here so that ``qsub`` inside a job reaches this fake cluster even where a real PBS is
    installed), and ``FAKE_PBS_HOME`` names the cluster: both are intended differences.
    """
    attrs: Mapping[str, str] = job.get("attrs", {})
    hosts: List[Mapping[str, Any]] = list(job.get("hosts") or [])
    first = hosts[0] if hosts else {}
    ncpus = str(first.get("ncpus", attrs.get("Resource_List.ncpus", "1")))
    threads = str(first.get("ompthreads") or ncpus)
    user = str(job.get("user", ""))
    env: Dict[str, str] = {}
    for name, val in parse_variable_list(attrs.get("Variable_List", "")):
        env[name] = val
    env.update({
        "ENVIRONMENT": "BATCH",
        "HOME": home_dir,
        "LOGNAME": user,
        "USER": user,
        "SHELL": shell,
        "NCPUS": ncpus,
        "OMP_NUM_THREADS": threads,
        "PATH": "%s:%s" % (_bin_dir(), login_path(int(job.get("uid", 0)))),
        "PBS_ENVIRONMENT": "PBS_BATCH",
        "PBS_JOBCOOKIE": cookie,
        "PBS_JOBDIR": home_dir,
        "PBS_JOBID": str(job["id"]),
        "PBS_JOBNAME": attrs.get("Job_Name", ""),
        "PBS_MOMPORT": MOM_PORT,
        "PBS_NODEFILE": nodefile,
        "PBS_NODENUM": "0",
        "PBS_QUEUE": attrs.get("queue", ""),
        "PBS_TASKNUM": "1",
        "TMPDIR": tmpdir,
        "FAKE_PBS_HOME": cluster_home,
    })
    array = array_ids(str(job["id"]))
    if array is not None:
        env["PBS_ARRAY_ID"], env["PBS_ARRAY_INDEX"] = array
    return env
