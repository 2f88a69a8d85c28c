"""Loading the golden cases (copied from ../shared/fidelity into tests/data/fidelity) and turning
their outputs back into the attribute pairs the server sends, so renderers can be checked
against what real OpenPBS 23.06.06 printed.  The loaders themselves are tested here too.
"""
import calendar
import json
import os
import re
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

DATA = Path(__file__).resolve().parent.parent / "data" / "fidelity"
TIME_KEYS = {"ctime", "etime", "stime", "obittime", "mtime", "qtime", "Execution_Time",
             "last_state_change_time", "last_used_time"}

Pairs = List[Tuple[str, str]]


def case(name: str) -> Dict[str, Any]:
    with open(str(DATA / (name + ".json")), "r", encoding="utf-8") as handle:
        data: Dict[str, Any] = json.load(handle)
    return data


def use_utc() -> None:
    """The transcripts were captured with TZ=UTC."""
    os.environ["TZ"] = "UTC"
    time.tzset()


def to_epoch(text: str) -> str:
    return str(calendar.timegm(time.strptime(text, "%a %b %d %H:%M:%S %Y")))


def unfold_full_text(stdout: str, indent: str = "    ") -> List[Tuple[str, Pairs]]:
    """``qstat -f`` text -> [(object name, pairs)], times back to epochs."""
    blocks: List[Tuple[str, Pairs]] = []
    for chunk in stdout.replace("\n\t", "").split("\n\n"):
        lines = [line for line in chunk.split("\n") if line]
        if not lines:
            continue
        name = lines[0].split(": ", 1)[1] if ": " in lines[0] else lines[0]
        pairs: Pairs = []
        for line in lines[1:]:
            key, _, value = line[len(indent):].partition(" = ")
            if key in TIME_KEYS:
                value = to_epoch(value)
            pairs.append((key, value))
        blocks.append((name, pairs))
    return blocks


_LINE = re.compile(r'^\s*"([^"]*)":(.*?),?$')


def _iter_lines(text: str) -> Iterator[str]:
    for line in text.split("\n"):
        yield line


def pbs_json_objects(stdout: str, section: str) -> List[Tuple[str, Pairs]]:
    """Read PBS 23.06's JSON layout leniently (it may be invalid JSON) -> flat pairs.

    String values are kept as the raw text between the quotes: PBS copies backslash pairs
    verbatim, so for the cases used here that text is the stored value.
    """
    objects: List[Tuple[str, Pairs]] = []
    stack: List[str] = []
    current: Optional[Pairs] = None
    variables: List[str] = []
    for line in _iter_lines(stdout):
        stripped = line.strip()
        if stripped in ("}", "},"):
            if not stack:
                continue
            closed = stack.pop()
            if closed == "Variable_List" and current is not None:
                current.append(("Variable_List", ",".join(variables)))
            elif len(stack) == 1 and stack[0] == section and current is not None:
                objects.append((closed, current))
                current = None
            continue
        match = _LINE.match(line)
        if not match:
            continue
        key, value = match.group(1), match.group(2)
        if value == "{":
            stack.append(key)
            if len(stack) == 2 and stack[0] == section:
                current = []
            if key == "Variable_List":
                variables = []
            continue
        if current is None:
            continue
        raw = value[1:-1] if value.startswith('"') else value
        parent = stack[-1]
        if parent == "Variable_List":
            variables.append("%s=%s" % (key, raw.replace(",", "\\,")))
        elif len(stack) == 3:
            current.append(("%s.%s" % (parent, key), raw))
        else:
            current.append((key, to_epoch(raw) if key in TIME_KEYS else raw))
    return objects


def normalize_timestamp(text: str) -> str:
    return re.sub(r'"timestamp":\d+', '"timestamp":0', text)


def test_unfold_reads_b02_back() -> None:
    """b02 (qstat -f of a running job) unfolds to 47 attributes, Variable_List in one piece."""
    use_utc()
    blocks = unfold_full_text(case("b02_qstat_f_running")["stdout"])
    assert [name for name, _ in blocks] == ["13.vm"]
    pairs = dict(blocks[0][1])
    assert pairs["ctime"] == "1795290734"
    assert pairs["Variable_List"].endswith("PBS_O_QUEUE=workq,PBS_O_HOST=vm")


def test_json_reader_reads_b03_back() -> None:
    """b03 (qstat -f -F json) reads back to the same pairs as b02's text."""
    use_utc()
    objects = pbs_json_objects(case("b03_qstat_f_json_running")["stdout"], "Jobs")
    text_pairs = unfold_full_text(case("b02_qstat_f_running")["stdout"])[0][1]
    assert objects[0][0] == "13.vm"
    assert objects[0][1] == text_pairs


@pytest.mark.parametrize("name", ["b01_qstat_default", "v01_qstat_version"])
def test_case_files_are_present(name: str) -> None:
    """The copied transcripts keep PBS's exact command, output and exit code."""
    data = case(name)
    assert data["exit_code"] == 0 and data["stdout"]
