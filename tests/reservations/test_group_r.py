"""Replay of the group R transcripts (advance and standing reservations before their windows,
their errors, pbs_ralter and pbs_rdel) of ../shared/fidelity/openpbs-23.06.06-resv, copied to
tests/data/fidelity/openpbs-23.06.06-resv.

The cases run in capture order (capture.sh) on a fake cluster whose one host is ``vm`` with 2
cpus and which numbers jobs from the capture's 875, so ids are the capture's.  Each
pbs_rsub/pbs_ralter time (``-R``/``-E``, in the case's own form) is moved by the time between
the capture's first case and the replay's: every reservation keeps its place relative to "now"
(capture.sh's times are relative to now).  Output is compared after dates, clock times and the
user (the replay runs as the user running the tests, standing for pbsuser2) are normalized and
runs of blanks folded (pbs_rstat's User column is as wide as the name).  The windows, jobs
killed at their end and rdel of running ones are tests/reservations/test_server_cluster.py's
(the capture waited minutes for them).  The cases not replayed are NOT_REPLAYED's, each with
its reason.
"""
import calendar
import json
import os
import pwd
import re
import time
from pathlib import Path
from typing import Dict, Iterator, Tuple

import pytest

from fake_pbs.testing import FakeCluster

pytestmark = pytest.mark.cluster  # starts its own cluster (docs/testing.md)

DATA = Path(__file__).resolve().parents[1] / "data" / "fidelity" / "openpbs-23.06.06-resv"

# Capture order; each is run, and compared unless it is in DIFFERENCES.
CHAIN = (
    "R01_rsub", "R02_rstat", "R03_rstat_S", "R04_rstat_f", "R05_rstat_F",
    "R06_rstat_B", "R07_qstat_Q", "R08_qstat_Qf", "R10_qsub_into_resv", "R11b_qstat_before_window",
    "R12_qsub_into_resv2", "R12b_qdel_in_resv", "R13_qsub_held", "R13b_qmove_into_resv",
    "R13d_qdel_moved", "R14_rsub_end_before_start", "R15_rsub_start_past",
    "R15b_rsub_start_past_hhmm", "R16_rsub_too_big", "R16b_rsub_too_big_ncpus3",
    "R17_rsub_no_resources", "R17b_rsub_bad_time", "R17c_rsub_unknown_resource",
    "R17d_rsub_D_and_E_mismatch", "R16c_rstat_f_too_big", "R18_rsub_D_only",
    "R18b_rstat_f_noid", "R19_rsub_rrule_no_tzid", "R18c_rstat_multi", "R20_rsub_for_ralter",
    "R20b_ralter_E", "R20c_ralter_R", "R20d_rstat_f_altered", "R20e_ralter_E_before_R",
    "R20f_ralter_unknown", "R20g_ralter_D", "R20h_rstat_after_ralter_D", "R21_rdel",
    "R21b_rstat_after_rdel", "R21c_rdel_unknown", "R21d_rdel_noargs", "R21e_rdel_version",
    "spend 3",  # R23-R25: 889.vm, 890.vm, R891.vm (their windows: test_server_cluster.py)
    "R40_rsub_rrule", "R40b_rstat_f_rrule", "R40d_qstat_Qf_rrule", "R40e_rdel_rrule",
    "R40f_rstat_after_rdel_rrule", "R41_rsub_rrule_bad_freq", "R41b_rsub_rrule_overlap",
    "R41c_rsub_rrule_bad_tzid", "R42_rsub_rrule_hourly", "R42b_rstat_f_hourly",
    "R42c_ralter_standing_E", "R42d_rstat_f_after_ralter", "R43_rsub_R_and_D",
    "R43b_rstat_f_R_and_D", "R44_rstat_unknown", "R44b_rstat_S_unknown", "R45_rdel_two",
    "clear",  # capture.sh deletes every reservation left
    "R47_rstat_empty", "spend 7",  # 898-904: the capture's group I and D jobs
    "R50_rsub_I_wait", "R50b_rsub_I_denied", "R51_qsub_exceeds_resv_ncpus",
    "R51b_qsub_exceeds_resv_walltime", "spend 1", "R51d_qstat_Qf_resv_walltime",
    "R51e_rdel",
)
# Cases of the set not in the chain, and why (each is pinned elsewhere or differs on purpose).
NOT_REPLAYED: Dict[str, str] = {
    "R09, R22d, R42e": "pbsnodes -av: the replay host's memory and its Port/pbs_version lines "
                       "(the fake's nodes, docs/differences.md)",
    "R11, R13c, R22c, R24b, R25c, R26-R29c, R52d, R53d": "qstat -f: PBS_O_* of the replay's "
                                                         "environment; windows of minutes",
    "R22-R29d, R52*, R53*": "windows of minutes and same-minute roll-over: "
                            "test_server_cluster.py with windows of seconds",
    "R30*, R31*, R46*, R52f, R53f": "log and accounting greps of /var/spool/pbs: "
                                    "test_server_requests.py and test_server_cluster.py",
    "R40c": "the capture's table lists R891 (an ASAP reservation the chain does not make)",
    "R51c": "root's qsub: the fake accepts root's jobs unless acl_roots is set "
            "(docs/differences.md)",
}
_TIME_ARG = re.compile(r"(-[RE]) (\d{4}(?:\.\d\d)?|\d{12}(?:\.\d\d)?)\b")
_DATE = re.compile(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|"
                   r"Nov|Dec) +\d+ \d\d:\d\d:\d\d \d{4}\b")
