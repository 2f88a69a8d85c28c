"""The set-up the transcripts only imply, in one place: what ran between captured cases.

The capture scripts (tests/data/fidelity/scenario/replay.sh, replay_f.sh, and the extra set's
extra_lib.sh) ran commands that were not captured, or whose capture is not in the set: jobs whose
ids later outputs list (a13 -> 7.vm, a19e -> 9.vm), clean-ups (c11 deletes 15.vm, f00 deletes
hook h1), settings restored between sections, and waits for a job state.  Each is written here as
a step before the case it precedes, with the line of the script it stands for.

Job ids in steps are the transcript's; the replay rewrites them like any command.
"""
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

from .cases import Case, LogSpec, load_set, log_case, set_dir


@dataclass(frozen=True)
class Run:
    """Run ``command`` as ``user``; ``golden_stdout`` (an id printed by qsub) pairs job ids."""

    user: str
    command: str
    golden_stdout: str = ""
    why: str = ""
    requires: str = ""  # skip the step when this user's cases are skipped (no root)
    # Run only when this user's cases are skipped: the step stands in for their effect on the
    # cluster's history that later cases see (a job id consumed), so the chain goes on.
    stands_in_for: str = ""
    # Undone by a later step (a set-up for one case and its undo): skipping both leaves the
    # cluster as the capture had it, so the chain goes on.
    undone: bool = False


@dataclass(frozen=True)
class Wait:
    """Poll ``qstat -x -f`` until the job state matches ``states`` (a regex) or ``timeout``;
    with ``poll``, until the mom's next resource poll has sampled the running job (its
    ``resources_used.walltime`` moves) or the job leaves ``states``."""

    job: str
    states: str
    timeout: float
    why: str = ""
    requires: str = ""
    poll: bool = False


Step = Union[Run, Wait]

_MOM_NOISE = "print_svrattrl|hook_perf|TPP"
_MOM_FILTER = (_MOM_NOISE + r"|;Svr;pbs_python;(-->|sys.modules|BEGIN|DONE)|_pbs_python_event_set"
               r"|mom_get_sample")

_F_HOOKS = ("pro_reject", "abort_log", "end_log")

# replay.sh's f section, as it ran before section g (the f cases in the set are replay_f.sh's).
FIRST_F_RUN: List[Step] = [
    Run("root", " && ".join(
        "qmgr -c 'create hook %s event=%s' && qmgr -c 'import hook %s application/x-python "
        "default /srv/hooks/%s.py'" % (name, event, name, name) for name, event in zip(
            _F_HOOKS, ("execjob_prologue", "execjob_abort", "execjob_end"))),
        "", "replay.sh: f01"),
    Run("pbsuser", "sleep 6", "", "replay.sh: sleep 6"),
    # without root (no hooks) abortme would just run: the section needs root throughout
    Run("pbsuser", "qsub abortme.sh", "18.vm\n", "replay.sh: f02", "root"),
    Run("pbsuser", "sleep 2", "", "replay.sh: sleep 2"),
    Run("pbsuser", "qstat -f -F json -x 18.vm", "", "replay.sh: f03_t2s", "root"),
    Wait("18.vm", "H", 90, "replay.sh: waitstate $FA H 90", "root"),
    Run("pbsuser", "qstat -f -F json -x 18.vm", "", "replay.sh: f03_held", "root"),
    Run("pbsuser", "qstat -s 18.vm", "", "replay.sh: f07b", "root"),
    Run("pbsuser", "qdel 18.vm", "", "replay.sh: f08", "root"),
    Run("root", "; ".join("qmgr -c 'set hook %s enabled=false'" % name for name in _F_HOOKS),
        "", "replay.sh: the f hooks disabled before section g"),
]

# Read-only cases whose answer depends on the submitting user not being a manager: without root
# the local user who stands in for pbsuser owns the cluster, so is its manager, and PBS treats a
# manager's request otherwise (req_delete.c: a manager's forced delete ends the job at once).
NEEDS_UNPRIVILEGED_SUBMITTER: Dict[str, str] = {
    "c04b_qstat_fxjson_forcedeleted_1s": (
        "pbsuser's qdel -W force leaves the job in E for a while; a manager's ends it at once, "
        "and without root pbsuser's stand-in is the cluster's manager"),
}

