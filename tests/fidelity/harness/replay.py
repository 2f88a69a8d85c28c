"""Replaying a transcript set against a fake cluster, case by case, in captured order.

For each case: rewrite the command (job ids golden -> fake, capture paths -> local paths), run it
as the case's user in the case's cwd, normalize both sides and compare.  Read-only commands
(qstat, pbsnodes, tracejob, qselect, qmgr list/print, grep/cat of files) are retried until they
match or a bound passes, since the fake's timing is not PBS's; commands with side effects run
once.  Cases are replayed lazily and in order, so selecting one test replays what precedes it.
"""
import difflib
import os
import re
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple, Union

from fake_pbs.model.attrs import JOB_MANAGER_ONLY

from .cases import Case, LogSpec
from .chains import ChainPlan, chain_plans
from .environment import FidelityEnv, Result
from .jobids import JobMap
from .normalize import Normalizer, mask
from .plan import NEEDS_UNPRIVILEGED_SUBMITTER, SKIPPABLE, Run, Step, Wait, build_plan
from .retry import RETRY_SECONDS, STABLE_SECONDS, Reads, Timeline, read_until
from .timingfree import timing_free

KNOWN_RETRY_SECONDS = 2.0   # read cases listed as known differences: read again this long
WAIT_POLL_SECONDS = 1.0     # waitstate's "sleep 1" between polls
POLL_WAIT_SECONDS = 0.1     # a poll-aligned wait looks often, so the next step follows the poll
POLL_SAFE_AGE = 6.0         # a job this young is at least 4 s from its first resource poll


def _age(qstat_f: str) -> float:
    """Seconds since the job's stime (qstat -f's ctime text), 0 when it has none."""
    found = re.search(r"stime = (.+)", qstat_f)
    if not found:
        return 0.0
    try:
        return time.time() - time.mktime(time.strptime(found.group(1).strip(),
                                                       "%a %b %d %H:%M:%S %Y"))
    except ValueError:
        return 0.0


# ps is left out: its answers (pids, the reading shell itself: extra k03a) change with every
# read, so reading again until a bound passes would only wait.
_READ_ONLY_WORDS = frozenset(
    "qstat tracejob qselect grep cat ls sed od echo head tail find sort wc for do done in"
    " cd true timeout cut uniq".split())
_SEGMENT_SPLIT = re.compile(r"&&|\|\||[|;]|\$\(|\bdo\b|\bthen\b")
_QMGR_READ = re.compile(r"-c\s+['\"]\s*(list|l|print|p)\b")
_PBSNODES_WRITE = re.compile(r"(^|\s)-[a-zA-Z]*[oOrcCN]")


def _defuse_quotes(command: str) -> str:
    """Quoted strings reduced to their first word, so that ``grep 'a|b'`` is not a pipe."""
    def first_word(match: "re.Match[str]") -> str:
        words = re.sub(r"[|;&$()]", " ", match.group(2)).split()
        return match.group(1) + (words[0] if words else "") + match.group(1)
    return re.sub(r"(['\"])(.*?)\1", first_word, command)


def is_read_only(command: str) -> bool:
    """Whether running ``command`` again cannot change the cluster (so it may be retried)."""
    for segment in _SEGMENT_SPLIT.split(_defuse_quotes(command)):
        words = segment.strip().split()
        if not words:
            continue
        word = words[0].strip("()'\"")
        if word.startswith("$") or "=" in word and word.split("=", 1)[0].isidentifier():
            continue  # a variable reference or an assignment
        if word == "pbsnodes" and not _PBSNODES_WRITE.search(segment):
            continue
        if word == "qmgr" and _QMGR_READ.search(segment):
            continue
        if word not in _READ_ONLY_WORDS:
            return False
    return True


@dataclass
class Outcome:
    """What one case gave: ``match``, ``differ``, ``skip`` or ``error``."""

    case: Case
    status: str
    command: str = ""
    expected: str = ""
    got: str = ""
    attempts: int = 0
    detail: str = ""
    seconds: float = 0.0  # wall time of the case and of the steps placed before it
    plateau: float = 0.0  # the longest time a retried output stayed the same, not matching

    def explain(self) -> str:
        """A failure message: what ran, what came back, the diff, and what to do."""
        if self.status == "skip":
            return "skipped: " + self.detail
        if self.status == "error":
            return "%s: the harness could not replay it\n%s" % (self.case.name, self.detail)
        diff = "\n".join(difflib.unified_diff(
            self.expected.splitlines(), self.got.splitlines(), "OpenPBS 23.06.06 (normalized)",
            "fake_pbs (normalized)", lineterm="", n=2))
        return ("%s differs from the transcript after %d attempt(s).\n"
                "ran as %s in %s: %s\n%s\n"
                "Fix fake_pbs so that the normalized outputs agree, or (for an intended "
                "difference) list the case in tests/fidelity/known_differences.py with the reason."
                % (self.case.name, self.attempts, self.case.user, self.case.cwd, self.command,
                   diff))


