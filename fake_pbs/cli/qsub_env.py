"""Variable_List as qsub builds it (OpenPBS 23.06 ``job_env_basic``, ``expand_varlist``,
``set_job_env``; transcripts a19*, i01c, i04*).

Order: ``PBS_O_HOME,PBS_O_LANG,PBS_O_LOGNAME,PBS_O_PATH,PBS_O_MAIL,PBS_O_SHELL[,PBS_O_TZ],
PBS_O_WORKDIR,PBS_O_SYSTEM`` (each only when the submitter has it, HOME defaulting to ``/``),
then the ``-v`` variables, then with ``-V`` the whole environment (``PBS_O_*`` excluded).  The
server appends ``PBS_O_QUEUE`` and ``PBS_O_HOST``.

Escaping is PBS's, applied twice to ``-v`` values as qsub does: commas become ``\\,``, and a
backslash not already escaping a comma is doubled on each pass (``-v BS=c\\d`` is stored as
``BS=c\\\\\\\\d``, transcript a19f).  ``-V`` works here: 23.06.06 exported nothing (upstream bug
#2602, fixed later), which the fidelity README lists as a fixed bug.
"""
from __future__ import annotations

from fake_pbs import leanos

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Mapping, Optional, Tuple

PBS_O = "PBS_O_"


class EnvError(Exception):
    """qsub: cannot send environment with the job."""


def _esc_commas(value: str) -> str:
    return value.replace(",", "\\,")


def basic(env: Mapping[str, str], cwd: str, sysname: str) -> str:
    """The PBS_O_* head of Variable_List."""
    parts = ["PBS_O_HOME=" + _esc_commas(env.get("HOME", "/"))]
    for name in ("LANG", "LOGNAME", "PATH", "MAIL", "SHELL", "TZ"):
        if name in env:
            parts.append("PBS_O_%s=%s" % (name, _esc_commas(env[name])))
    parts.append("PBS_O_WORKDIR=" + _esc_commas(cwd))
    parts.append("PBS_O_SYSTEM=" + sysname)
    return ",".join(parts)


def copy_value(value: str, quote_all: bool) -> Tuple[str, int]:
    """Escape one value the way qsub's ``copy_env_value`` does.

    Returns the escaped text and how many characters of ``value`` it consumed: an unquoted,
    unescaped comma ends the value (unless ``quote_all``).  Raises :class:`EnvError` on an
    unterminated quote.
    """
    if '"' not in value and "'" not in value and "\\" not in value and "," not in value:
        return value, len(value)  # nothing to escape or end it: most values (-V copies them all)
    out: List[str] = []
    quote = ""
    i = 0
    while i < len(value):
        char = value[i]
        if char in "\"'":
            if quote:
                if char == quote:
                    quote = ""
                else:
                    out.append("\\" + char)
            elif quote_all:
                out.append("\\" + char)
            else:
                quote = char
        elif char == "\\":
            out.append("\\" if value[i + 1:i + 2] == "," else "\\\\")
        elif char == ",":
            if quote or quote_all:
                out.append("\\,")
            elif out and out[-1].endswith("\\"):
                out.append(",")
            else:
                break
        else:
            out.append(char)
        i += 1
    if quote:
        raise EnvError()
    return "".join(out), i


def _comma_tokens(text: str) -> List[str]:
    """Split on commas outside quotes; a backslash protects the next character."""
    tokens: List[str] = []
    quote = ""
    start = i = 0
    while i < len(text):
        char = text[i]
        if char in "\"'":
            quote = "" if char == quote else (quote or char)
        elif char == "," and not quote:
            tokens.append(text[start:i])
            start = i + 1
        elif char == "\\" and i + 1 < len(text):
            i += 1
        i += 1
    if start < len(text):
        tokens.append(text[start:])
    return tokens


def expand_v(option: str, env: Mapping[str, str]) -> str:
    """``-v`` list -> ``NAME=value,...`` with names alone taken from the environment."""
    items: List[str] = []
    for token in _comma_tokens(option):
        name, sep, value = token.partition("=")
        if not sep:
            if name.startswith(PBS_O):
                continue
            if name not in env:
                raise EnvError()
            items.append(name + "=" + copy_value(env[name], True)[0])
        else:
            items.append(name + "=" + copy_value(value, False)[0])
    return ",".join(items)


def _v_entries(v_value: str, env: Mapping[str, str]) -> str:
    """Second pass over the expanded ``-v`` list (qsub's ``set_job_env`` state machine)."""
    out: List[str] = []
    i = 0
    while i < len(v_value):
        if v_value[i] in ",=":
            raise EnvError()
        start = i
        while i < len(v_value) and v_value[i] not in ",=":
            i += 1
        name = v_value[start:i]
        if i >= len(v_value) or v_value[i] == ",":
            if not name.startswith(PBS_O):
                if name not in env:
                    raise EnvError()
                out.append("," + name + "=" + copy_value(env[name], True)[0])
            i += 1
            continue
        text, used = copy_value(v_value[i + 1:], False)
        i += 1 + used
        if not name.startswith(PBS_O):
            out.append("," + name + "=" + text)
        if i < len(v_value) and v_value[i] == ",":
            i += 1
    return "".join(out)


def whole_env(env: Mapping[str, str]) -> str:
    """``-V``: every variable but ``PBS_O_*``, each as ``,NAME=value``."""
    return "".join(",%s=%s" % (name, copy_value(value, True)[0])
                   for name, value in env.items() if not name.startswith(PBS_O))


def variable_list(env: Mapping[str, str], cwd: str, v_value: Optional[str], export_all: bool,
                  sysname: str = "") -> str:
    """The complete client-side Variable_List.  ``v_value`` is :func:`expand_v`'s result."""
    head = basic(env, cwd, sysname or leanos.uname().sysname)
    middle = _v_entries(v_value, env) if v_value else ""
    return head + middle + (whole_env(env) if export_all else "")