# Cases of other users that may be skipped (no root) without ending the replay of the set, and
# why the history later cases see stays the capture's.
SKIPPABLE: Dict[str, str] = {
    "a12_qsub_as_root": "a later step stands in for it (the job id its refused qsub took)",
    "c08_qdel_other_users_job": "refused (Unauthorized Request): it changed nothing",
}

RELEASE_BEFORE: Dict[str, List[Step]] = {
    # The capture's server refused root's jobs (stock PBS); the fake allows them by default
    # (docs/differences.md) and applies the stock rule only while acl_roots is set.
    "a12_qsub_as_root": [
        Run("root", "qmgr -c 'set server acl_roots = pbsuser'", "",
            "stock PBS: root is not in acl_roots (a12 expects Bad UID)", undone=True)],
    "a14_qsub_bad_select": [
        Run("root", "qmgr -c 'unset server acl_roots'", "", "undo the a12 set-up", undone=True),
        Run("pbsuser", "qsub -q nosuch hello.sh", "", "without root: a12's refused qsub took "
            "job id 6 (b09 lists 5.vm then 7.vm); a refused qsub (a03) takes one as well",
            stands_in_for="root"),
        Run("pbsuser", "qsub -h -l walltime hello.sh", "7.vm\n", "a13 (not in the set)")],
    "a19f_qstat_fjson_backslash": [
        Run("pbsuser", "qsub -h -v 'TAB=x\ty' hello.sh", "9.vm\n", "a19e (not in the set)")],
    "a17_qsub_block_exit3": [Wait("0.vm", "F", 30, "waitstate $J1 F 30 (0.vm's cpu is free)")],
    "b01_qstat_default": [Wait("14.vm", "R", 20, "waitstate $S2 R 20"),
                          Run("pbsuser", "sleep 2", "", "replay.sh: sleep 2 (b02 shows 13.vm's "
                              "first mom update: substate 42, session_id)")],
    "b05_qstat_fxjson_deleted_1s": [
        Run("pbsuser", "sleep 1", "", "replay.sh: qdel $S1; sleep 1")],
    # c03's qdel 13.vm, 3.9 s after its start in the capture, ends it at its first poll, 10 s
    # after the start; a replay slowed past that poll would see it end within b05's second.
    "c03_qdel_running": [Wait("13.vm", "R", 130, "align c03 with the mom's poll (b05)",
                              poll=True)],
    "c04b_qstat_fxjson_forcedeleted_1s": [
        Run("pbsuser", "sleep 1", "", "replay.sh: qdel -W force $S2; sleep 1")],
    "b05b_qstat_fxjson_deleted_final": [Wait("13.vm", "F", 30, "waitstate $S1 F 30")],
    "c04c_qstat_fxjson_forcedeleted_final": [Wait("14.vm", "F", 30, "waitstate $S2 F 30")],
    "b07b_qstat_fxjson_exit3": [Wait("16.vm", "F", 30, "waitstate $E3 F 30")],
    "b08c_qstat_fxjson_wtkill_final": [Wait("17.vm", "F", 90, "waitstate $W F 90")],
    # PBS's mom sees a TermJob'd job end at its next resource poll, 10 s after the last one
    # (requests.c: next_sample_time = min_check_poll): the capture's last poll came late enough
    # that 15.vm still ran at e01-e04, 1.2 s after c11.  The replay's polls fall where its own
    # job starts put them, so c11 is sent just after a poll, as the capture's outputs need.
    "c02c_qdel_x_finished": [Wait("15.vm", "R", 130, "align c11 with the mom's poll (e01)",
                                  poll=True),
                             Run("pbsuser", "qdel 15.vm", "", "c11 (not in the set)")],
    "d01_qmgr_create_hook": [
        Run("root", "qdel $(qselect -u pbsuser -s HQ) 2>/dev/null", "",
            "replay.sh: clean up held and queued jobs after section c")],
    "d09_qmgr_syntax_error": [
        Run("root", "qmgr -c 'set sched preempt_order = SCR'", "", "replay.sh after d08l")],
    "e01_pbsnodes_a": [Run("root", "qmgr -c 'delete hook h1'", "", "f00 (not in the set)")],
    # replay.sh ran its f section here, between h03b and g01 (19:53:02 -> 19:53:34: the 32 s
    # are f01, sleep 6, the ~23 s of abortme's retries; its job, 18.vm, is the number the
    # release set skips); replay_f.sh recaptured the f cases at 19:59.  Its hooks, disabled
    # just before g01, give g11 its hook-sync lines (end_log.HK's copy still pending when the
    # victim runs).
    "g01_create_express_queue": FIRST_F_RUN,
    "g06_qsub_express": [Wait("19.vm", "R", 20, "waitstate $V R 20"),
                         Run("pbsuser", "sleep 2", "", "replay.sh: sleep 2 (the victim runs 2 s;"
                             " PBS shows its session_id, g08)")],
    "g08_qstat_fxjson_victim": [Wait("19.vm", "F", 40, "waitstate $V F 40")],
    "f01_setup_hooks": [
        Run("root", "qdel 20.vm; qmgr -c 'set node vm resources_available.ncpus=2';"
            " qmgr -c 'set sched default preempt_order = SCR'", "", "replay.sh after g11"),
        Run("root", "qmgr -c 'delete hook pro_reject'; qmgr -c 'delete hook abort_log';"
            " qmgr -c 'delete hook end_log'", "", "f01 created these hooks again without an "
            "error at 19:59: replay.sh's were deleted in between (not scripted)"),
        Wait("20.vm", "F", 30, "replay_f.sh ran 5 min after replay.sh: 20.vm had ended (it "
             "ends at the mom's next poll or at kill_delay, fake_pbs/pace.py)")],
    # The moms have the new hook files by then (g11 shows PBS's warning when they do not yet).
    "f02_qsub_abortme": [Run("pbsuser", "sleep 6", "", "replay_f.sh: sleep 6 after f01")],
    "f03_qstat_fxjson_held": [Wait("21.vm", "H", 90, "waitstate $FA H 90")],
    "f10_setup_abort_raise": [
        Run("root", "qmgr -c 'set hook pro_reject enabled=false';"
            " qmgr -c 'set hook abort_log enabled=false'; qmgr -c 'set hook end_log enabled=false';"
            " qmgr -c 'set hook pro_reject enabled=true';"
            " qmgr -c 'set hook abort_log enabled=false'",
            "", "replay_f.sh after f08")],
    "f12_qstat_fxjson_abort_raise_final": [Wait("22.vm", "H", 90, "waitstate $FR H 90")],
    "f20_setup_abort_sleep": [
        Run("root", "qdel 22.vm; qmgr -c 'set hook abort_raise enabled=false'", "",
            "replay_f.sh after f12")],
    "f24_qstat_fxjson_abort_sleep_final": [Wait("23.vm", "H", 150, "waitstate $FS H 150")],
}

