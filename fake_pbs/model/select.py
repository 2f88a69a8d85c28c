"""The ``select`` and ``place`` resources, sizes, and what the server derives from them at queuejob.

PBS keeps a job's request in ``Resource_List``; after a job is queued the server has always filled
in ``select``, ``place``, ``nodect`` and the job-wide sums of the chunk resources (OpenPBS
``set_select_and_place`` and ``set_chunk_sum``; transcripts j11f, i02c, j09b, j10b/c)::

    (no -l)                     -> ncpus=1 nodect=1 place=pack select=1:ncpus=1
    -l ncpus=2                  -> ncpus=2 nodect=1 place=pack select=1:ncpus=2
    -l mem=1gb                  -> mem=1gb ncpus=1 nodect=1 place=pack select=1:mem=1gb:ncpus=1
    -l select=2:ncpus=1         -> ncpus=2 nodect=2 place=free select=2:ncpus=1
    -l select=1:ncpus=2:mpiprocs=2 -> mpiprocs=2 ncpus=2 nodect=1 place=free

Pure functions only; errors are :class:`PbsError` with PBS's code and text.
"""
import re
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from fake_pbs.model.errors import PBSE_BADATVAL, PBSE_UNKRESC, PbsError, detail

__all__ = [
    "Size", "Chunk", "Place", "parse_size", "format_size", "size_kb", "parse_select",
    "parse_place", "derive_resources", "SUMMED_RESOURCES", "SIZE_RESOURCES", "chunk_default",
]

# Resources the server sums over the chunks into job-wide limits (flags RASSN/ANASSN/FNASSN in
# master_resc_def_all.xml, plus the site's consumable ngpus/nmics).
SUMMED_RESOURCES = frozenset({
    "ncpus", "mem", "vmem", "mpiprocs", "naccelerators", "accelerator_memory", "hbmem", "hpm",
    "ngpus", "nmics",
})

# Job-wide resources that move into the generated select when no select is given (ATR_DFLAG_CVTSLT
# and host-level site resources).
_CHUNK_LEVEL = frozenset({
    "ncpus", "mem", "vmem", "mpiprocs", "ompthreads", "naccelerators", "accelerator",
    "accelerator_model", "accelerator_memory", "accelerator_group", "hbmem", "arch", "host",
    "vnode", "nchunk", "vntype", "aoe", "eoe", "ngpus", "nmics",
})

SIZE_RESOURCES = frozenset({
    "mem", "vmem", "pmem", "pvmem", "file", "accelerator_memory", "hbmem",
})

_SHIFTS = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40, "p": 50}
_SUFFIX = {0: "b", 10: "kb", 20: "mb", 30: "gb", 40: "tb", 50: "pb"}
_SIZE_RE = re.compile(r"^\s*(\d+)([kmgtpKMGTP]?)([bBwW]?)\s*$")
_RES_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_PREFIX = "Resource_List."


class Size(NamedTuple):
    """A PBS size: ``value << shift`` bytes (``1gb`` is ``Size(1, 30)``)."""

    value: int
    shift: int

    def to_bytes(self) -> int:
        return self.value << self.shift

    def __add__(self, other: object) -> "Size":
        if not isinstance(other, Size):
            return NotImplemented
        # PBS adds sizes in the smaller of the two units, so 1gb + 512mb = 1536mb.
        shift = min(self.shift, other.shift)
        total = (self.value << (self.shift - shift)) + (other.value << (other.shift - shift))
        return Size(total, shift)

    def times(self, factor: int) -> "Size":
        return Size(self.value * factor, self.shift)


def parse_size(text: str) -> Size:
    """Parse ``1gb``, ``100mb``, ``1048576`` (bytes), ``2KB``; words (``w``) count 8 bytes."""
    match = _SIZE_RE.match(text)
    if match is None:
        raise ValueError("illegal size %r" % text)
    value, unit, kind = int(match.group(1)), match.group(2).lower(), match.group(3).lower()
    if kind == "w":
        value *= 8
    return Size(value, _SHIFTS[unit])


