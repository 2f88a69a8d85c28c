"""Job sequence numbers: pairing the transcript's numbers with the fake's, and rewriting them.

Real PBS and the fake number their jobs differently (PBS spends a number on some rejected
submissions; the extra set starts at 323).  The harness pairs the numbers in order of first
appearance: when a transcript's output first mentions a number the map does not know yet, and the
fake's output at the same place first mentions an unknown number, the two belong to the same job.
Commands are rewritten golden -> fake before they run; outputs are rewritten fake -> golden before
they are compared.
"""
import re
from typing import Callable, Dict, List, Match, Optional, Pattern, Set

# Commands whose bare numeric arguments are job ids (``qstat 339``, ``qdel 999``).
JOB_COMMANDS = frozenset(
    "qstat qdel qhold qrls qsig qrerun qalter qrun qmove tracejob qorder".split())
# Words after which the next word starts a new command in a shell line.
_COMMAND_STARTERS = frozenset(["|", ";", "&&", "||", "$(", "do", "then", "else", "("])


def id_pattern(server: str) -> Pattern[str]:
    """A job number written as ``N.server``, ``N[...]`` or ``N[...].server``."""
    srv = re.escape(server)
    return re.compile(
        r"(?<![\w\-\[])(\d+)(?=\[[^\]\s]*\](?:\." + srv + r")?(?![\w\-])|\." + srv + r"(?![\w\-]))")


# A job number as the suffix of a default output file name: ``hello.o13``, ``arr.e339.2``.
SUFFIX_RE = re.compile(r"(?<=\w\.[oe])(\d+)(?![\w\-])")


# ``pbsnodes -S -j``'s rows name their jobs by bare number in the last column (``413``,
# ``413,414``; n02u, n03c): vnode, state, njobs, run, susp, four free/total pairs, jobs.
_NODE_JOBS_ROW = re.compile(
    r"(?m)^(\S+ +\S+ +\d+ +\d+ +\d+(?: +\S+/\S+){4} +)(\d+(?:\[\d*\])?(?:,\d+(?:\[\d*\])?)*)( *)$")
_NODE_JOB = re.compile(r"(?<![\d\[])\d+")


def _node_job_numbers(text: str) -> List[str]:
    return [number for row in _NODE_JOBS_ROW.finditer(text)
            for number in _NODE_JOB.findall(row.group(2))]


def _sub_node_jobs(text: str, replace: Callable[[str], str]) -> str:
    def row(match: Match[str]) -> str:
        jobs = _NODE_JOB.sub(lambda number: replace(number.group(0)), match.group(2))
        return match.group(1) + jobs + match.group(3)
    return _NODE_JOBS_ROW.sub(row, text)


def numbers_in_order(text: str, server: str) -> List[str]:
    """The job numbers of ``text`` in order of first appearance, each once."""
    seen: List[str] = []
    found = [(m.start(), m.group(1)) for m in id_pattern(server).finditer(text)]
    for row in _NODE_JOBS_ROW.finditer(text):
        found.extend((row.start(2) + m.start(), m.group(0))
                     for m in _NODE_JOB.finditer(row.group(2)))
    for _position, number in sorted(found):
        if number not in seen:
            seen.append(number)
    return seen