# Log excerpts of the release set: (file, checked after case, how it was cut).
RELEASE_LOGS: List[Tuple[str, str, LogSpec]] = [
    ("f05_server_logs_grep_21.vm.log", "f07b_qstat_held_job_s",
     LogSpec("server", by_objects=True)),
    # replay_f.sh: grep -F "$FA" (the job id anywhere in the line, hook messages included)
    ("f04_mom_logs_grep_21.vm.log", "f07b_qstat_held_job_s",
     LogSpec("mom", include=r"21\.vm", exclude=_MOM_NOISE)),
    # replay_f.sh grepped the whole day's log, yet it holds no line of replay.sh's 18.vm, which
    # went through the same hooks at 19:53: that mom logged the hooks' LOG_DEBUG messages only
    # from the second run on (its $logevent was raised in between), so the fake's are cut there.
    ("f04d_mom_logs_ran_lines.log", "f07b_qstat_held_job_s",
     LogSpec("mom", mark="f01_setup_hooks", include="ran execjob")),
    ("f13_mom_logs_abort_raise_first_attempts.log", "f12_qstat_fxjson_abort_raise_final",
     LogSpec("mom", mark="f11_qsub_abort_raise", exclude=_MOM_FILTER, head=80)),
    ("f23_mom_logs_abort_sleep_first_attempts.log", "f24_qstat_fxjson_abort_sleep_final",
     LogSpec("mom", mark="f21_qsub_abort_sleep", exclude=_MOM_FILTER, head=80)),
    ("g10_sched_logs_preempt_D.log", "g09_qstat_fxjson_express",
     LogSpec("sched", mark="g04_qsub_victim_rn")),
    # Compared without the client polls and hook-sync lines that races decide
    # (harness/timingfree.py; FINDINGS.md, g11).
    ("g11_server_logs_preempt_D.log", "g09_qstat_fxjson_express",
     LogSpec("server", mark="g04_qsub_victim_rn", exclude="TPP", timing_free=True)),
]

