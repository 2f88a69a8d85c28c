"""``job_sort_formula``: the scheduler's job priority as an arithmetic expression.

PBS checks the formula when it is set (server/sched_func.c ``validate_job_formula``: a
Python syntax error is 15123, a name that is neither a resource nor one of the formula's own
terms 15124, a resource that is not numeric 15125) and the scheduler evaluates it for each job
(job_info.cpp ``formula_evaluate``) over the numeric resources of its ``Resource_List`` (a
missing one is 0; sizes in kb, times in seconds) and the terms below; an error makes the value
0.  PBS hands the text to Python's ``eval``; the fake evaluates only what a formula is made of:
numbers, names, arithmetic, comparisons, ``and``/``or``/``not``, ``x if c else y`` and calls of
``math``'s functions and ``abs``, ``min``, ``max``, ``round``, ``int``, ``float``.  Anything
else is refused as a bad format (docs/differences.md).
"""
import ast
import math
import operator
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from fake_pbs.model.errors import (PBSE_BAD_FORMULA, PBSE_BAD_FORMULA_KW, PBSE_BAD_FORMULA_TYPE,
                                   PbsError)
from fake_pbs.model.preempt import walltime_seconds
from fake_pbs.model.select import parse_size, size_kb

#: the formula's own terms besides resources (pbs_ifl.h FORMULA_*)
TERMS = ("eligible_time", "queue_priority", "job_priority", "fair_share_perc",
         "fair_share_perc_dep", "fair_share_tree_usage", "fair_share_factor", "accrue_type")
#: resource types PBS counts as numeric (validate_job_formula's globals2)
NUMERIC_TYPES = frozenset(("long", "size", "float", "time", "short", "ll"))

_FUNCTIONS: Dict[str, Callable[..., Any]] = {
    name: getattr(math, name) for name in dir(math)
    if not name.startswith("_") and callable(getattr(math, name))
    and name not in ("factorial", "comb", "perm")}  # exact integers of any size: unbounded
_FUNCTIONS.update({"abs": abs, "min": min, "max": max, "round": round, "int": int,
                   "float": float})
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}

_BINARY: Dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow}
_UNARY: Dict[type, Callable[[Any], Any]] = {
    ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_}
_COMPARE: Dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge}
_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
            ast.Call, ast.Name, ast.Load, ast.Constant, ast.And, ast.Or,
            *_BINARY, *_UNARY, *_COMPARE)


# a formula is short: this bounds its cost (PBS's qmgr line is limited too)
_MAX_LENGTH = 4096
_MAX_POWER = 10000


def parse(formula: str) -> ast.Expression:
    """The formula's tree; 15123 for what is not an arithmetic expression."""
    try:
        if len(formula) > _MAX_LENGTH:
            raise SyntaxError("too long")
        tree = ast.parse(formula.strip(), mode="eval")
    except (SyntaxError, ValueError):
        raise PbsError(PBSE_BAD_FORMULA) from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise PbsError(PBSE_BAD_FORMULA)
        if isinstance(node, ast.Constant) and (
                isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
            raise PbsError(PBSE_BAD_FORMULA)
        if isinstance(node, ast.Call) and (node.keywords or not isinstance(node.func, ast.Name)
                                           or node.func.id not in _FUNCTIONS):
            raise PbsError(PBSE_BAD_FORMULA)
    return tree


def validate(formula: str, resource_types: Mapping[str, str]) -> None:
    """What ``validate_job_formula`` refuses (``resource_types``: every defined resource's
    type): 15123 bad format, 15124 an unknown name, 15125 a resource that is not numeric."""
    tree = parse(formula)
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    called = {node.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    for name in sorted(names - called):
        if name in TERMS or name in _CONSTANTS:
            continue
        kind = resource_types.get(name)
        if kind is None:
            raise PbsError(PBSE_BAD_FORMULA_KW)
    for name in sorted(names - called):
        kind = resource_types.get(name)
        if kind is not None and name not in TERMS and kind not in NUMERIC_TYPES:
            raise PbsError(PBSE_BAD_FORMULA_TYPE)


class Evaluator:
    """One formula, evaluated for many jobs (parsed once)."""

    def __init__(self, formula: str) -> None:
        self.tree: Optional[ast.Expression]
        try:
            self.tree = parse(formula)
        except PbsError:
            self.tree = None

    def value(self, values: Mapping[str, float]) -> Tuple[float, str]:
        """The job's value and, when it could not be computed (then 0), why."""
        if self.tree is None:
            return 0.0, "invalid formula"
        try:
            return float(_eval(self.tree.body, values)), ""
        except Exception as err:  # PBS: any Python exception gives 0
            return 0.0, str(err) or type(err).__name__


def _eval(node: ast.AST, values: Mapping[str, float]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in values:
            return values[node.id]
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        return 0  # a resource the job does not request
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, values), _eval(node.right, values)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_POWER:
            raise OverflowError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_eval(node.operand, values))
    if isinstance(node, ast.BoolOp):
        result = _eval(node.values[0], values)
        for item in node.values[1:]:
            if isinstance(node.op, ast.And) and not result:
                return result
            if isinstance(node.op, ast.Or) and result:
                return result
            result = _eval(item, values)
        return result
    if isinstance(node, ast.Compare):
        left = _eval(node.left, values)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, values)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, values) else node.orelse, values)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return _FUNCTIONS[node.func.id](*[_eval(arg, values) for arg in node.args])
    raise ValueError("not a formula")


def _number(kind: Optional[str], text: str) -> Optional[float]:
    """A request's amount as the formula sees it (sizes in kb, times in seconds); None for a
    value that is not a number (a string resource)."""
    try:
        if kind == "size" or (kind is None and text[-1:].lower() in ("b", "w")):
            return float(size_kb(parse_size(text)))
        if kind == "time" or (kind is None and ":" in text):
            return float(walltime_seconds(text))
        if kind in (None, "long", "float", "short", "ll"):
            return float(text)
    except (ValueError, PbsError):
        return None
    return None


def job_values(job: Mapping[str, str], queue_priority: float,
               kinds: Mapping[str, str]) -> Dict[str, float]:
    """The formula's names for ``job`` (formula_evaluate): its numeric ``Resource_List``
    amounts (``kinds``: resource types; a site's resource of unknown type counts when its
    value reads as a number) and the terms.  The fake keeps no fair share tree and accrues no
    eligible time (eligible_time_enable is refused): those terms are the job's stored values,
    else 0."""
    values: Dict[str, float] = {}
    for key, text in job.items():
        if key.startswith("Resource_List.") and text:
            name = key[len("Resource_List."):]
            amount = _number(kinds.get(name), str(text))
            if amount is not None:
                values[name] = amount
    values["queue_priority"] = queue_priority
    values["job_priority"] = _number("long", job.get("Priority", "0") or "0") or 0.0
    values["eligible_time"] = _number("time", job.get("eligible_time", "0") or "0") or 0.0
    values["accrue_type"] = _number("long", job.get("accrue_type", "0") or "0") or 0.0
    for term in TERMS:
        values.setdefault(term, 0.0)
    return values
