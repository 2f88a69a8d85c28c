"""``qstat -f``, ``-Qf`` and ``-Bf``: one block per object in text, DSV or JSON.

Job values are converted first, as PBS's qstat does in the client: epoch times become ctime
dates (``estimated.start_time`` 0 is ``UNKNOWN``; ``history_timestamp`` stays an epoch),
``Submit_arguments`` is XML-decoded when the server kept PBS's encoded form, ``executable`` is
wrapped in its JSDL tag.  Queue and server values are shown as they come.
"""
from __future__ import annotations


from fake_pbs.cli.render import attrline
from fake_pbs.cli.render.pbsjson import ESCAPE, JsonDoc
from fake_pbs.cli.render.values import Pairs, atol, ctime_text, split_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Sequence, Tuple

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


def job_triples(attrs: Pairs) -> List[Triple]:
    """The job's attributes as (name, resource, displayed value), in the order received."""
    result: List[Triple] = []
    for item in attrs:
        key, value = str(item[0]), str(item[1])
        name, resource = split_name(key)
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
            doc.value("".join(key), "".join(val), ESCAPE)
        if i < n:
            i += 1
    doc.close()


def json_block(doc: JsonDoc, object_name: str, triples: Sequence[Triple]) -> None:
    """One object under ``Jobs`` / ``Queue`` / ``Server``; resources become nested objects."""
    doc.open_object(object_name)
    previous: Optional[str] = None
    for name, resource, value in triples:
        if name == "Variable_List" and resource is None:
            variable_list_json(doc, name, value)
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