_I05_DIRS = ("a_default b_oe_paths c_join_oe d_keep_oe e_o_dir/outdir f_join_eo g_rel"
             " h_keep_oe_join")
_CGROUPS_EVENTS = ("execjob_begin,execjob_epilogue,execjob_end,execjob_launch,execjob_attach,"
                   "execjob_resize,execjob_abort,execjob_postsuspend,execjob_preresume,"
                   "exechost_periodic,exechost_startup")
_PAUSE_AFTER_IMPORT = Run("root", "sleep 2", "", "2 s between the hook's import and the qsub")


def _disable_hooks(*names: str) -> Run:
    return Run("root", "; ".join("qmgr -c 'set hook %s enabled=false'" % name for name in names),
               "", "the previous group's hooks disabled (m10n)")


EXTRA_BEFORE: Dict[str, List[Step]] = {
    "i05a_qsub_default": [
        Run("pbsuser", "mkdir -p %s && cp both.sh i05/" % " ".join(
            "i05/" + d for d in _I05_DIRS.split()), "", "the i05 tree (see i05z's listing)")],
    # k01c's qstat lists only the k00 jobs: the held, waiting and never-runnable jobs that
    # sections i and j left (327, 329, 341[], 351-370) were gone by 21:00:28.
    "k00_qsub_trap1": [
        Run("root", "qdel $(qselect -u pbsuser) 2>/dev/null", "",
            "clean-up before section k (k01c lists only 382-385)")],
    # 21:00:32 -> 21:01:02: k03's trap jobs start at once (k03a, k03d R), k06a lists none of
    # 382-385, and 386.vm (not captured) is finished by k07f.
    "k03_qsub_trapA": [
        Run("root", "qdel 382.vm 383.vm 384.vm 385.vm", "",
            "clean-up before k03 (k03a: the trap jobs run at once; k06a lists none of them)"),
        Run("pbsuser", "qsub -h hello.sh", "386.vm\n", "386.vm (not captured; F in k07f)"),
        Run("pbsuser", "qdel 386.vm", "", "386.vm is finished by k07f"),
        Wait("382.vm", "F", 60, "the trap jobs' cpus are free before k03 (k03a)"),
        Wait("383.vm", "F", 60, "the trap jobs' cpus are free before k03 (k03a)")],
    # The capture waited for the i05 jobs (336's output copy is retried for ~32 s) before
    # i05z (20:57:32 -> 20:58:05) and took i05g's log excerpts after that wait; the excerpts
    # follow i05h here, so the wait comes before it (337's run is what moves).
    "i05h_qsub_keep_oe_join": [Wait("336.vm", "F", 60, "waitstate 336 F")],
    # j03 (20:59:07) shows the array finished: the capture waited for it.
    "j03_qstat_fxjson_parent_finished": [Wait("339[].vm", "F", 60, "waitstate 339[] F")],
    # The held jobs of i03d and i04f are gone by j02 (only 339[] is listed) and j03c lists
    # them F with Time Use 0: deleted, never run.
    "j01_qsub_array": [
        Run("pbsuser", "qdel 327 329", "", "i03d's and i04f's held jobs deleted (j02, j03c)")],
    # n02p's grep shows ngpus already on the resources line: the capture edited the file
    # (README n02) before the `set sched` that makes the scheduler re-read it.
    "n02p_reconfigure_sched_ngpus": [
        Run("root", "sed -i 's/^resources: \"\\(.*\\)\"$/resources: \"\\1, ngpus\"/' "
                    "/var/spool/pbs/sched_priv/sched_config", "",
            "ngpus added to sched_config's resources line (n02p)")],
    # Between n02w (busy) and n02x (deleted) the jobs that held ngpus were purged.
    "n02x_delete_resource_after_purge": [
        Run("root", "qdel -x -W force 411 412 413 414 415; sleep 2", "",
            "the ngpus jobs purged, history included (n02x's name), 2 s before n02x")],
    # The m section (hooks).  m10n lists every hook of the section `enabled = false`, none of
    # syn_err/qj_raise/qj_sleep/qj_nomsg, and a packaged `pbs_cgroups` hook, disabled, that the
    # capture machine had from its install (README: "pbs_cgroups left disabled"; the release
    # set's machine had none).  No case before m10n lists hooks, so it is created here.
    "m01_create_qj_reject": [
        Run("root", "qmgr -c 'create hook pbs_cgroups event=\"%s\",enabled=false,alarm=90,"
                    "freq=120,order=100,fail_action=offline_vnodes'" % _CGROUPS_EVENTS, "",
            "the capture machine's disabled pbs_cgroups hook (m10n)")],
    # Each group's hooks were disabled before the next group (m10n: all `enabled = false`).
    "m02_create_qj_walltime": [_disable_hooks("qj_reject")],
    "m03_create_rj_reject": [_disable_hooks("qj_walltime")],
    # 402.vm (m04a) got vm/0: m03a's 401.vm, held back by rj_reject, never ran -- deleted
    # before rj_reject was disabled.
    "m04_create_eb_reject": [Run("root", "qdel 401.vm", "", "m03a's job deleted (m04b: "
                                 "402.vm on vm/0)"), _disable_hooks("rj_reject")],
    # m04a/m05a/m06a came 2 s after their hook's import (21:03:49 -> :51, 21:04:12 -> :14,
    # :23 -> :25): the mom had the hook files (m04f mom: the copy lines before the job's).
    "m04a_qsub_ebreject": [_PAUSE_AFTER_IMPORT],
    "m05_create_el_reject": [_disable_hooks("eb_reject")],
    "m05a_qsub_elreject": [_PAUSE_AFTER_IMPORT],
    "m06_create_epi_end": [_disable_hooks("el_reject")],
    "m06a_qsub_exit3": [_PAUSE_AFTER_IMPORT],
    "m08_create_periodic": [_disable_hooks("epi_log", "end_log2")],
    # m08a came 17 s after m08 (21:04:29 -> :46): per_log (freq=5) ran three times (m08b);
    # m08's own qmgr calls take about a second of it.
    "m08a_disable_periodic": [Run("root", "sleep 16", "", "the pause between m08 and m08a")],
    "m10_export_hook": [
        Run("root", "; ".join("qmgr -c 'delete hook %s'" % name
                              for name in ("syn_err", "qj_raise", "qj_sleep", "qj_nomsg")), "",
            "the m09 hooks deleted before m10 (m10n lists none of them)")],
    # m11e imports /srv/hooks/cfg_use.conf, a file the set does not hold.  23.06.06 takes it
    # unread ("contents overwritten": qmgr.c drops the suffix it should pass, so the server
    # validates nothing) and m11f overwrites it; any content gives the capture's output.
    "m11e_import_config_bad_suffix": [
        Run("root", "cp /srv/hooks/cfg_use.cfg /srv/hooks/cfg_use.conf", "",
            "the capture machine's cfg_use.conf, not in the set")],
    # i06b came 23 s after the qsub: the capture waited for the walltime kill at the mom's
    # poll and kill_delay's SIGKILL (resources_used.walltime 21 s).
    "i06b_cat_wt_files": [Wait("338.vm", "F", 60, "waitstate 338 F")],
}

