"""The command start-up path (docs/performance.md): lean imports, the ``sh``/``python3 -S``
wrapper, and the hand-made replacements for ``json``, ``socket`` and ``re`` behaving exactly
as what they replace."""
import json
import os
import re
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fake_pbs import jsonwire, paths, protocol
from fake_pbs.cli.render import pbsjson

REPO = Path(__file__).resolve().parent.parent.parent
HEAVY = ("typing", "json", "re", "socket", "pathlib", "hashlib", "enum")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


@pytest.mark.parametrize("module", ["qstat", "qdel", "pbsnodes", "qselect", "qhold", "qrls", "qsig",
                                    "qmove", "qrerun", "qrun"])
def test_command_imports_stay_lean(module: str) -> None:
    """Importing a command (as its bin wrapper does, under -S) loads none of the costly modules."""
    code = ("import sys; sys.path.insert(0, %r); import fake_pbs.cli.%s; "
            "print(' '.join(m for m in %r if m in sys.modules))" % (str(REPO), module, HEAVY))
    done = subprocess.run([sys.executable, "-S", "-c", code], stdout=subprocess.PIPE, text=True,
                          check=True, timeout=60)
    assert done.stdout.split() == []


def _wrapper_env(**extra: str) -> "dict[str, str]":
    env = dict(os.environ)
    env["FAKE_PBS_PYTHON"] = sys.executable
    env.update(extra)
    return env


def test_wrapper_runs_through_sh_with_chosen_python() -> None:
    """The bin wrapper execs ``$FAKE_PBS_PYTHON -S`` on itself (qstat --version, transcript
    a01-style ``pbs_version = 23.06.06``)."""
    done = subprocess.run([str(REPO / "fake_pbs" / "bin" / "qstat"), "--version"],
                          env=_wrapper_env(), stdout=subprocess.PIPE, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "pbs_version = 23.06.06\n")


def test_wrapper_is_also_plain_python() -> None:
    """``python fake_pbs/bin/qdel --version`` still works: the shell line is a no-op in Python."""
    done = subprocess.run([sys.executable, str(REPO / "fake_pbs" / "bin" / "qdel"), "--version"],
                          stdout=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout == "pbs_version = 23.06.06\n"


def test_wrapper_keeps_pythonpath() -> None:
    """-S drops site, not PYTHONPATH: a directory on PYTHONPATH is still importable."""
    code = "import sys; print('/pp-probe' in sys.path)"
    env = _wrapper_env(PYTHONPATH="/pp-probe")
    done = subprocess.run([sys.executable, "-S", "-c", code], env=env, stdout=subprocess.PIPE,
                          text=True, timeout=60)
    assert done.stdout.strip() == "True"


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_jsonwire_dumps_is_json_dumps(value: Any) -> None:
    """The wire's encoding is exactly json.dumps(ensure_ascii=True, separators=(',', ':'))."""
    assert jsonwire.dumps(value) == json.dumps(value, ensure_ascii=True, separators=(",", ":"))


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(["", " ", "\n", " \t\r\n"]))
def test_jsonwire_loads_is_json_loads(value: Any, space: str) -> None:
    text = space + json.dumps(value, ensure_ascii=bool(len(space) % 2)) + space
    assert jsonwire.loads(text) == json.loads(text)


@pytest.mark.parametrize("text", ["", "{", "{} x", "[1,]", "nul", '"\\x"'])
def test_jsonwire_rejects_what_json_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        jsonwire.loads(text)


def test_jsonwire_surrogates_round_trip() -> None:
    """Non-UTF-8 bytes travel as lone surrogates (protocol docstring) and come back intact."""
    value = {"env": b"caf\xe9".decode("utf-8", "surrogateescape")}
    assert protocol.decode(protocol.encode(value)) == value


_C_NUMBER = re.compile(
    r"[ \t\n\v\f\r]*[+-]?(?:"
    r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|(?i:infinity|inf|nan(?:\([0-9A-Za-z_]*\))?)"
    r")[ \t\n\v\f\r]*\Z")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=" \t\v+-.0123456789xXpPeEaAfFiInNtyY()_z:", max_size=12))
def test_c_number_matcher_is_the_strtod_grammar(text: str) -> None:
    """PBS 23.06 -F json writes a value raw when strtod takes all of it (transcript a19f's
    family); the hand matcher accepts exactly what the grammar's regular expression does."""
    assert pbsjson._matches_c_number(text) == bool(_C_NUMBER.match(text))


def test_paths_strings_agree_with_pathlib(tmp_path: Path) -> None:
    """The commands' string paths and the daemons' Path API name the same socket."""
    long_home = tmp_path / ("x" * 120)
    for home in (tmp_path, long_home):
        assert paths.server_socket_path(home) == str(paths.server_socket(home))
        assert paths.run_dir_path(str(home)) == str(paths.run_dir(home))
    assert paths.cluster_home_path("~/c") == str(paths.cluster_home("~/c"))


def _pair() -> "tuple[protocol.LineChannel, socket.socket]":
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    return protocol.LineChannel(left), right


def test_channel_splits_lines_across_and_within_chunks() -> None:
    """One line per message whatever the recv boundaries: several in one chunk, one in many."""
    channel, peer = _pair()
    big = {"data": "x" * 600000}
    payload = protocol.encode({"a": 1}) + protocol.encode({"b": 2}) + protocol.encode(big)

    def write() -> None:
        peer.sendall(payload)
        peer.close()

    writer = threading.Thread(target=write)
    writer.start()
    got: List[Any] = list(channel.messages())
    writer.join()
    channel.close()
    assert got == [{"a": 1}, {"b": 2}, big]


def test_channel_reports_a_truncated_message() -> None:
    channel, peer = _pair()
    peer.sendall(b'{"a":1}\n{"b":')
    peer.close()
    assert channel.receive() == {"a": 1}
    with pytest.raises(ValueError):
        channel.receive()
    channel.close()