def format_size(size: Size) -> str:
    """PBS's encoding of a size: the number and its unit, bytes as ``b`` (``1048576b``)."""
    return "%d%s" % (size.value, _SUFFIX[size.shift])


def size_kb(size: Size) -> int:
    """The size in kilobytes, rounded up as the scheduler does."""
    return (size.to_bytes() + 1023) // 1024


class Chunk(NamedTuple):
    """One ``N:res=val:...`` term of a select: ``copies`` of ``resources`` (in typed order)."""

    copies: int
    resources: Tuple[Tuple[str, str], ...]

    def get(self, name: str, default: Optional[str] = None) -> Optional[str]:
        for key, value in self.resources:
            if key == name:
                return value
        return default

    def as_dict(self) -> Dict[str, str]:
        return dict(self.resources)


class Place(NamedTuple):
    """A parsed ``place``: arrangement, sharing and grouping (``scatter:excl:group=switch``)."""

    arrangement: str = "free"
    sharing: str = ""
    group: str = ""

    @property
    def exclusive(self) -> bool:
        return self.sharing in ("excl", "exclhost")


def _bad(attr: str) -> PbsError:
    return PbsError(PBSE_BADATVAL, detail(PBSE_BADATVAL, "Resource_List." + attr))


def _split_chunk_terms(text: str) -> List[str]:
    """Split a chunk on ``:`` outside quotes (values may be quoted: ``arch="a:b"``)."""
    terms: List[str] = []
    current: List[str] = []
    quote = ""
    for char in text:
        if quote:
            if char == quote:
                quote = ""
            else:
                current.append(char)
        elif char in "\"'":
            quote = char
        elif char == ":":
            terms.append("".join(current))
            current = []
        else:
            current.append(char)
    if quote:
        raise ValueError("unclosed quote")
    terms.append("".join(current))
    return terms


def _parse_chunk(text: str, known: Optional[Sequence[str]]) -> Chunk:
    terms = _split_chunk_terms(text)
    count = 1
    if terms and terms[0].isdigit():
        count = int(terms.pop(0))
    elif not terms or "=" not in terms[0]:
        raise ValueError("chunk without count or resource")
    pairs: List[Tuple[str, str]] = []
    for term in terms:
        name, sep, value = term.partition("=")
        if not sep or not _RES_NAME_RE.match(name) or value == "":
            raise ValueError("bad resource term %r" % term)
        if known is not None and name not in known:
            raise PbsError(PBSE_UNKRESC, detail(PBSE_UNKRESC, name, ": "))
        if name in SIZE_RESOURCES:
            parse_size(value)
        elif name in SUMMED_RESOURCES and not value.isdigit():
            raise ValueError("bad number %r" % value)
        pairs.append((name, value))
    return Chunk(count, tuple(pairs))


def parse_select(text: str, known: Optional[Sequence[str]] = None) -> List[Chunk]:
    """Parse ``N:res=val:res=val+M:...``; raise PBSE_BADATVAL (15014) as PBS does for bad ones.

    ``known``, when given, lists the resource names the server knows: another name raises
    PBSE_UNKRESC with ``Unknown resource: <name>`` (as qsub prints it).
    """
    if not text or text.strip() != text:
        raise _bad("select")
    try:
        chunks = [_parse_chunk(part, known) for part in text.split("+")]
    except ValueError:
        raise _bad("select") from None
    if sum(chunk.copies for chunk in chunks) <= 0:
        raise _bad("select")
    return chunks


_ARRANGEMENTS = ("pack", "scatter", "free", "vscatter")
_SHARINGS = ("excl", "shared", "exclhost")


