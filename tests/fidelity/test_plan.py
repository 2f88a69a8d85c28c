"""The implied steps of harness/plan.py against what later transcripts show (no cluster needed)."""
import re
from typing import Dict, List, Sequence, Union

from .harness.cases import Case, load_set
from .harness.chains import CHAINS, chain_plans
from .harness.plan import Run, Step, build_plan

_DIRECTIVE = re.compile(r"qmgr -c '([^']*)'")
_HOOK_VERB = re.compile(r"^(create|delete|set) hook (\w+)")
_ENABLED = re.compile(r"\benabled ?= ?(true|false)\b")


def _hook_states(until: str, plan: Sequence[Union[Case, Step]] = ()) -> Dict[str, bool]:
    """Hooks and their ``enabled`` after the plan's qmgr commands, cases and steps (the extra
    set's by default), up to ``until`` (the case itself excluded)."""
    hooks: Dict[str, bool] = {}
    for item in plan or build_plan("extra"):
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


def _cases(plan: Sequence[Union[Case, Step]]) -> List[str]:
    return [item.name for item in plan if isinstance(item, Case)]


def test_chains_replay_every_case_once_in_order() -> None:
    # harness/chains.py: cutting a set into chains drops no case and reorders none.
    for set_name in CHAINS:
        whole = _cases(build_plan(set_name))
        assert [name for c in chain_plans(set_name) for name in _cases(c.plan)] == whole


def test_a_log_excerpt_is_cut_in_the_chain_of_its_mark() -> None:
    # A log excerpt is cut from the lines after its mark case: both on the same cluster.
    for chain in chain_plans("release"):
        names = set(_cases(chain.plan))
        marks = {c.log.mark for c in chain.cases() if c.log is not None and c.log.mark}
        assert marks <= names, chain.name


def test_each_chain_starts_with_the_hooks_the_whole_chain_has_there() -> None:
    # The prelude of a later chain rebuilds the hooks (and their enabled flags) that the release
    # set's single chain has at the cut; f21-f24 and g11 show the hooks' runs and copies.
    whole = build_plan("release")
    for chain in chain_plans("release")[1:]:
        first = chain.cases()[0].name
        assert _hook_states(first, chain.plan) == _hook_states(first, whole), chain.name


def test_each_chain_numbers_jobs_from_the_capture_s_next_id() -> None:
    # The first qsub of a later chain prints the id the capture's did (jobids.py maps the rest).
    chains = chain_plans("release")
    for at, chain in enumerate(chains[1:], 1):
        ids = [int(m) for earlier in chains[:at] for item in earlier.plan
               if isinstance(item, (Case, Run))
               for m in re.findall(r"^(\d+)\.vm$", item.stdout if isinstance(item, Case)
                                   else item.golden_stdout, re.M)]
        assert chain.first_job_seq == max(ids) + 1, chain.name