# every form of pbs_rstat's convert_time (render/resv.py short_time): today, this week, this
# year, another year -- which one a time takes depends on the day the test runs
_WHEN = re.compile(r"\b(Today|Mon|Tue|Wed|Thu|Fri|Sat|Sun)( [A-Z][a-z]{2} \d\d)?( \d{4})?"
                   r" \d\d:\d\d\b")
FIRST_JOB_SEQ = 875  # the capture's first number (R01's R875.vm)


def transcript(name: str) -> Dict[str, object]:
    with open(str(DATA / (name + ".json")), encoding="utf-8") as handle:
        loaded: Dict[str, object] = json.load(handle)
        return loaded


def _epoch(stamp: str) -> float:
    whole, _, frac = stamp.rstrip("Z").partition(".")
    return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) + float("0." + frac)


def shift_times(command: str, captured: float, now: float) -> str:
    """Each -R/-E time moved by (now - captured), written in its own form (TZ=UTC)."""
    def moved(match: "re.Match[str]") -> str:
        text = match.group(2)
        clock, _, secs = text.partition(".")
        if len(clock) == 4 and (int(clock[:2]) > 23 or int(clock[2:]) > 59):
            return match.group(0)  # R17b's illegal time stays illegal
        if len(clock) == 4:
            base = time.gmtime(captured)
            was = calendar.timegm((base.tm_year, base.tm_mon, base.tm_mday, int(clock[:2]),
                                   int(clock[2:]), int(secs or 0), 0, 0, 0))
            fmt = "%H%M"
        else:
            was = calendar.timegm(time.strptime(clock, "%Y%m%d%H%M")) + int(secs or 0)
            fmt = "%Y%m%d%H%M"
        new = time.gmtime(was + (now - captured))
        return "%s %s%s" % (match.group(1), time.strftime(fmt, new),
                            ".%02d" % new.tm_sec if secs else "")
    return _TIME_ARG.sub(moved, command)


def normalize(text: str, user: str) -> str:
    text = text.replace("pbsuser2", "<USER>").replace(user, "<USER>")
    text = _DATE.sub("<DATE>", text)
    text = _WHEN.sub("<WHEN>", text)
    # pbs_rstat's User column holds 8 characters of user@host: pbsuser2's name, root's root@vm,
    # a 6-letter user's name and "@v"
    text = re.sub(r"<USER>@\w* +(CO|UN|RN|BD) ", r"<USER> \1 ", text)
    return re.sub(r"[ ]{2,}", " ", text)


@pytest.fixture(scope="module")
def vm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeCluster]:
    home = tmp_path_factory.mktemp("groupr")
    home.chmod(0o755)
    (home / "cluster.json").write_text(json.dumps({"first_job_seq": FIRST_JOB_SEQ,
                                                   "site_resources": []}))
    rig = FakeCluster(home, "vm", [{"name": "vm", "ncpus": 2, "mem": "1gb", "ngpus": 0}])
    user = pwd.getpwuid(os.getuid())
    rig.env.update(TZ="UTC", LANG="C.UTF-8", LOGNAME=user.pw_name, USER=user.pw_name)
    rig.env.pop("MAIL", None)  # the capture's environment had none (cap.py; a login sets it)
    rig.env.pop("PBS_TZID", None)
    rig.start()
    try:
        yield rig
    finally:
        rig.stop()


@pytest.fixture(scope="module")
def outcomes(vm: FakeCluster) -> Dict[str, Tuple[str, str]]:
    """Every case of the chain, run in order: (expected, seen) as normalized text."""
    user = pwd.getpwuid(os.getuid()).pw_name
    results: Dict[str, Tuple[str, str]] = {}
    # one shift for the whole chain: the durations between the times of two cases stay
    # the capture's (R20b then R20c: 900 s)
    shift = time.time() - _epoch(str(transcript(CHAIN[0])["time"]))
    for name in CHAIN:
        if name.startswith("spend "):
            _spend(vm, int(name.split()[1]))
            continue
        if name == "clear":
            for line in vm.sh("pbs_rstat").splitlines()[2:]:
                vm.sh("pbs_rdel", line.split()[0])
            continue
        case = transcript(name)
        captured = _epoch(str(case["time"]))
        command = shift_times(str(case["command"]), captured, captured + shift)
        done = vm.run(["/bin/sh", "-c", command], cwd=str(vm.home))
        expected = "rc=%s\n%s---\n%s" % (case["exit_code"], case["stdout"], case["stderr"])
        seen = "rc=%s\n%s---\n%s" % (done.returncode, done.stdout, done.stderr)
        results[name] = (normalize(expected, user), normalize(seen, user))
        time.sleep(0.2)  # the scheduler's confirmation follows a submission
    return results


def _spend(vm: FakeCluster, count: int) -> None:
    """Take ``count`` numbers of the job sequence, as the capture's cases between two of the
    chain did (held jobs, deleted at once)."""
    for _ in range(count):
        jobid = vm.sh("qsub", "-h", "--", "/bin/true").strip()
        vm.sh("qdel", jobid)


@pytest.mark.parametrize("name", [n for n in CHAIN if n[0] == "R"])
def test_case(outcomes: Dict[str, Tuple[str, str]], name: str) -> None:
    expected, seen = outcomes[name]
    assert seen == expected


def test_time_shift_keeps_each_form() -> None:
    """R14's hhmm.SS times and R15's full dates move by the same amount."""
    captured = _epoch("2026-11-27T03:58:02.507868Z")
    assert shift_times("pbs_rsub -R 0457.51 -E 0427.51", captured, captured + 3600) == \
        "pbs_rsub -R 0557.51 -E 0527.51"
    assert shift_times("-R 202611270347.51 -E 202611270407", captured, captured + 60) == \
        "-R 202611270348.51 -E 202611270408"