def parse_place(text: str) -> Place:
    """Parse ``pack|scatter|free|vscatter``, ``excl|shared|exclhost`` and ``group=res``."""
    arrangement, sharing, group = "", "", ""
    for word in text.split(":"):
        if word in _ARRANGEMENTS and not arrangement:
            arrangement = word
        elif word in _SHARINGS and not sharing:
            sharing = word
        elif word.startswith("group=") and not group and _RES_NAME_RE.match(word[6:]):
            group = word[6:]
        else:
            raise _bad("place")
    return Place(arrangement or "free", sharing, group)


def chunk_default(chunk: Chunk, name: str) -> int:
    """An integer chunk resource with PBS's per-chunk defaults (``default_chunk.ncpus = 1``)."""
    value = chunk.get(name)
    if value is not None:
        return int(value)
    return 1 if name == "ncpus" else 0


def _nodes_to_select(nodes: str) -> str:
    """Convert the old ``-l nodes=N[:ppn=M]`` form as ``cvt_nodespec_to_select`` does."""
    parts = []
    for term in nodes.split("+"):
        words = term.split(":")
        count = words.pop(0)
        if not count.isdigit() or int(count) <= 0:
            raise _bad("nodes")
        ppn = 1
        for word in words:
            if word.startswith("ppn=") and word[4:].isdigit():
                ppn = int(word[4:])
            else:
                raise _bad("nodes")
        parts.append("%s:ncpus=%d:mpiprocs=%d" % (count, ppn, ppn))
    return "+".join(parts)


def _normalise_value(name: str, value: str) -> str:
    if name in SIZE_RESOURCES:
        try:
            return format_size(parse_size(value))
        except ValueError:
            raise _bad(name) from None
    return value


def derive_resources(resource_list: Mapping[str, str],
                     known: Optional[Sequence[str]] = None) -> Dict[str, str]:
    """What the server stores as ``Resource_List`` after queuejob, given what qsub sent.

    Keys may be bare (``ncpus``) or prefixed (``Resource_List.ncpus``); the result uses the same
    style and is sorted by name as PBS keeps the list.
    """
    prefixed = any(key.startswith(_PREFIX) for key in resource_list)
    res = {(key[len(_PREFIX):] if key.startswith(_PREFIX) else key): value
           for key, value in resource_list.items()}
    res = {name: _normalise_value(name, value) for name, value in res.items()}
    if "place" in res:
        parse_place(res["place"])
    if "select" not in res:
        if "nodes" in res:
            res["select"] = _nodes_to_select(res["nodes"])
            res.setdefault("place", "scatter")
        else:
            res.setdefault("ncpus", "1")
            terms = ["%s=%s" % (name, _quote(res[name]))
                     for name in sorted(res, key=str.lower) if name in _CHUNK_LEVEL]
            res["select"] = ":".join(["1"] + terms)
            res.setdefault("place", "pack")
    else:
        res.setdefault("place", "free")
    chunks = parse_select(res["select"], known)
    res.update(_chunk_sums(chunks))
    res["nodect"] = str(sum(chunk.copies for chunk in chunks))
    ordered = {name: res[name] for name in sorted(res, key=str.lower)}
    if prefixed:
        return {_PREFIX + name: value for name, value in ordered.items()}
    return ordered


def _quote(value: str) -> str:
    if any(char in value for char in "\"'+:=()"):
        quote = "'" if '"' in value else '"'
        return quote + value + quote
    return value


def _chunk_sums(chunks: Sequence[Chunk]) -> Dict[str, str]:
    sizes: Dict[str, Size] = {}
    numbers: Dict[str, int] = {}
    for chunk in chunks:
        for name, value in chunk.resources:
            if name not in SUMMED_RESOURCES:
                continue
            if name in SIZE_RESOURCES:
                part = parse_size(value).times(chunk.copies)
                sizes[name] = sizes[name] + part if name in sizes else part
            else:
                numbers[name] = numbers.get(name, 0) + int(value) * chunk.copies
    sums = {name: format_size(size) for name, size in sizes.items()}
    sums.update({name: str(number) for name, number in numbers.items()})
    return sums
