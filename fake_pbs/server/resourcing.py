"""Server-side resource rules: which resource names exist and how Resource_List is completed.

The table is ``fake_pbs.model.resources.default_resources()`` (PBS's built-ins plus the site
resources every fake cluster creates) plus the ``resource`` objects qmgr creates
(``state.objects["resource"]``).  Completion of Resource_List (select, place, ncpus, nodect, mem
totals) is ``fake_pbs.model.select.derive_resources``; values are checked with
``fake_pbs.model.ecl`` so that a bad value gets PBS's ``Illegal attribute or resource value``.
"""
from typing import Any, Dict, List, Mapping, Optional

from fake_pbs.model import ecl
from fake_pbs.model import resources as rdefs
from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_UNKRESC, PbsError, detail
from fake_pbs.model.select import derive_resources


def table(custom: Optional[Mapping[str, Any]] = None) -> Dict[str, rdefs.ResourceDef]:
    known = rdefs.default_resources()
    for name, record in (custom or {}).items():
        if name not in known:
            kind = str(record.get("type", "string")) if isinstance(record, dict) else "string"
            flags = str(record.get("flag", "")) if isinstance(record, dict) else ""
            known[name] = rdefs.ResourceDef(name, kind, flags)
    return known


def known(name: str, custom: Optional[Mapping[str, Any]] = None) -> bool:
    return name in table(custom)


def verify(name: str, value: str, custom: Optional[Mapping[str, Any]] = None) -> str:
    """``value`` as PBS stores it; PbsError 15035 (unknown) or 15014 (bad value)."""
    defs = table(custom)
    defn = defs.get(name)
    if defn is None:
        raise PbsError(PBSE_UNKRESC, detail(PBSE_UNKRESC, "Resource_List." + name))
    try:
        return ecl.verify_resource(defn, value)
    except PbsError:
        raise PbsError(PBSE_BADATVAL, detail(PBSE_BADATVAL, "Resource_List." + name))


def derive(resource_list: Dict[str, str],
           custom: Optional[Mapping[str, Any]] = None) -> Dict[str, str]:
    names: List[str] = list(table(custom))
    return derive_resources(dict(resource_list), names)
