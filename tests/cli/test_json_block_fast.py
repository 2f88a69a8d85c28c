"""The fast paths of ``qstat -f -F json`` print exactly what PBS 23.06's node writer prints.

``full.json_block`` renders a whole object to text (``JsonDoc.block``) and the value helpers
skip their per-character loops when nothing needs escaping (docs/performance.md, hotspot 8).
The references are the node-per-value writer they replaced and, for each value helper, its
general character walk (the code path the golden transcripts pinned: a19d/a19f, the unescaped
backslash; b11e, the layout), which the fast paths must agree with; hypothesis compares
both on arbitrary attribute lists, including the odd cases: a ``Variable_List`` right after a
resource attribute (nested into its object), repeated and interleaved resource names, control
characters, quotes, backslashes, numbers by the strtod rule, non-ASCII text.
"""
from typing import List, Optional, Sequence, Tuple

from hypothesis import given, settings, strategies as hs

from fake_pbs.cli.render import full
from fake_pbs.cli.render.pbsjson import ESCAPE, FULLESCAPE, JsonDoc, escape_value, escape_walk
from fake_pbs.cli.render.values import show_nonprint

Triple = Tuple[str, Optional[str], str]


# -- the former implementations (the reference) ---------------------------------------------
def _ref_show_nonprint(text: str) -> str:
    if not any(ord(ch) < 32 for ch in text):
        return text
    return "".join("^" + chr(ord(ch) + 64) if ord(ch) < 32 and ch not in "\n\t" else ch
                   for ch in text)


def _ref_variable_list(doc: JsonDoc, name: str, value: str) -> None:
    doc.open_object(name)
    for key, val in full.variable_list_walk(value):
        doc.value(key, val, ESCAPE)
    doc.close()


def _ref_json_block(doc: JsonDoc, object_name: str, triples: Sequence[Triple]) -> None:
    doc.open_object(object_name)
    previous: Optional[str] = None
    for name, resource, value in triples:
        if name == "Variable_List" and resource is None:
            _ref_variable_list(doc, name, value)
        elif resource is not None:
            if previous is not None and previous != name:
                doc.close()
                previous = None
            if previous is None:
                doc.open_object(name)
                previous = name
            doc.value(resource, value, ESCAPE)
        else:
            if previous is not None:
                doc.close()
                previous = None
            doc.value(name, value, ESCAPE)
    if previous is not None:
        doc.close()
    doc.close()


# -- strategies -------------------------------------------------------------------------------
_ODD = ["", " ", "0", "005", "1", "-2.5e3", "inf", "nan", "0x1p3", ".5", "1 ", "a\\b", 'x"y',
        '"q', "c\\,d", "e\\'f", "tab\there", "nl\nx", "bell\x07", "\x1b[0m", "é\u00a0ü", "=,",
        "a=1,b=2", "A=\\,x,B", "k=,v=1", "==", "x=", ",=", "00:00:00", "True", "\\", "\x7f"]
_values = hs.one_of(hs.sampled_from(_ODD), hs.text(max_size=12),
                    hs.text(alphabet='ab=,\\"\n\t\x01 0.5e', max_size=16))
_names = hs.sampled_from(["Job_Name", "Resource_List", "resources_used", "Variable_List",
                          "comment", "exec_vnode", "Exit_status", "array"])
_triples = hs.lists(hs.tuples(_names, hs.one_of(hs.none(), hs.sampled_from(["ncpus", "mem",
                                                                            "walltime"])),
                              _values), max_size=12)


def _render(block: object, jobs: List[Tuple[str, List[Triple]]], depth_keys: List[str]) -> str:
    doc = JsonDoc()
    doc.integer("timestamp", 1)
    for key in depth_keys:
        doc.open_object(key)
    for name, triples in jobs:
        block(doc, name, triples)  # type: ignore[operator]
    for _ in depth_keys:
        doc.close()
    doc.close()
    return doc.render()


