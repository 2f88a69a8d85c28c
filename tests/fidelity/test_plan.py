"""The implied steps of harness/plan.py against what later transcripts show (no cluster needed)."""
import re
from typing import Dict

from .harness.cases import Case, load_set
from .harness.plan import Run, build_plan

_DIRECTIVE = re.compile(r"qmgr -c '([^']*)'")
_HOOK_VERB = re.compile(r"^(create|delete|set) hook (\w+)")
_ENABLED = re.compile(r"\benabled ?= ?(true|false)\b")


def _hook_states(until: str) -> Dict[str, bool]:
    """Hooks and their ``enabled`` after the plan's qmgr commands, cases and steps, up to
    ``until`` (the case itself excluded)."""
    hooks: Dict[str, bool] = {}
    for item in build_plan("extra"):
        if isinstance(item, Case) and item.name == until:
            break
        command = item.command if isinstance(item, (Case, Run)) else ""
        for directive in _DIRECTIVE.findall(command):
            found = _HOOK_VERB.match(directive)
            if found is None:
                continue
            verb, name = found.groups()
            flag = _ENABLED.search(directive)
            enabled = flag.group(1) if flag else ""
            if verb == "delete":
                hooks.pop(name, None)
            elif verb == "create":
                hooks[name] = enabled != "false"
            elif enabled and name in hooks:
                hooks[name] = enabled == "true"
    return hooks


def test_m_section_steps_leave_the_hooks_m10n_lists() -> None:
    # m10n (qmgr -c 'list hook'): the capture's pbs_cgroups, every m hook disabled, the m09
    # hooks deleted.  A missing disable or delete step shows here, before any replay.
    case = next(c for c in load_set("extra") if c.name == "m10n_list_hook_all")
    listed = dict(re.findall(r"(?m)^Hook (\w+)\n    type = \w+\n    enabled = (\w+)", case.stdout))
    assert listed, "m10n lists hooks"
    replayed = _hook_states("m10n_list_hook_all")
    assert {name: enabled == "true" for name, enabled in listed.items()} == replayed