# Later in section k (kept apart from the clean-ups above, which another change also writes).
EXTRA_BEFORE.update({
    # The extra capture's server listed root in acl_roots (k08q: qstat -B -f shows it; set
    # here, after root's first case, so that a replay without root is not cut short).
    "k08q_qstat_B_f_dsv": [
        Run("root", "qmgr -c 'set server acl_roots = root'", "",
            "the capture server's acl_roots (k08q)")],
    # k14b/k14c: root deleted 389 and 390 at 21:02:24 (D requestor=root@vm, E 6 s later with
    # Exit_status 271), and k12's array runs two subjobs at once: 393 and 394 went too.
    "k12_qsub_array": [
        Run("root", "qdel 389.vm 390.vm 393.vm 394.vm", "",
            "clean-up before k12 (k14b/k14c: D requestor=root@vm at 21:02:24)"),
        Wait("389.vm", "F", 60, "k12a: the array's first subjobs run at once"),
        Wait("390.vm", "F", 60, "k12a: the array's first subjobs run at once"),
        Wait("393.vm", "F", 60, "k12a: the array's first subjobs run at once")],
})

PLANS: Dict[str, Tuple[Dict[str, List[Step]], List[Tuple[str, str, LogSpec]]]] = {
    "release": (RELEASE_BEFORE, RELEASE_LOGS),
    "extra": (EXTRA_BEFORE, []),
    "resv": ({}, []),
}

