"""Pure renderers of the read-side commands: PBS data in, the exact text PBS prints out.

Each module takes attribute pairs in the order the server sent them (``[[name, value], ...]``,
resources as flat ``"Resource_List.ncpus"`` keys) and returns text; none does I/O or reads the
clock (times are passed in).  Modules are imported one by one by the commands, so this package
imports nothing on its own: command start-up stays cheap.
"""
