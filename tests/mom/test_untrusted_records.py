"""A daemon believes a record only when it is its own (issue 21): a regular file of its user,
writable by that user alone, with one name, opened without following a link
(fake_pbs/mom/durable.py ``read_bytes``); anything else raises UntrustedRecord, never blocks and
never reads through to another file.  PBS's mom likewise refuses a job file that is not a
regular file of the expected owner with one link (start_exec.c open_std_file's checks)."""
import os
from pathlib import Path
from typing import Callable

import pytest

from fake_pbs import jsonwire
from fake_pbs.mom import durable
from fake_pbs.mom.layout import HostLayout


def _record(tmp_path: Path) -> Path:
    path = tmp_path / "spec.json"
    durable.write_json(path, {"job": {"id": "1.vm"}})
    return path


def _link(path: Path) -> None:
    target = path.with_name("elsewhere.json")
    os.replace(str(path), str(target))
    path.symlink_to(target)


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(str(path), 0o600)


def _second_name(path: Path) -> None:
    os.link(str(path), str(path.with_name("alias.json")))


def _group_writable(path: Path) -> None:
    path.chmod(0o620)


@pytest.mark.parametrize("spoil", [_link, _fifo, _second_name, _group_writable])
def test_a_record_that_is_not_the_daemons_own_is_refused(
        tmp_path: Path, spoil: Callable[[Path], None]) -> None:
    path = _record(tmp_path)
    assert durable.read_json(path) == {"job": {"id": "1.vm"}}
    spoil(path)
    with pytest.raises(durable.UntrustedRecord):
        durable.read_json(path)


def test_a_record_of_another_user_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give a file away")
    path = _record(tmp_path)
    os.chown(str(path), 1001, 1001)
    with pytest.raises(durable.UntrustedRecord):
        durable.read_json(path)


def test_a_torn_record_is_a_value_error(tmp_path: Path) -> None:
    """Malformed JSON inside a container is json's ValueError (the C scanner alone fails
    without an error of its own), so a caller that skips bad records catches it."""
    path = tmp_path / "spec.json"
    durable.write_atomic(path, b'{"role": "primary", "job": {"id": ')
    with pytest.raises(ValueError):
        durable.read_json(path)
    with pytest.raises(ValueError):
        jsonwire.loads('{"a": [1, }')


@pytest.mark.parametrize("jobid", ["", "../x", "a/b", ".gone-1", "..", "."])
def test_a_job_id_names_one_plain_entry(tmp_path: Path, jobid: str) -> None:
    with pytest.raises(ValueError):
        HostLayout(tmp_path, "n1").job(jobid)
