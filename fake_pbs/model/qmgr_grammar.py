"""The qmgr request grammar: one line -> :class:`Directive`, or a :class:`QmgrSyntaxError`.

``<command> <object-type> [<name>[,<name>...]] [<attr>[.<resc>] <op> <value>[, ...]]``

Commands and object types match by prefix in PBS's order (``s`` = set, ``p`` = print, ``q`` =
queue ...).  When the word after the object type is an attribute of that type (servers, queues,
nodes, schedulers), it starts the attribute list instead of naming an object.  Values group with
``"`` or ``'``; unquoted whitespace ends a value; a comma separates attributes.  Error texts,
caret positions and exit codes follow the real qmgr (golden cases d08, d09, d10, d10b, d10l).
"""
from typing import Callable, List, Optional, Tuple

COMMANDS = ("create", "delete", "set", "unset", "list", "print", "active", "import", "export",
            "help", "?", "quit", "exit")
OBJECT_TYPES = ("server", "queue", "queues", "node", "nodes", "resource", "sched", "hook",
                "pbshook")
_CANONICAL = {"queues": "queue", "nodes": "node"}
OPERATORS = ("+=", "-=", "=")

Attr = Tuple[str, str, str]  # (name, op, value); op and value are "" where only names are given


class QmgrSyntaxError(Exception):
    """A request qmgr refuses before sending anything: ``text`` for stderr, ``exit_code``."""

    def __init__(self, text: str, exit_code: int) -> None:
        super().__init__(text)
        self.text = text
        self.exit_code = exit_code


class Directive:
    """One parsed qmgr request."""

    def __init__(self, command: str, objtype: str, names: List[str], attrs: List[Attr],
                 args: List[str], line: str) -> None:
        self.command = command
        self.objtype = objtype
        self.names = names
        self.attrs = attrs
        self.args = args
        self.line = line

    def __repr__(self) -> str:
        fields = (self.command, self.objtype, self.names, self.attrs, self.args)
        return "Directive(%r, %r, %r, %r, %r)" % fields


def _caret(line: str, pos: int, exit_code: int) -> QmgrSyntaxError:
    return QmgrSyntaxError("qmgr: Syntax error\n%s\n%s^\n" % (line, " " * pos), exit_code)


def _skip_space(line: str, pos: int) -> int:
    while pos < len(line) and line[pos] in " \t":
        pos += 1
    return pos


def _operator_at(line: str, pos: int) -> str:
    for op in OPERATORS:
        if line.startswith(op, pos):
            return op
    return ""


def _word(line: str, pos: int) -> Tuple[str, int]:
    """The word at ``pos``: up to whitespace or an operator."""
    end = pos
    while end < len(line) and line[end] not in " \t" and not _operator_at(line, end):
        end += 1
    return line[pos:end], end


def _match(word: str, choices: Tuple[str, ...]) -> Optional[str]:
    for choice in choices:
        if choice.startswith(word):
            return choice
    return None


def parse(line: str, is_attribute: Callable[[str, str], bool]) -> Optional[Directive]:
    """Parse one request; None for a blank or comment line.

    ``is_attribute(objtype, word)`` tells whether ``word`` names an attribute of ``objtype``
    (the real qmgr asks the same of its attribute tables).
    """
    line = line.rstrip("\n")
    pos = _skip_space(line, 0)
    if pos >= len(line) or line[pos] == "#":
        return None
    word, pos = _word(line, pos)
    command = _match(word, COMMANDS)
    if command is None:
        raise QmgrSyntaxError("qmgr: Illegal operation: %s\nTry 'help' if you are having "
                              "trouble.\n" % word, 1)
    if command in ("help", "?", "quit", "exit"):
        rest = line[_skip_space(line, pos):].strip()
        return Directive(command, "", [], [], [rest] if rest else [], line)
    pos = _skip_space(line, pos)
    word, pos = _word(line, pos)
    if not word:
        raise QmgrSyntaxError("qmgr: No object type given\n", 2)
    objtype = _match(word, OBJECT_TYPES)
    if objtype is None:
        raise QmgrSyntaxError("qmgr: Illegal object type: %s.\n" % word, 2)
    objtype = _CANONICAL.get(objtype, objtype)
    if command in ("import", "export"):
        return _parse_hookio(line, pos, command, objtype)
    return _parse_rest(line, pos, command, objtype, is_attribute)


def _parse_hookio(line: str, pos: int, command: str, objtype: str) -> Directive:
    words = line[pos:].split()
    names = words[:1]
    return Directive(command, objtype, names, [], words[1:], line)


def _parse_rest(line: str, pos: int, command: str, objtype: str,
                is_attribute: Callable[[str, str], bool]) -> Directive:
    pos = _skip_space(line, pos)
    names: List[str] = []
    if pos < len(line):
        word, _ = _word(line, pos)
        first = word.split(",")[0]
        if objtype in ("hook", "pbshook", "resource") or not is_attribute(objtype, first):
            names, pos = _parse_names(line, pos, objtype)
    names_only = command in ("unset", "list", "print", "delete", "create", "active")
    attrs = _parse_attrs(line, pos, with_values=not names_only or command == "create")
    if command in ("set", "unset") and not attrs:
        raise _caret(line, len(line), 4)
    return Directive(command, objtype, names, attrs, [], line)


def _parse_names(line: str, pos: int, objtype: str) -> Tuple[List[str], int]:
    start = pos
    end = pos
    while end < len(line) and line[end] not in " \t" and not _operator_at(line, end):
        end += 1
    names = line[start:end].split(",")
    offset = start
    for name in names:
        bare = name.split("@")[0]
        if not bare or (objtype != "node" and not bare[0].isalpha()):
            raise _caret(line, offset, 3)
        offset += len(name) + 1
    op = _operator_at(line, end)
    if op:  # "name=value" with no space: the operator ends the name and is used up (d10)
        end += len(op)
    return names, end


def _parse_attrs(line: str, pos: int, with_values: bool) -> List[Attr]:
    attrs: List[Attr] = []
    pos = _skip_space(line, pos)
    while pos < len(line):
        name_start = pos
        while pos < len(line) and (line[pos].isalnum() or line[pos] in "_.-"):
            pos += 1
        name = line[name_start:pos]
        if not name or not name[0].isalpha():
            raise _caret(line, name_start, 4)
        pos = _skip_space(line, pos)
        if with_values:
            op = _operator_at(line, pos)
            if not op:
                raise _caret(line, name_start, 4)
            value, pos = _parse_value(line, _skip_space(line, pos + len(op)))
            attrs.append((name, op, value))
        else:
            attrs.append((name, "", ""))
        pos = _skip_space(line, pos)
        if pos >= len(line):
            break
        if line[pos] != ",":
            raise _caret(line, pos, 4)
        pos = _skip_space(line, pos + 1)
    return attrs


def _parse_value(line: str, pos: int) -> Tuple[str, int]:
    if pos < len(line) and line[pos] in "\"'":
        quote = line[pos]
        end = line.find(quote, pos + 1)
        if end < 0:
            raise _caret(line, pos, 4)
        return line[pos + 1:end], end + 1
    start = pos
    while pos < len(line) and line[pos] not in " \t,":
        pos += 1
    if pos == start:
        raise _caret(line, start, 4)
    return line[start:pos], pos
