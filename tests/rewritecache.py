"""Rewrite the test modules' asserts once, in the controller, before the xdist workers start.

Each worker imports every test module to collect it, and pytest's import hook rewrites the
asserts of each (about 8 s of CPU per process for this suite on the 2-core machine: 6 workers
spent 48 s of CPU, 24 s of the run's wall time, before the first test).  pytest keeps a rewritten
module in ``__pycache__`` and reads it back in any later process, but writes it only when Python
may write bytecode: not under ``PYTHONDONTWRITEBYTECODE`` (set on the CI machines), and on a
fresh clone the workers all start before any of them has written one.  So the controller imports
the test modules here, with the writing allowed for that moment, and the workers read the cache.
Only pytest's rewritten copies of ``tests/**/test_*.py`` are written (``__pycache__/*-pytest-*.pyc``
beside them), nothing of the packages under test.
"""
import importlib
import os
import sys
from pathlib import Path
from typing import List

import pytest

TESTS = Path(__file__).resolve().parent


def _module_names() -> List[str]:
    names = []
    for path in sorted(TESTS.rglob("test_*.py")):
        relative = path.relative_to(TESTS.parent).with_suffix("")
        parts = relative.parts
        packages = [TESTS.parent.joinpath(*parts[:n]) for n in range(1, len(parts))]
        if all((package / "__init__.py").exists() for package in packages):
            names.append(".".join(relative.parts))
    return names


def warm(config: pytest.Config) -> int:
    """Import each test module through pytest's rewriting hook, its cache written; the count.

    A module whose import fails (a module-level skip, a missing optional package) is left to
    the workers' collection, which reports it as it would have."""
    if config.getoption("assertmode", "rewrite") != "rewrite":
        return 0
    names = [name for name in _module_names() if name not in sys.modules]
    # Two processes, one per core: a forked child takes every other module (its imports are
    # only for the cache, and it ends at once); the controller keeps the rest.
    try:
        child = os.fork()
    except OSError:
        child = -1
    if child == 0:
        try:
            _import_all(names[1::2])
        finally:
            os._exit(0)
    done = _import_all(names if child < 0 else names[0::2])
    if child > 0:
        os.waitpid(child, 0)
    return done


def _import_all(names: List[str]) -> int:
    saved = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    done = 0
    try:
        for name in names:
            try:
                importlib.import_module(name)
                done += 1
            except (Exception, pytest.skip.Exception):
                continue
    finally:
        sys.dont_write_bytecode = saved
    return done
