"""The mom's configuration file, ``mom_priv/<host>/config`` (PBS's ``$PBS_HOME/mom_priv/config``).

Read once at start-up, as pbs_mom's ``read_config`` does: ``#`` comments and blank lines are
skipped, ``$name value`` lines are directives.  The fake acts on the directives listed in
:data:`HANDLERS`; every other line (another PBS directive, a static resource) is refused, since a
directive accepted and not acted on would lie to the site testing it: the mom logs why and does
not start (PBS's mom does the same for a directive it does not know: ``parse_config, command
name <name> not found``, then ``pbs_mom: config file(s) parsing failed``, exit 1).

The file is trusted only when the mom's own user (or root) owns it and no one else may write it.
"""
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Tuple

DEFAULT_MAX_POLL_DOWNTIME = 300  # job.h PBS_MAX_POLL_DOWNTIME
_LEADING_INT = re.compile(r"\s*([+-]?[0-9]+)")


@dataclass
class MomConfig:
    max_poll_downtime: int = DEFAULT_MAX_POLL_DOWNTIME  # s a lost sister is waited for


class ConfigError(Exception):
    """The file cannot be used: the mom does not start."""


def _max_poll_downtime(config: MomConfig, value: str) -> bool:
    # set_max_poll_downtime: strtol base 10 (its leading number, else 0); a value <= 0 fails
    leading = _LEADING_INT.match(value)
    number = int(leading.group(1)) if leading else 0
    if number <= 0:
        return False
    config.max_poll_downtime = number
    return True


HANDLERS: Dict[str, Callable[[MomConfig, str], bool]] = {
    "max_poll_downtime": _max_poll_downtime,
}


def check_owner(path: Path) -> None:
    """Refuse a file another user could have written (a root mom trusts root's files only)."""
    info = path.stat()
    if info.st_uid not in (0, os.geteuid()):
        raise ConfigError("%s: not owned by the mom's user" % path)
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ConfigError("%s: writable by group or others" % path)
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError("%s: not a regular file" % path)


def parse(text: str, source: str) -> Tuple[MomConfig, List[Tuple[str, str]], List[str]]:
    """The settings of ``text``, the ``(name, value)`` directives applied (logged by the mom as
    PBS's handlers log them) and the errors (each a mom log message)."""
    config, applied, errors = MomConfig(), [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or raw.startswith("#"):
            continue
        if not line.startswith("$"):
            errors.append("parse_config, %s[%d] static resource %r: not supported by fake_pbs "
                          "(docs/differences.md)" % (source, number, line.split()[0]))
            continue
        name, _, value = line[1:].partition(" ")
        name, value = name.strip(), value.strip()
        handler = HANDLERS.get(name)
        if handler is None:
            errors.append("parse_config, command name %s not found by fake_pbs "
                          "(docs/differences.md)" % name)
            continue
        applied.append((name, value))
        if not handler(config, value):
            errors.append('parse_config, %s[%d] command "$%s %s" failed, aborting'
                          % (source, number, name, value))
    return config, applied, errors


def load(path: Path) -> Tuple[MomConfig, List[Tuple[str, str]], List[str]]:
    """The configuration at ``path``; no file: the defaults.  Raises :class:`ConfigError`
    for a file the mom may not trust."""
    try:
        check_owner(path)
    except FileNotFoundError:
        return MomConfig(), [], []
    except OSError as err:
        raise ConfigError("%s: %s" % (path, err.strerror))
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as err:
        raise ConfigError("%s: %s" % (path, err.strerror))
    return parse(text, str(path))