def render(exit_code: int, stdout: str, stderr: str) -> str:
    """The compared form of a command's result: exit code, stdout and stderr, exactly."""
    return "exit code: %d\n----- stdout\n%s\n----- stderr\n%s" % (exit_code, stdout, stderr)


@dataclass
class Replayer:
    """Replays one set, or one chain of it (chains.py), in order against its own fake cluster
    (started on first use)."""

    set_name: str
    known: Mapping[str, str] = field(default_factory=dict)
    retry_seconds: float = RETRY_SECONDS
    chain: Optional[ChainPlan] = None  # None: the whole set, as one chain
    plan: List[Union[Case, Step]] = field(init=False)
    outcomes: Dict[str, Outcome] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.plan = build_plan(self.set_name) if self.chain is None else list(self.chain.plan)
        self.position = 0
        self.env: Optional[FidelityEnv] = None
        self.fatal: Optional[str] = None
        # Set once a case or step that changes the cluster had to be skipped (no root): every
        # later case of the set is skipped with this reason, never replayed on a history that
        # differs from the capture's.
        self.broken: Optional[str] = None
        self.jobs = JobMap()
        self.normalizer = Normalizer()
        self.timeline = Timeline()
        self.marks: Dict[str, Dict[str, int]] = {}
        self._mark_names = {item.log.mark for item in self.plan
                            if isinstance(item, Case) and item.log is not None and item.log.mark}

    # ---- driving -----------------------------------------------------------------------------

    def cases(self) -> List[Case]:
        return [item for item in self.plan if isinstance(item, Case)]

    def outcome(self, name: str) -> Outcome:
        """The outcome of case ``name``, replaying everything before it first."""
        started = time.monotonic()
        while name not in self.outcomes and self.position < len(self.plan):
            item = self.plan[self.position]
            self.position += 1
            if isinstance(item, Case):
                outcome = self._replay_case(item)
                outcome.seconds = time.monotonic() - started
                started = time.monotonic()
                self.outcomes[item.name] = outcome
            else:
                self._step(item)
        return self.outcomes[name]

    def run_all(self) -> List[Outcome]:
        return [self.outcome(case.name) for case in self.cases()]

    def close(self) -> None:
        if self.env is not None:
            self.env.stop()
            self.env = None

    def _environment(self) -> FidelityEnv:
        if self.env is None and self.fatal is None:
            if self.chain is None:
                env = FidelityEnv(self.set_name)
            else:  # a later chain runs beside the first: homes of its own
                env = FidelityEnv(self.set_name, first_job_seq=self.chain.first_job_seq,
                                  own_homes=not self.chain.first)
            self.env = env
            try:
                env.prepare()
            except Exception as err:  # noqa: BLE001 - reported in every case's outcome
                self.fatal = "cluster set-up failed: %s" % err
            self.normalizer = Normalizer(env.substitutions(), env.host_names())
        if self.fatal is not None or self.env is None:
            raise RuntimeError(self.fatal)
        return self.env

    # ---- steps -------------------------------------------------------------------------------

    def _step(self, step: Step) -> None:
        try:
            env = self._environment()
        except RuntimeError:
            return
        if self.broken is not None:
            return
        if isinstance(step, Run) and step.stands_in_for:
            if env.skip_reason(step.stands_in_for) is None:
                return
        elif step.requires and env.skip_reason(step.requires) is not None:
            self._break_chain(step)
            return
        if isinstance(step, Run):
            if env.skip_reason(step.user) is not None:
                self._break_chain(step)
                return
            result = env.run(step.user, "/home/" + step.user if step.user != "root" else "/root",
                             env.golden_to_local(self.jobs.to_fake_command(step.command), ""))
            if step.golden_stdout:
                self.jobs.learn(step.golden_stdout,
                                self.normalizer.fake_to_golden(result.stdout))
        elif isinstance(step, Wait):
            self._wait(env, step)

    def _break_chain(self, step: Step) -> None:
        """A skipped step that changes the cluster ends the replay of the set (waits do not)."""
        if isinstance(step, Run) and not step.undone and not is_read_only(step.command):
            self.broken = ("the step %r (%s) needs root and changes the cluster: the rest of the "
                           "set replays only as root" % (step.command, step.why))

    def _wait(self, env: FidelityEnv, step: Wait) -> None:
        job = self.jobs.to_fake_command(step.job)
        # the capture script's own bound (waitstate's): a loaded machine's daemons lag behind
        # PBS's (f24's 21 execjob_abort attempts took 67 s there, over 80 s at load 25 here)
        deadline = time.monotonic() + step.timeout
        user = "root" if "root" in env.accounts else "pbsuser"
        if step.poll:
            self._wait_poll(env, user, job, step, deadline)
            return
        while time.monotonic() < deadline:
            result = env.run(user, "/root", "qstat -x -f %s" % job, timeout=30)
            found = re.search(r"job_state = (\S+)", result.stdout)
            state = found.group(1) if found else ""
            if re.fullmatch(step.states, state) or (state == "F" and "F" not in step.states):
                return
            # replay.sh's waitstate polls once a second; each poll is a qstat the server logs
            # (g11's request lines), so the fake is polled the same way.
            time.sleep(WAIT_POLL_SECONDS)

    def _wait_poll(self, env: FidelityEnv, user: str, job: str, step: Wait,
                   deadline: float) -> None:
        """Make the next step follow a resource poll of the job by far enough: a job the mom
        has not polled yet, younger than POLL_SAFE_AGE, is left alone (its first poll is
        ``min_check_poll`` after its start); otherwise wait, with a short poll of qstat, until
        its resources_used.walltime moves (a poll sampled it) or its state leaves
        ``step.states``."""
        first: Optional[str] = None
        while time.monotonic() < deadline:
            result = env.run(user, "/root", "qstat -x -f %s" % job, timeout=30)
            state = re.search(r"job_state = (\S+)", result.stdout)
            if not state or not re.fullmatch(step.states, state.group(1)):
                return
            used = re.search(r"resources_used\.walltime = (\S+)", result.stdout)
            value = used.group(1) if used else ""
            if first is None:
                first = value
                if value in ("", "00:00:00") and _age(result.stdout) < POLL_SAFE_AGE:
                    return
            elif value != first:
                return
            time.sleep(POLL_WAIT_SECONDS)

    # ---- cases -------------------------------------------------------------------------------

    def _replay_case(self, case: Case) -> Outcome:
        try:
            env = self._environment()
        except RuntimeError as err:
            return Outcome(case, "error", detail=str(err))
        if self.broken is not None:
            return Outcome(case, "skip", detail=self.broken)
        reason = env.skip_reason(case.user)
        if reason is None and case.name in NEEDS_UNPRIVILEGED_SUBMITTER and os.geteuid() != 0:
            return Outcome(case, "skip", detail=NEEDS_UNPRIVILEGED_SUBMITTER[case.name])
        if reason is not None:
            if case.log is None and case.name not in SKIPPABLE and not is_read_only(case.command):
                self.broken = ("%s (%s) was skipped and changes the cluster: the rest of the set "
                               "replays only as root" % (case.name, reason))
            return Outcome(case, "skip", detail=reason)
        if case.name in self._mark_names:
            self.marks[case.name] = self._log_sizes(env)
        try:
            if case.log is not None:
                return self._replay_log(env, case, case.log)
            return self._replay_command(env, case)
        except Exception:  # noqa: BLE001 - a harness failure is reported, not raised
            return Outcome(case, "error", detail=traceback.format_exc())

    def _read_bounds(self, case: Case) -> Tuple[float, float, float]:
        """(due, deadline, window) of a read-only case: harness/retry.py."""
        now = time.monotonic()
        if case.name in self.known:  # expected to differ: a short look only
            return now, now + KNOWN_RETRY_SECONDS, STABLE_SECONDS
        due = self.timeline.due(case.time, now)
        return due, due + self.retry_seconds, self.timeline.window(case.time)

    def _replay_command(self, env: FidelityEnv, case: Case) -> Outcome:
        command = env.golden_to_local(self.jobs.to_fake_command(case.command),
                                      case.time[:10].replace("-", ""))
        expected = self.normalizer.golden(render(case.exit_code, case.stdout, case.stderr))
        again = is_read_only(case.command)
        if not again:
            self.timeline.anchor(case.time, time.monotonic())
        due, deadline, window = self._read_bounds(case)

        def read() -> "Tuple[str, JobMap]":
            result = env.run(case.user, case.cwd, command)
            if not env.is_root and case.user != "root":
                result = _as_unprivileged(result)
            jobs, got = self._normalize_result(case, result)
            return got, jobs

        reads: Reads[JobMap] = read_until(read, expected, again=again, due=due,
                                          deadline=deadline, window=window)
        self.jobs = reads.extra
        return Outcome(case, "match" if reads.got == expected else "differ", command, expected,
                       reads.got, reads.attempts, plateau=reads.plateau)

    def _normalize_result(self, case: Case, result: Result) -> "tuple[JobMap, str]":
        jobs = self.jobs.copy()
        fake_text = self.normalizer.fake_to_golden(result.stdout + "\n" + result.stderr)
        jobs.learn(case.stdout + "\n" + case.stderr, fake_text)
        got = self.normalizer.fake(render(result.exit_code, result.stdout, result.stderr), jobs)
        return jobs, got

    # ---- log excerpts ------------------------------------------------------------------------

    def _log_path(self, env: FidelityEnv, daemon: str) -> Path:
        day = time.strftime("%Y%m%d", time.gmtime())
        if daemon == "mom":
            return env.home / "mom_logs" / "vm" / day
        if daemon == "accounting":
            return env.home / "server_priv" / "accounting" / day
        return env.home / ("%s_logs" % daemon) / day

    def _log_lines(self, env: FidelityEnv, daemon: str) -> List[str]:
        try:
            text = self._log_path(env, daemon).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        return text.splitlines()

    def _log_sizes(self, env: FidelityEnv) -> Dict[str, int]:
        return {d: len(self._log_lines(env, d)) for d in ("server", "mom", "sched", "accounting")}

    def _replay_log(self, env: FidelityEnv, case: Case, spec: LogSpec) -> Outcome:
        expected = mask(case.stdout)
        if spec.timing_free:
            expected = timing_free(expected)
        due, deadline, window = self._read_bounds(case)

        def read() -> "Tuple[str, None]":
            got = mask(self._cut_log(env, case, spec))
            return (timing_free(got) if spec.timing_free else got), None

        reads = read_until(read, expected, again=True, due=due, deadline=deadline,
                           window=window)
        return Outcome(case, "match" if reads.got == expected else "differ",
                       "<%s log of the fake, cut like %s>" % (spec.daemon, case.name),
                       expected, reads.got, reads.attempts, plateau=reads.plateau)

    def _cut_log(self, env: FidelityEnv, case: Case, spec: LogSpec) -> str:
        lines = self._log_lines(env, spec.daemon)
        if spec.mark is not None:
            lines = lines[self.marks.get(spec.mark, {}).get(spec.daemon, 0):]
        lines = [self.normalizer.fake_to_golden(line, self.jobs) for line in lines]
        if spec.include:
            lines = [ln for ln in lines if re.search(spec.include, ln)]
        if spec.exclude:
            lines = [ln for ln in lines if not re.search(spec.exclude, ln)]
        if spec.by_objects:
            objects = {_log_object(ln) for ln in case.stdout.splitlines()} - {None}
            lines = [ln for ln in lines if _log_object(ln) in objects]
        if spec.head is not None:
            lines = lines[:spec.head]
        return "".join(ln + "\n" for ln in lines)