class JobMap:
    """A one-to-one map between transcript job numbers and fake job numbers."""

    def __init__(self, server: str = "vm") -> None:
        self.server = server
        self.golden_to_fake: Dict[str, str] = {}
        self.fake_to_golden: Dict[str, str] = {}
        # numbers paired with themselves as jobs that exist on neither side (to_fake_command)
        self.absent: Set[str] = set()

    def copy(self) -> "JobMap":
        other = JobMap(self.server)
        other.golden_to_fake = dict(self.golden_to_fake)
        other.fake_to_golden = dict(self.fake_to_golden)
        other.absent = set(self.absent)
        return other

    def add(self, golden: str, fake: str) -> None:
        if golden in self.golden_to_fake or fake in self.fake_to_golden:
            return
        self.golden_to_fake[golden] = fake
        self.fake_to_golden[fake] = golden

    def learn(self, golden_text: str, fake_text: str) -> bool:
        """Pair the numbers neither side knows yet, in order of first appearance.

        Pairs only when both sides mention the same count of unknown numbers: otherwise the outputs
        differ in substance and a pairing would be a guess.  Returns whether anything was paired.
        """
        new_golden = [n for n in numbers_in_order(golden_text, self.server)
                      if n not in self.golden_to_fake]
        new_fake = [n for n in numbers_in_order(fake_text, self.server)
                    if n not in self.fake_to_golden]
        if not new_golden or len(new_golden) != len(new_fake):
            return False
        for golden, fake in zip(new_golden, new_fake):
            self.add(golden, fake)
        return True

    def to_golden(self, fake_text: str) -> str:
        """Rewrite the fake's job numbers as the transcript's; unknown ones are marked."""
        def ident(match: Match[str]) -> str:
            number = match.group(1)
            return self.fake_to_golden.get(number, "<unpaired:%s>" % number)
        text = id_pattern(self.server).sub(ident, fake_text)
        text = _sub_node_jobs(
            text, lambda number: self.fake_to_golden.get(number, "<unpaired:%s>" % number))
        return _sub_known(SUFFIX_RE, text, self.fake_to_golden.get)

    def to_fake_command(self, command: str) -> str:
        """Rewrite the transcript's job numbers in a shell command line as the fake's.

        A number the command names above every number paired so far is a job that exists on
        neither side (``depend=afterok:9999.vm``, ``qhold 9999``: j05q, j05y): it runs
        unchanged, so it names the same nonexistent job on both sides and pairs with itself.
        A number at or below the highest paired one is left unpaired: it may be a job whose
        pairing failed, and pairing it with itself could hide a real difference.
        """
        self._pair_future(command)
        text = _sub_known(id_pattern(self.server), command, self.golden_to_fake.get)
        text = _sub_known(SUFFIX_RE, text, self.golden_to_fake.get)
        return _rewrite_bare_ids(text, self.golden_to_fake.get)

    def _pair_future(self, command: str) -> None:
        known = [int(n) for n in list(self.golden_to_fake) + list(self.fake_to_golden)
                 if n not in self.absent]
        if not known:
            return  # nothing paired yet: no bound tells a future job from a past one
        ceiling = max(known)
        named = numbers_in_order(command, self.server) + _bare_ids(command)
        for number in named:
            if (int(number) > ceiling and number not in self.golden_to_fake
                    and number not in self.fake_to_golden):
                self.add(number, number)
                self.absent.add(number)


def _sub_known(pattern: Pattern[str], text: str,
               lookup: Callable[[str], Optional[str]]) -> str:
    def replace(match: Match[str]) -> str:
        found = lookup(match.group(1))
        return found if found is not None else match.group(0)
    return pattern.sub(replace, text)


_TOKEN_RE = re.compile(r"\$\(|&&|\|\||[|;()]|[^\s|;()&]+")
_BARE_RE = re.compile(r"^(['\"]?)(\d+)(['\"]?)$")
_DEPEND_RE = re.compile(r"(?<=:)(\d+)(?=[:,\s'\"]|$)")


def _rewrite_bare_ids(command: str, lookup: Callable[[str], Optional[str]]) -> str:
    """Rewrite bare numbers that are job ids: arguments of job commands, ``depend=afterok:N``."""
    pieces: List[str] = []
    position = 0
    current: Optional[str] = None
    expect_command = True
    previous = ""
    for match in _TOKEN_RE.finditer(command):
        token = match.group(0)
        replacement = token
        if token in _COMMAND_STARTERS:
            expect_command = True
        elif expect_command:
            current = token.rsplit("/", 1)[-1]
            expect_command = False
        else:
            bare = _BARE_RE.match(token)
            found = (lookup(bare.group(2)) if bare and current in JOB_COMMANDS
                     and not previous.startswith("-") else None)
            if bare and found is not None:
                replacement = bare.group(1) + found + bare.group(3)
            elif "depend=" in token:
                replacement = _sub_known(_DEPEND_RE, token, lookup)
        pieces.append(command[position:match.start()])
        pieces.append(replacement)
        position = match.end()
        previous = token
    pieces.append(command[position:])
    return "".join(pieces)


def _bare_ids(command: str) -> List[str]:
    """The bare job numbers of a command line (job command arguments, ``depend=...:N``)."""
    found: List[str] = []

    def record(number: str) -> Optional[str]:
        found.append(number)
        return None
    _rewrite_bare_ids(command, record)
    return found


def numbers_mentioned(text: str, server: str) -> Set[str]:
    return set(numbers_in_order(text, server))