@settings(max_examples=300, deadline=None)
@given(hs.lists(hs.tuples(hs.sampled_from(["1.vm", "2.vm", "x"]), _triples), max_size=3),
       hs.lists(hs.sampled_from(["Jobs", "Queue"]), max_size=2))
def test_json_block_matches_the_node_writer(jobs: List[Tuple[str, List[Triple]]],
                                            depth: List[str]) -> None:
    """``qstat -f -F json``: the pre-rendered job object equals PBS's node-by-node output."""
    assert _render(full.json_block, jobs, depth) == _render(_ref_json_block, jobs, depth)


def test_json_block_inside_an_array_prints_no_key() -> None:
    """An object inside an array is printed without its key, as the node writer does."""
    triples: List[Triple] = [("Job_Name", None, "a"), ("Resource_List", "ncpus", "1")]

    def render(block: object) -> str:
        doc = JsonDoc()
        doc.open_array("list")
        block(doc, "1.vm", triples)  # type: ignore[operator]
        doc.close_array()
        doc.close()
        return doc.render()

    assert render(full.json_block) == render(_ref_json_block)


@settings(max_examples=500, deadline=None)
@given(_values, hs.sampled_from([ESCAPE, FULLESCAPE]))
def test_escape_and_show_nonprint_fast_paths(text: str, mode: str) -> None:
    """PBS's strdup_escape and show_nonprint_chars: unchanged by the no-work fast paths."""
    assert escape_value(text, mode) == escape_walk(text, mode)
    assert show_nonprint(text) == _ref_show_nonprint(text)


@settings(max_examples=500, deadline=None)
@given(_values)
def test_variable_list_items_fast_path(value: str) -> None:
    """Variable_List splitting (unescaped commas, first "=", ``\\,``): the split fast path
    gives the entries the character walk gives."""
    doc, ref = JsonDoc(), JsonDoc()
    full.variable_list_json(doc, "Variable_List", value)
    _ref_variable_list(ref, "Variable_List", value)
    assert doc.nodes == ref.nodes


@settings(max_examples=300, deadline=None)
@given(hs.one_of(_values, hs.text(alphabet="0123456789 +-\u0663x", max_size=8)))
def test_atol_fast_path(text: str) -> None:
    """C atol on epoch values (qstat's ctime dates): the all-digits fast path agrees."""
    from fake_pbs.cli.render.values import atol, atol_walk

    assert atol(text) == atol_walk(text)


_wire_keys = hs.sampled_from([
    "Job_Name", "Resource_List.ncpus", "Resource_List.mem", "resources_used.walltime",
    "Variable_List", "Variable_List.x", "ctime", "mtime", "estimated.start_time",
    "reserve_state", "Submit_arguments", "executable", "comment", "Exit_status"])
_wire = hs.lists(hs.tuples(_wire_keys, hs.one_of(_values, hs.sampled_from(
    ["0", "1795305724", "3", "<jsdl-hpcpa:Argument>a&amp;b</jsdl-hpcpa:Argument>"]))),
    max_size=14)


@settings(max_examples=300, deadline=None)
@given(hs.lists(_wire, min_size=1, max_size=3))
def test_json_job_block_matches_triples_then_block(jobs: List[List[Tuple[str, str]]]) -> None:
    """``qstat -f -F json``: the one-pass job writer (lines reused per (key, value)) prints
    what job_triples + json_block print (dates, reserve_state, JSDL, Variable_List nesting)."""
    def render(one_pass: bool) -> str:
        doc = JsonDoc()
        doc.open_object("Jobs")
        for n, attrs in enumerate(jobs):
            if one_pass:
                full.json_job_block(doc, "%d.vm" % n, attrs)
            else:
                full.json_block(doc, "%d.vm" % n, full.job_triples(attrs))
        doc.close()
        doc.close()
        return doc.render()

    assert render(True) == render(False)