# A server line about one hook's file: "Compiling script file: <.../hooks/per_log.PY>",
# "successfully sent hook file .../hooks/eb_reject.HK to vm:15002".
_HOOK_FILE = re.compile(r"/server_priv/hooks/(\w+)\.(?:HK|PY|CF)\b")
# The test compile of an imported script: "Compiling script file: <.../hooks/tmp/
# qmgr_hook<pid><random>.tmp>" names no hook, so a grep of the hooks' names drops it (m02e,
# m08b, m09i, m11k); m09d's kept it, with the compile errors.
_IMPORT_TMP = re.compile(r"/server_priv/hooks/tmp/qmgr_hook\w*\.tmp\b")


# An ordinary user's replay runs every case as the cluster's owner, whom the server counts a
# manager (fake_pbs/server/privilege.py); PBS shows these job attributes to managers only
# (ATR_DFLAG_MGRD), which the captured users were not.
_MANAGER_ONLY_LINE = re.compile(
    r'^ *(?:(?:%s) = .*|"(?:%s)":.*,)\n' % (("|".join(JOB_MANAGER_ONLY),) * 2), re.M)


def _as_unprivileged(result: Result) -> Result:
    """``result`` as a user who is not a manager would have read it: no manager-only lines."""
    return Result(result.exit_code, _MANAGER_ONLY_LINE.sub("", result.stdout), result.stderr)


def _log_object(line: str) -> Optional[str]:
    """The object of a PBS log line (``date;type;daemon;class;OBJECT;message``).

    A ``Server@host`` line that names one hook's file is about that hook: the extra set's
    newlogs grep (the hooks' names) kept those of the group's hooks only -- m04f has
    eb_reject.HK's copy, m08b none of epi_log's or end_log2's, m01e none of pbs_cgroups's.
    """
    fields = line.split(";", 5)
    if len(fields) != 6:
        return None
    if fields[4].startswith("Server@") and _IMPORT_TMP.search(fields[5]):
        return "<the import's test compile>"
    hook = _HOOK_FILE.search(fields[5]) if fields[4].startswith("Server@") else None
    return hook.group(1) if hook else fields[4]


def chain_replayers(set_name: str, known: Mapping[str, str]) -> List[Replayer]:
    """A replayer for each chain of the set (chains.py), in replay order."""
    return [Replayer(set_name, known, chain=chain) for chain in chain_plans(set_name)]
