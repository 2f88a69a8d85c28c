"""Write ``pbs_attributes.tsv``: the names, object and value type of every attribute in
OpenPBS 23.06's definition tables (facts only: no code or prose is carried over).

Run once against an OpenPBS checkout; the TSV is committed and is what the coverage test reads:
``python3 tools/coverage/vendor_pbs.py /work/openpbs-src > tools/coverage/pbs_attributes.tsv``.
The tables: ``src/lib/Libattr/master_{job,svr,queue,node,sched,resv}_attr_def.xml``,
``master_resc_def_all.xml`` and the hook attribute names of ``src/include/hook.h``.
"""
import re
import sys
from pathlib import Path
from typing import Dict, Iterator, Tuple

TABLES = (("job", "job"), ("server", "svr"), ("queue", "queue"), ("node", "node"),
          ("sched", "sched"), ("resv", "resv"))
_DEFINE = re.compile(r'#define\s+(\w+)\s+("[^"]+"|ATTR_\w+)')
_BLOCK = re.compile(r"<attributes([^>]*)>(.*?)</attributes>", re.S)
# rows outside a standard build (PE_MASK is 0 there) or for the client library only
_SKIP = ('flag="ECL"', "PE_MASK")


def _tag(block: str, tag: str) -> str:
    found = re.search(r"<%s>\s*(.*?)\s*</%s>" % (tag, tag), block, re.S)
    return found.group(1) if found else ""


def _name(block: str, macros: Dict[str, str]) -> str:
    """The attribute's name: the server's spelling where the row has SVR/ECL variants."""
    raw = _tag(block, "member_name")
    server = re.search(r"<SVR>\s*(.*?)\s*</SVR>", raw, re.S)
    word = (server.group(1) if server else re.sub(r"<[^>]+>", "", raw)).strip()
    for _ in range(3):  # ATTR_array_indices_submitted is ATTR_J
        word = macros.get(word, word)
    name = word.strip('"')
    return "" if name.startswith("_") else name


def _macros(root: Path) -> Dict[str, str]:
    names: Dict[str, str] = {}
    for header in sorted((root / "src" / "include").glob("*.h")):
        for macro, value in _DEFINE.findall(header.read_text(errors="replace")):
            names.setdefault(macro, value)
    return names


def rows(root: Path) -> Iterator[Tuple[str, str, str]]:
    macros = _macros(root)
    libattr = root / "src" / "lib" / "Libattr"
    for obj, stem in TABLES:
        text = (libattr / ("master_%s_attr_def.xml" % stem)).read_text()
        seen = set()
        for match in _BLOCK.finditer(text):
            if any(skip in match.group(1) for skip in _SKIP):
                continue
            block = match.group(2)
            name = _name(block, macros)
            if not name or name in seen:
                continue
            seen.add(name)
            yield obj, name, _type(block)
    text = (libattr / "master_resc_def_all.xml").read_text()
    seen = set()
    for match in _BLOCK.finditer(text):
        name = _name(match.group(2), macros)
        if name and name not in seen and name != "|unknown|" and not any(
                skip in match.group(1) for skip in _SKIP):
            seen.add(name)
            yield "resource", name, _type(match.group(2))
    hook_h = (root / "src" / "include" / "hook.h").read_text()
    for name in re.findall(r'#define\s+HOOKATT_\w+\s+"([^"]+)"', hook_h):
        yield "hook", name, "hook"


def _type(block: str) -> str:
    raw = _tag(block, "member_at_type")
    server = re.search(r"<SVR>\s*(.*?)\s*</SVR>", raw, re.S)
    kind = (server.group(1) if server else raw).replace("ATR_TYPE_", "").lower()
    if _tag(block, "member_at_decode") == "decode_time":
        kind = "time"
    return kind


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/openpbs-src")
    print("# object\tattribute\ttype  (OpenPBS 23.06 definition tables; "
          "tools/coverage/vendor_pbs.py)")
    for obj, name, kind in rows(root):
        print("%s\t%s\t%s" % (obj, name, kind))


if __name__ == "__main__":
    main()