_LOG_STAMP = re.compile(r"^(\d\d)/(\d\d)/(\d{4}) (\d\d:\d\d:\d\d)")


# Excerpts whose capture mark was not set at their group's first case.  Set before it, their
# first line is an earlier case's (k04l opens with 389.vm's submission, k03o; k06h/k06i with
# 392.vm's, k05).
_EXTRA_MARKS: Dict[str, str] = {
    "k04l_qrerun_server.log": "k03o_qsub_trapC",
    "k06h_qrun_preempt_sched.log": "k05_qsub_queued",
    "k06i_qrun_preempt_server.log": "k05_qsub_queued",
    # ... or after it: m09i opens with m09e's hook creation, not with the syntax error of m09a
    # (syn_err's compile lines, which m09d shows, are not in it)
    "m09i_raise_alarm_server.log": "m09e_create_qj_raise_sleep",
}


def _extra_logs(cases: Sequence[Case]) -> List[Tuple[str, str, LogSpec, str]]:
    """The extra set's ``NAME_<daemon>.log`` excerpts, placed by their own time stamps: (file,
    checked after case, how it was cut, the end of the second of its last line).

    extra_lib.sh's ``mark``/``newlogs`` cut them from a mark set before a group of cases (the
    group is the name's first three characters, ``m04``) with a pattern the README does not
    record: the fake's lines are cut from the group's first case on, about the same objects.
    """
    found = []
    for path in sorted(set_dir("extra").glob("*.log")):
        stem = path.stem
        daemon = stem.rsplit("_", 1)[-1]
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln]
        group = [c for c in cases if c.name[:3] == stem[:3]]
        if daemon not in ("server", "mom", "sched") or not lines or not group:
            continue
        last = _LOG_STAMP.match(lines[-1])
        stamp = ("%s-%s-%sT%s.999999Z" % (last.group(3), last.group(1), last.group(2),
                                          last.group(4))) if last else group[-1].time
        after = [c for c in cases if c.time <= stamp] or group
        found.append((path.name, after[-1].name,
                      LogSpec(daemon, mark=_EXTRA_MARKS.get(path.name, group[0].name),
                              exclude=_MOM_NOISE, by_objects=True),
                      stamp))
    return found


def _resv_waits(cases: Sequence[Case]) -> Dict[str, List[Step]]:
    """The resv set's capture.sh: ``waitstate $j F`` after each ``DNN_qsub``, before its
    ``DNN_output`` (the job scripts ``mkd`` wrote are the set's scripts/ folder)."""
    jobs = {case.name[:3]: case.stdout.strip() for case in cases
            if case.prefix == "D" and case.name.endswith("_qsub")}
    return {case.name: [Wait(jobs[case.name[:3]], "F", 90, "capture.sh: waitstate $j F")]
            for case in cases if case.name.endswith("_output") and case.name[:3] in jobs}


def build_plan(set_name: str) -> List[Union[Case, Step]]:
    """The set's cases in captured order, with the implied steps and log excerpts in place."""
    cases = load_set(set_name)
    before, logs = PLANS.get(set_name, ({}, []))
    if set_name == "resv":
        before = dict(before, **_resv_waits(cases))
    placed = [(name, after, spec, "") for name, after, spec in logs]
    if set_name == "extra":
        placed = _extra_logs(cases)
    by_name = {case.name: case for case in cases}
    logs_after: Dict[str, List[Case]] = {}
    for file_name, after, spec, stamp in placed:
        logs_after.setdefault(after, []).append(
            log_case(set_name, file_name, spec, by_name[after], stamp=stamp))
    plan: List[Union[Case, Step]] = []
    for case in cases:
        plan.extend(before.get(case.name, []))
        plan.append(case)
        plan.extend(logs_after.get(case.name, []))
    return plan


def plan_cases(set_name: str) -> List[Case]:
    """The cases (command and log excerpt) of a set, in replay order."""
    return [item for item in build_plan(set_name) if isinstance(item, Case)]


def step_user(step: Step) -> Optional[str]:
    return step.user if isinstance(step, Run) else None
