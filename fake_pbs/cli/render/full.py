"""``qstat -f``, ``-Qf`` and ``-Bf``: one block per object in text, DSV or JSON.

Job values are converted first, as PBS's qstat does in the client: epoch times become ctime
dates (``estimated.start_time`` 0 is ``UNKNOWN``; ``history_timestamp`` stays an epoch),
``Submit_arguments`` is XML-decoded when the server kept PBS's encoded form, ``executable`` is
wrapped in its JSDL tag.  Queue and server values are shown as they come.
"""
from __future__ import annotations


from fake_pbs.cli.render import attrline
from fake_pbs.cli.render.pbsjson import ESCAPE, JsonDoc, shown_value
from fake_pbs.cli.render.values import Pairs, atol, ctime_text, split_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence, Tuple

    Triple = Tuple[str, Optional[str], str]  # name, resource, value
else:  # run time: the names exist, typing is not imported
    Triple = object


JOB_TIME_ATTRS = frozenset((
    "ctime", "etime", "stime", "obittime", "mtime", "qtime", "reserve_start", "reserve_end",
    "credential_validity", "Execution_Time"))

_RESV_STATES = (
    "RESV_NONE", "RESV_UNCONFIRMED", "RESV_CONFIRMED", "RESV_WAIT", "RESV_TIME_TO_RUN",
    "RESV_RUNNING", "RESV_FINISHED", "RESV_BEING_DELETED", "RESV_DELETED",
    "RESV_DELETING_JOBS", "RESV_BEING_ALTERED")

_ARG_TAG = "jsdl-hpcpa:Argument"
_EXEC_TAG = "jsdl-hpcpa:Executable"
_XML_ENTITIES = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"), ("&amp;", "&"))


def decode_arguments(value: str) -> str:
    """Join the ``<jsdl-hpcpa:Argument>`` items of PBS's encoded argument list with spaces."""
    if _ARG_TAG not in value:
        return value
    parts: List[str] = []
    for token in value.replace(">", "<").split("<"):
        if not token or _ARG_TAG in token:
            continue
        for entity, char in _XML_ENTITIES:
            token = token.replace(entity, char)
        parts.append(token)
    return " ".join(parts)


# Attribute names whose values job_triples converts, and each key's (name, resource) split,
# kept for the next job: a 10,000-job reply has ~400,000 attributes (docs/performance.md).
_CONVERTED = JOB_TIME_ATTRS | frozenset(("reserve_state", "Submit_arguments", "executable"))
_SPLIT: Dict[str, Tuple[str, Optional[str]]] = {}


def job_triples(attrs: Pairs) -> List[Triple]:
    """The job's attributes as (name, resource, displayed value), in the order received."""
    result: List[Triple] = []
    for item in attrs:
        key, value = str(item[0]), str(item[1])
        split = _SPLIT.get(key)
        if split is None:
            split = _SPLIT[key] = split_name(key)
        name, resource = split
        if name not in _CONVERTED and key != "estimated.start_time":  # most attributes
            result.append((name, resource, value))
            continue
        if name in JOB_TIME_ATTRS or key == "estimated.start_time":
            epoch = atol(value)
            value = "UNKNOWN" if epoch == 0 and key == "estimated.start_time" \
                else ctime_text(epoch)
        elif name == "reserve_state":
            code = atol(value)
            if 0 <= code < len(_RESV_STATES) and value.strip().isdigit():
                value = _RESV_STATES[code]
        elif name == "Submit_arguments":
            value = decode_arguments(value)
        elif name == "executable" and not value.startswith("<%s>" % _EXEC_TAG):
            # qsub sends the JSDL form already; a bare path (hooks, qalter) gets wrapped here.
            value = "<%s>%s</%s>" % (_EXEC_TAG, value, _EXEC_TAG)
        result.append((name, resource, value))
    return result


def plain_triples(attrs: Pairs) -> List[Triple]:
    """Queue and server attributes, unchanged."""
    return [split_name(str(item[0])) + (str(item[1]),) for item in attrs]


def text_block(header: str, triples: Sequence[Triple], wide: bool) -> str:
    """Default format: ``Job Id: X`` / ``Queue: X`` / ``Server: X``, one line per attribute
    (folded unless ``wide``), then a blank line."""
    lines = [header]
    for name, resource, value in triples:
        if wide:
            lines.append(attrline.one_line(name, resource, value))
        else:
            lines.append(attrline.folded(name, resource, value))
    return "\n".join(lines) + "\n\n"


def dsv_block(header: str, triples: Sequence[Triple], delim: str) -> str:
    """``-F dsv``: the header and every ``name=value`` joined by the delimiter, one line."""
    items = [attrline.dsv(name, resource, value, delim) for name, resource, value in triples]
    return header + delim + delim.join(items) + "\n"


def variable_list_json(doc: JsonDoc, name: str, value: str) -> None:
    """``Variable_List`` as an object, split as PBS 23.06 splits it (unescaped commas, first
    ``=``; ``\\,`` loses its backslash; an entry without ``=`` is dropped)."""
    doc.open_object(name)
    for key, val in variable_list_items(value):
        doc.value(key, val, ESCAPE)
    doc.close()


def variable_list_items(value: str) -> List[Tuple[str, str]]:
    """The (name, value) entries of a ``Variable_List`` as PBS 23.06's JSON shows them."""
    if "\\" not in value and "=," not in value:
        # Fast path: no escaped comma, and no "=" directly before a comma (which the walk
        # below would take into the value): entries are split at commas and at their first "=".
        return [(k, v) for k, sep, v in (e.partition("=") for e in value.split(",")) if sep]
    return variable_list_walk(value)


