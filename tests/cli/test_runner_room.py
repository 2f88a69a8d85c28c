"""The command runner is one room below the commands (docs/design.md, "Layers"): it imports
the commands, and nothing of the package imports it, so there is no import circle through
``control`` and ``cli`` (the runner is started by module name, ``python -S -m
fake_pbs.runner``)."""
import ast
from pathlib import Path
from typing import Dict, List

PACKAGE = Path(__file__).resolve().parent.parent.parent / "fake_pbs"


def _imports(path: Path) -> List[str]:
    names: List[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend("%s.%s" % (node.module, alias.name) for alias in node.names)
    return names


def test_nothing_outside_the_runner_imports_it() -> None:
    found: Dict[str, List[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if PACKAGE / "runner" in path.parents:
            continue
        hits = [name for name in _imports(path)
                if name == "fake_pbs.runner" or name.startswith("fake_pbs.runner.")]
        if hits:
            found[str(path.relative_to(PACKAGE))] = hits
    assert not found, found


def test_the_runner_reaches_no_private_name_of_another_module() -> None:
    """The runner resets the commands' caches through their public functions only."""
    for path in (PACKAGE / "runner").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                private = node.attr.startswith("_") and not node.attr.startswith("__")
                assert not (private and node.value.id in ("common", "jobctl", "protocol")), (
                    path.name, node.value.id, node.attr)
