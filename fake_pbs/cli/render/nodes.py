"""pbsnodes output: the per-node text block, ``-l``, DSV and the 23.06 JSON document.

Text: the node name, then ``     name = value`` (5 spaces), the two ``*_time`` attributes as
ctime dates, and a blank line.  JSON: resources nested, zero ``resources_assigned`` left out,
``jobs`` as a list of distinct ids, times kept as epochs; values fully escaped.
"""
from __future__ import annotations


from fake_pbs.cli.render.pbsjson import FULLESCAPE, JsonDoc
from fake_pbs.cli.render.values import atol, ctime_text, show_nonprint, split_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, List

NODE_TIME_ATTRS = ("last_state_change_time", "last_used_time")


def text_block(name: str, attrs: Any) -> str:
    lines = [name]
    for item in attrs:
        key, value = str(item[0]), str(item[1])
        if key in NODE_TIME_ATTRS:
            lines.append("     %s = %s" % (key, ctime_text(atol(value))))
        else:
            lines.append("     %s = %s" % (key, show_nonprint(value)))
    return "\n".join(lines) + "\n\n"


def dsv_line(name: str, attrs: Any, delim: str) -> str:
    items: List[str] = []
    for item in attrs:
        key, value = str(item[0]), str(item[1])
        if key == "jobs":
            value = value.replace(" ", "")
        items.append("%s=%s" % (key, show_nonprint(value)))
    return "Name=%s%s%s\n" % (name, delim, delim.join(items))


def marked_line(name: str, state: str, comment: str) -> str:
    """``pbsnodes -l``: a node that is down or offline."""
    return "%-20s %s %s\n" % (name, state, show_nonprint(comment))


def _strtod_prefix(text: str) -> float:
    """The number ``strtod`` reads at the start of ``text`` (0 when none)."""
    best = 0.0
    for end in range(len(text), 0, -1):
        try:
            best = float(text[:end])
            break
        except ValueError:
            continue
    return best


def json_node(doc: JsonDoc, name: str, attrs: Any) -> None:
    doc.open_object(name)
    pairs = [(str(item[0]), str(item[1])) for item in attrs]
    i = 0
    while i < len(pairs):
        key, value = pairs[i]
        group, resource = split_name(key)
        if resource is not None and group in ("resources_available", "resources_assigned"):
            doc.open_object(group)
            while i < len(pairs) and split_name(pairs[i][0])[0] == group:
                res = split_name(pairs[i][0])[1] or ""
                val = pairs[i][1]
                if group == "resources_available":
                    doc.value(res, val, FULLESCAPE)
                elif _strtod_prefix(val.strip()):
                    doc.value(res, val, FULLESCAPE)
                elif val[:1] != "0":
                    doc.string(res, val)
                i += 1
            doc.close()
            continue
        if key == "jobs":
            doc.open_array(key)
            previous = None
            for part in value.replace(" ", "").split(","):
                if not part:
                    continue
                job = part.split("/", 1)[0]
                if job != previous:
                    doc.string(None, job)
                previous = job
            doc.close_array()
        else:
            doc.value(key, value, FULLESCAPE)
        i += 1
    doc.close()