def variable_list_walk(value: str) -> List[Tuple[str, str]]:
    """:func:`variable_list_items` character by character (the general case, no fast path)."""
    items: List[Tuple[str, str]] = []
    i, n = 0, len(value)
    while i < n:
        key: List[str] = []
        val: Optional[List[str]] = None
        current = key
        while i < n and value[i] != ",":
            if value[i] == "\\" and i + 1 < n and value[i + 1] == ",":
                i += 1
            if val is None and value[i] == "=":
                val = []
                current = val
                i += 1
                if i >= n:
                    break
            current.append(value[i])
            i += 1
        if val is not None:
            items.append(("".join(key), "".join(val)))
        if i < n:
            i += 1
    return items


def json_block(doc: JsonDoc, object_name: str, triples: Sequence[Triple]) -> None:
    """One object under ``Jobs`` / ``Queue`` / ``Server``; resources become nested objects.

    The object is rendered to text here at once (``JsonDoc.block``) rather than as one node
    per value: a 10,000-job ``qstat -f -F json`` spent seconds on the nodes.  The text is what
    the node sequence prints (opening, values, ``resources`` objects, closing): consecutive
    values of one resource attribute share an object; ``Variable_List`` becomes an object,
    inside an open resource object when one directly precedes it (as PBS's node list nests it).
    tests/cli/test_json_block_fast.py checks it against the node sequence.
    """
    inner = " " * doc.indent() + "    "
    _assemble(doc, object_name, [(name, resource, _member_line(inner, name, resource, value))
                                 for name, resource, value in triples])


def json_job_block(doc: JsonDoc, object_name: str, attrs: Pairs) -> None:
    """``json_block(doc, object_name, job_triples(attrs))`` in one pass over the wire pairs.

    Each (key, value) pair's member line is made once per indent and reused: the jobs of one
    large reply share most of their values (queue, states, flags, dates of the same second),
    so a 10,000-job ``qstat -f -F json`` mostly joins lines it has made already.
    tests/cli/test_json_block_fast.py checks it against the two-step form.
    """
    pad = " " * doc.indent()
    inner = pad + "    "
    made = _LINES.get(pad)
    if made is None:
        made = _LINES[pad] = {}
    entries: List[Tuple[str, Optional[str], str]] = []
    for item in attrs:
        pair = tuple(item)  # (name, value): strings on the wire; job_triples converts others
        known = made.get(pair)
        if known is None:
            name, resource, value = job_triples((pair,))[0]
            known = (name, resource, _member_line(inner, name, resource, value))
            if len(made) < _LINES_LIMIT:
                made[pair] = known
        entries.append(known)
    _assemble(doc, object_name, entries)


def _member_line(inner: str, name: str, resource: Optional[str], value: str) -> str:
    """An attribute's member line; for ``Variable_List`` its raw value (its object's indent
    depends on what is open when it comes, see :func:`_assemble`)."""
    if name == "Variable_List" and resource is None:
        return value
    if resource is not None:
        return '%s"%s":%s' % (inner + "    ", resource, shown_value(value))
    return '%s"%s":%s' % (inner, name, shown_value(value))


def _assemble(doc: JsonDoc, object_name: str,
              entries: Sequence[Tuple[str, Optional[str], str]]) -> None:
    """Join member lines into the object's text: consecutive values of one resource attribute
    share a nested object, ``Variable_List`` nests into an open one."""
    pad = " " * doc.indent()
    inner = pad + "    "
    deeper = inner + "    "
    members: List[str] = []
    group: Optional[List[str]] = None  # the open resource object's lines, opening line first
    previous: Optional[str] = None
    for name, resource, line in entries:
        if name == "Variable_List" and resource is None:
            where = deeper if group is not None else inner
            text = _VARLISTS.get((where, line))
            if text is None:
                text = _variable_list_text(where, name, line)
                if len(_VARLISTS) < 10_000:
                    _VARLISTS[(where, line)] = text
            (members if group is None else group).append(text)
        elif resource is not None:
            if group is not None and previous != name:
                members.append(_object_text(group, inner))
                group = None
            if group is None:
                group = ['%s"%s":{' % (inner, name)]
                previous = name
            group.append(line)
        else:
            if group is not None:
                members.append(_object_text(group, inner))
                group = None
            members.append(line)
    if group is not None:
        members.append(_object_text(group, inner))
    opening = pad + "{" if doc.in_array() else '%s"%s":{' % (pad, object_name)
    doc.block(_object_text([opening] + members, pad))


# json_job_block's member lines: {indent: {(key, value): (name, resource, line)}}, bounded.
_LINES: Dict[str, Dict[Tuple[str, ...], Tuple[str, Optional[str], str]]] = {}
_LINES_LIMIT = 300_000
# Variable_List objects by (indent, value): one user's jobs mostly share their environment.
_VARLISTS: Dict[Tuple[str, str], str] = {}


def _object_text(lines: List[str], pad: str) -> str:
    """An object from its opening line and its members' texts; ``pad`` is its own indent."""
    if len(lines) == 1:
        return "%s\n%s}" % (lines[0], pad)
    return "%s\n%s\n%s}" % (lines[0], ",\n".join(lines[1:]), pad)


def _variable_list_text(pad: str, name: str, value: str) -> str:
    """``Variable_List`` as :func:`variable_list_json` makes it, rendered at ``pad``."""
    lines = ['%s"%s":{' % (pad, name)]
    inner = pad + "    "
    for key, val in variable_list_items(value):
        lines.append('%s"%s":%s' % (inner, key, shown_value(val)))
    return _object_text(lines, pad)
