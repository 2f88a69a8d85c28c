"""The server's hook files, as PBS keeps them in ``server_priv/hooks`` (m11i, m11k).

PBS stores each site hook as ``NAME.HK`` (its attributes), ``NAME.PY`` (the imported script)
and ``NAME.CF`` (the imported config); ``pbs.hook_config_filename`` names the ``.CF`` file and
the server's ``Compiling script file`` line the ``.PY`` file.  The fake's hook records stay in
the state store; these files mirror them after every qmgr change, so that the same paths exist.
"""
import os
import random
import string
from pathlib import Path
from typing import Any, Dict, Optional

SUFFIXES = (".HK", ".PY", ".CF")


def hooks_dir(home: Path) -> Path:
    return home / "server_priv" / "hooks"


def script_path(home: Path, name: str) -> Path:
    return hooks_dir(home) / (name + ".PY")


def config_path(home: Path, name: str) -> Path:
    return hooks_dir(home) / (name + ".CF")


def import_temp_name(pid: int) -> str:
    """The name qmgr gives the file it hands the server at an import (qmgr.c's
    ``qmgr_hook<pid>XXXXXX`` from mkstemp, then ``.tmp``): m01e, m09d."""
    letters = string.ascii_letters + string.digits
    return "qmgr_hook%d%s.tmp" % (pid, "".join(random.choice(letters) for _ in range(6)))


def mirror(home: Path, name: str, record: Optional[Dict[str, Any]]) -> None:
    """Write hook ``name``'s files from its record, or remove them when it is gone."""
    folder = hooks_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    if record is None:
        for suffix in SUFFIXES:
            try:
                (folder / (name + suffix)).unlink()
            except FileNotFoundError:
                pass
        return
    fields = ["hook_name=%s" % name]
    fields += ["%s=%s" % (key, _text(record.get(key)))
               for key in ("type", "enabled", "events", "user", "alarm", "freq", "order",
                           "debug", "fail_action")]
    _write(folder / (name + ".HK"), "\n".join(fields) + "\n")
    for suffix, key in ((".PY", "script"), (".CF", "config")):
        content = record.get(key)
        target = folder / (name + suffix)
        if content is None:
            try:
                target.unlink()
            except FileNotFoundError:
                pass
        else:
            _write(target, str(content))


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def _write(path: Path, content: str) -> None:
    tmp = path.with_name(path.name + ".new")
    with open(str(tmp), "w", encoding="utf-8", errors="surrogateescape") as stream:
        stream.write(content)
    os.chmod(str(tmp), 0o600)
    os.replace(str(tmp), str(path))


def clear(home: Path) -> None:
    """Remove every hook's files (a reset withdraws all hooks)."""
    for suffix in SUFFIXES:
        for path in hooks_dir(home).glob("*" + suffix):
            try:
                path.unlink()
            except FileNotFoundError:
                pass
