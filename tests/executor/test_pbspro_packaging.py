"""Registration with psij: only ``pbspro`` (never ``pbs``, no aliases), a version above psij's
built-in 0.0.2, the class in a plain module, one version number everywhere."""
import re
from pathlib import Path
from typing import Any, Dict, List

from packaging.version import Version
from psij import JobExecutor
from psij.descriptor import Descriptor

import psijpbs

ROOT = Path(__file__).resolve().parents[2]


def _descriptors() -> List[Descriptor]:
    namespace: Dict[str, Any] = {}
    files = sorted((ROOT / 'psij-descriptors').glob('*.py'))
    assert [f.name for f in files] == ['psijpbs_pbspro_descriptor.py']
    assert not (ROOT / 'psij-descriptors' / '__init__.py').exists()
    exec(files[0].read_text(), namespace)
    descriptors: List[Descriptor] = namespace['__PSI_J_EXECUTORS__']
    return descriptors


def test_descriptor_registers_pbspro_only() -> None:
    """psij-behaviour.md §6: one descriptor named pbspro, no aliases, version > 0.0.2, class in
    psijpbs/executor.py (psij loads it from the same sys.path entry as the descriptor)."""
    (desc,) = _descriptors()
    assert isinstance(desc, Descriptor)
    assert desc.name == 'pbspro'
    assert not desc.aliases
    assert desc.version > Version('0.0.2')
    assert desc.cls == 'psijpbs.executor.PBSProJobExecutor'
    assert (ROOT / 'psijpbs' / 'executor.py').exists()


def test_versions_agree() -> None:
    """pyproject.toml, psijpbs.__version__ and the descriptor carry the same version."""
    pyproject = (ROOT / 'pyproject.toml').read_text()
    match = re.search(r'^version = "([^"]+)"', pyproject, re.MULTILINE)
    assert match is not None
    (desc,) = _descriptors()
    assert match.group(1) == psijpbs.__version__ == str(desc.version)


def test_psij_finds_pbspro_and_keeps_its_own_pbs() -> None:
    """get_instance('pbspro') is ours; psij's own pbs and pbs_classic still load."""
    names = JobExecutor.get_executor_names()
    assert {'pbspro', 'pbs', 'pbs_classic'} <= set(names)
    assert type(JobExecutor.get_instance('pbspro')).__name__ == 'PBSProJobExecutor'
    assert type(JobExecutor.get_instance('pbs')).__module__.startswith('psij.')
