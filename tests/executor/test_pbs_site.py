"""``--real-pbs`` as root: PBS refuses root's jobs by default, and the tests that run jobs are
skipped once, with PBS's reason and the fix, instead of failing one by one (issue 24).

PBS: geteusernam.c:set_objexid rejects uid 0 unless the server's acl_roots names the submitter
(PBSE_BADUSER, "Bad UID for job execution"); transcript openpbs-23.06.06/a12_qsub_as_root.
"""
import stat
from pathlib import Path

import pytest

from . import pbs_site
from .pbs_site import PbsSite


def _command(directory: Path, name: str, body: str) -> None:
    path = directory / name
    path.write_text('#!/bin/sh\n' + body + '\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_root_refused_names_the_reason_and_acl_roots(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _command(tmp_path, 'qsub', 'echo "qsub: Bad UID for job execution" >&2; exit 15')
    monkeypatch.setenv('PATH', '%s:/usr/bin:/bin' % tmp_path)
    reason = pbs_site._root_refusal()
    assert reason is not None
    assert 'qsub: Bad UID for job execution' in reason
    assert 'acl_roots' in reason
    site = PbsSite('srv', [2], None, reason)
    with pytest.raises(pytest.skip.Exception, match='acl_roots'):
        site.require_jobs()


def test_root_allowed_deletes_its_probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deleted = tmp_path / 'deleted'
    _command(tmp_path, 'qsub', 'echo 7.srv')
    _command(tmp_path, 'qdel', 'echo "$@" > %s' % deleted)
    monkeypatch.setenv('PATH', '%s:/usr/bin:/bin' % tmp_path)
    assert pbs_site._root_refusal() is None
    assert deleted.read_text().split() == ['7.srv']
    PbsSite('srv', [2], None, None).require_jobs()  # no skip
