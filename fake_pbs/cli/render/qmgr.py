"""qmgr's ``list`` and ``print`` texts, byte for byte (golden cases d03b, d06, d06c, d07, d11,
d12*, k10a, m10h, m11h).  Pure functions of ordered ``[name, value]`` pairs.
"""
import base64
from typing import Iterable, List, Optional, Sequence

from fake_pbs.model import qmgr_attrs

Pairs = Sequence[Sequence[str]]

_LABELS = {"server": "Server", "queue": "Queue", "node": "Node", "sched": "Sched",
           "hook": "Hook", "pbshook": "Hook", "resource": "Resource"}

# qmgr folds a comma list once the line would pass this column; it never resets its count,
# so every later item lands on its own line (d06c).
_FOLD_COLUMN = 80
_B64_CHUNK = 512  # print encodes the script in 512-byte pieces, one base64 line each (d06)


def fold_value(name: str, value: str) -> str:
    items = value.split(",")
    column = len("    %s = " % name) + len(items[0])
    out = [items[0]]
    for item in items[1:]:
        column += len(item) + 1
        out.append((",\n\t" if column >= _FOLD_COLUMN else ",") + item)
    return "".join(out)


def render_list(objtype: str, name: str, pairs: Pairs,
                only: Optional[Iterable[str]] = None) -> str:
    """One object of ``list``: its header, ``    attr = value`` lines, then a blank line."""
    wanted = list(only) if only else None
    lines = ["%s %s\n" % (_LABELS.get(objtype, objtype.capitalize()), name)]
    for attr, value in pairs:
        if wanted is not None and not any(attr == w or attr.startswith(w + ".")
                                          for w in wanted):
            continue
        lines.append("    %s = %s\n" % (attr, fold_value(attr, value)))
    lines.append("\n")
    return "".join(lines)


def quote(value: str) -> str:
    """A value as ``print`` writes it, quoted when qmgr could not read it back bare."""
    if value == "":
        return '""'
    if any(c in value for c in " \t,\"'"):
        return "'%s'" % value if '"' in value else '"%s"' % value
    return value


def _set_lines(prefix: str, objtype: str, attr: str, value: str) -> List[str]:
    definition = qmgr_attrs.find(objtype, attr)
    if definition is not None and qmgr_attrs.is_list(definition):
        items = qmgr_attrs.split_list(value)
        if items:
            first = ["%s %s = %s\n" % (prefix, attr, quote(items[0]))]
            return first + ["%s %s += %s\n" % (prefix, attr, quote(i)) for i in items[1:]]
    return ["%s %s = %s\n" % (prefix, attr, quote(value))]


def print_object(objtype: str, name: str, pairs: Pairs, set_prefix: Optional[str] = None) -> str:
    """``#\\n# Create and define <type> <name>\\n#\\ncreate ...`` and its ``set`` lines."""
    label = "scheduler" if objtype == "sched" else objtype
    prefix = set_prefix if set_prefix is not None else "set %s %s" % (objtype, name)
    out = ["#\n# Create and define %s %s\n#\n" % (label, name), "create %s %s\n" % (objtype, name)]
    for attr, value in pairs:
        if qmgr_attrs.printable(objtype, attr):
            out += _set_lines(prefix, objtype, attr, value)
    return "".join(out)


def print_queues(queues: Sequence[Sequence[object]]) -> str:
    """``print queue``: ``queues`` is ``[(name, pairs), ...]``."""
    out = ["#\n# Create queues and set their attributes.\n#\n"]
    for name, pairs in queues:
        out.append(print_object("queue", str(name), pairs))  # type: ignore[arg-type]
    return "".join(out)


def print_server(queues: Sequence[Sequence[object]], pairs: Pairs) -> str:
    out = [print_queues(queues), "#\n# Set server attributes.\n#\n"]
    for attr, value in pairs:
        if qmgr_attrs.printable("server", attr):
            out += _set_lines("set server", "server", attr, value)
    return "".join(out)


def print_nodes(nodes: Sequence[Sequence[object]]) -> str:
    out = ["#\n# Create nodes and set their properties.\n#\n"]
    for name, pairs in nodes:
        out.append(print_object("node", str(name), pairs))  # type: ignore[arg-type]
    return "".join(out)


def print_sched(name: str, pairs: Pairs) -> str:
    prefix = "set sched" if name == "default" else "set sched %s" % name
    return print_object("sched", name, pairs, set_prefix=prefix)


def _b64_lines(content: str) -> str:
    data = content.encode("utf-8", "surrogateescape")
    return "".join(base64.b64encode(data[i:i + _B64_CHUNK]).decode("ascii") + "\n"
                   for i in range(0, len(data), _B64_CHUNK))


def print_hook(name: str, pairs: Pairs, script: Optional[str], config: Optional[str],
               objtype: str = "hook") -> str:
    out = ["#\n# Create and define hook %s\n#\n" % name, "create %s %s\n" % (objtype, name)]
    for attr, value in pairs:
        if attr in ("event", "fail_action") and "," in value:
            items = value.split(",")
            out.append("set %s %s %s = %s\n" % (objtype, name, attr, items[0]))
            out += ["set %s %s %s += %s\n" % (objtype, name, attr, i) for i in items[1:]]
        else:
            out.append("set %s %s %s = %s\n" % (objtype, name, attr, value))
    out.append("import %s %s application/x-python base64 -\n" % (objtype, name))
    out.append(_b64_lines(script or "") + "\n")
    out.append("import %s %s application/x-config base64 -\n" % (objtype, name))
    out.append(_b64_lines(config or "") + "\n")
    return "".join(out)


def print_hooks(hooks: Sequence[Sequence[object]]) -> str:
    """``print hook``: ``hooks`` is ``[(name, pairs, script, config), ...]``."""
    out = ["#\n# Create hooks and set their properties.\n#\n"]
    for name, pairs, script, config in hooks:
        out.append(print_hook(str(name), pairs, script, config))  # type: ignore[arg-type]
    return "".join(out)
