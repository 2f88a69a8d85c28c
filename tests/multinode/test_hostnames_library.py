"""The host-name library's build and trust rules (fake_pbs/mom/hostnames.py), without a
cluster: no compiler means no library and a clear reason; the mom sets LD_PRELOAD only for a
library of its own user that no one else may write (docs/multinode.md, Host names)."""
import json
import os
import shutil
from pathlib import Path

import pytest

from fake_pbs import paths
from fake_pbs.mom import hostnames


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    paths.config_file(home).write_text(json.dumps({"hosts": [{"name": "node1"},
                                                             {"name": "node2"}]}))
    return home


def test_without_a_compiler_there_is_no_library(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home(tmp_path)
    hostnames.library_path(home).write_bytes(b"stale")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert hostnames.build(home) == hostnames.NO_COMPILER
    assert not hostnames.library_path(home).exists()
    assert hostnames.job_variables(home, "node1", os.geteuid(), {}) == {}


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_variables_only_for_a_trusted_library(tmp_path: Path) -> None:
    home = _home(tmp_path)
    assert hostnames.build(home) is None
    library = hostnames.library_path(home)
    got = hostnames.job_variables(home, "node2", os.geteuid(), {"LD_PRELOAD": "/x.so"})
    assert got == {"LD_PRELOAD": "%s:/x.so" % library,
                   "FAKE_PBS_HOSTS": "node1=127.1.0.1,node2=127.1.0.2",
                   "FAKE_PBS_HOSTNAME": "node2"}
    assert hostnames.job_variables(home, "elsewhere", os.geteuid(), {}) == {}
    library.chmod(0o775)  # a group could replace what every job loads
    assert hostnames.job_variables(home, "node2", os.geteuid(), {}) == {}
