"""Soak: a long mix of submits, cancels, holds and releases while the server and the moms are
killed (SIGKILL) and restarted, then a count of what came out (issues 6 and 15, reliability).

    python -m bench.soak --minutes 3 [--submitters 4] [--seed 1]
    python -m bench.soak --jobs 20000 --minutes 240 --crash-every 3 --job-seconds 0.3

Prints: jobs submitted, finished correctly, lost, duplicated, stuck, bad output; crashes
survived.  A job is *finished correctly* when it is F with the Exit_status its script chose (a
cancelled one: F); *lost* when an id that qsub printed is unknown to the server; *duplicated*
when qsub printed the same id twice or the job's shell ran more than once (each run appends the
job id to ``runs.log``: a finished job that a restart started again shows twice, whatever its
run_count says); *stuck* when it is not F once the mix has stopped and the cluster had
``--settle`` seconds to finish; *bad output* when a job that finished on its own has not exactly
its one line in its output file.  Exit status 0 only when all four are zero.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Set

from fake_pbs import control, paths, protocol
from fake_pbs.model.errors import PbsError

HOSTS = ["s1:ncpus=4", "s2:ncpus=4", "s3:ncpus=4"]
# Submitters pause while this many jobs are not finished: the 12 cpus end about ten of these
# ~1 s jobs a second, and unbounded submitters (a qsub takes ~20 ms) would queue thousands that
# no settle period drains, counting a backlog as "stuck".  Crashes still meet a full queue.
BACKLOG = 240
RECENT = 200  # the meddler's targets: among the last jobs submitted


class Soak:
    def __init__(self, seed: int) -> None:
        self.home = Path(tempfile.mkdtemp(prefix="fpsoak", dir="/tmp"))
        self.home.chmod(0o755)
        self.work = self.home / "work"
        self.work.mkdir()
        self.env = dict(os.environ)
        self.env.update({"FAKE_PBS_HOME": str(self.home), "FAKE_PBS_AUTOSTART": "0",
                         "PATH": str(paths.bin_dir()) + os.pathsep + self.env.get("PATH", ""),
                         "FAKE_PBS_PYTHON": sys.executable})
        self.random = random.Random(seed)
        self.guard = threading.Lock()
        self.expected: Dict[str, str] = {}   # jobid -> Exit_status its script chooses
        self.printed: List[str] = []        # every id qsub printed, in order
        self.cancelled: Set[str] = set()
        self.held: Set[str] = set()         # jobs the soak held and has not released yet
        self.crashes = 0
        self.errors: List[str] = []
        self.stop = threading.Event()
        self.unfinished = 0                 # jobs not F at the watcher's last look
        self.runs_log = self.work / "runs.log"  # one line per job shell run (O_APPEND)
        self.job_seconds = 2.0
        self.target = 0                     # stop submitting after this many jobs (0: none)

    # -- plumbing ---------------------------------------------------------------------------
    def run(self, *argv: str, stdin: Optional[str] = None) -> "subprocess.CompletedProcess[str]":
        return subprocess.run(list(argv), input=stdin, env=self.env, cwd=str(self.work),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=120)

    def statjobs(self) -> Dict[str, Dict[str, str]]:
        channel = protocol.connect(paths.server_socket(self.home), timeout=30)
        try:
            records = protocol.call(channel, "statjob", id=None, extend="x")
        finally:
            channel.close()
        return {r["id"]: dict(r["attrs"]) for r in records}

    # -- the mix ----------------------------------------------------------------------------
    def watcher(self) -> None:
        """Count the unfinished jobs every second (the submitters' backlog bound)."""
        while not self.stop.wait(1.0):
            try:
                channel = protocol.connect(paths.server_socket(self.home), timeout=30)
                try:
                    live = protocol.call(channel, "selectjob", criteria=[], extend="")
                finally:
                    channel.close()
            except (OSError, PbsError, ValueError):
                continue  # the server is down this instant
            self.unfinished = len(live)

    def submitter(self, worker: int) -> None:
        rng = random.Random(worker)
        while not self.stop.is_set():
            if self.unfinished >= BACKLOG:
                self.stop.wait(0.5)
                continue
            with self.guard:
                if self.target and len(self.printed) >= self.target:
                    self.stop.wait(0.5)
                    continue
            code = str(rng.randrange(0, 4))
            held = rng.random() < 0.1
            # The run is recorded before the output: a second run shows in runs.log even when
            # it ended the same way (and rewrote the same output).
            script = ("#!/bin/sh\necho \"$PBS_JOBID\" >> %s\nsleep %.2f\n"
                      "echo \"out $PBS_JOBID\"\nexit %s\n" % (
                          self.runs_log, rng.random() * self.job_seconds, code))
            done = self.run("qsub", *(["-h"] if held else []), stdin=script)
            if done.returncode != 0:
                # The server may be down this instant: no id printed, nothing accepted.
                time.sleep(0.2)
                continue
            jobid = done.stdout.strip()
            with self.guard:
                self.printed.append(jobid)
                self.expected.setdefault(jobid, code)
                if held:
                    self.held.add(jobid)

    def meddler(self) -> None:
        """Cancels, holds and releases, at random, among the recent jobs (the ones likely not
        finished yet); releases go to the jobs it held, so that holds do not pile up over a
        long run (a backlog of held jobs would stop the submitters)."""
        while not self.stop.wait(0.3):
            with self.guard:
                if not self.printed:
                    continue
                target = self.random.choice(self.printed[-RECENT:])
                held = sorted(self.held)
            action = self.random.random()
            if action < 0.2:
                if self.run("qdel", target).returncode == 0:
                    with self.guard:
                        self.cancelled.add(target)
            elif action < 0.5:
                if self.run("qhold", target).returncode == 0:
                    with self.guard:
                        self.held.add(target)
            else:
                target = self.random.choice(held) if held else target
                if self.run("qrls", target).returncode == 0 or target in held:
                    with self.guard:
                        self.held.discard(target)

    def crasher(self, period: float) -> None:
        """Every ``period`` seconds, SIGKILL the server or a mom, then start it again."""
        while not self.stop.wait(period):
            victim = self.random.choice(["server"] + ["mom:" + h.split(":")[0] for h in HOSTS])
            try:
                if victim == "server":
                    control.kill(self.home, "server")
                else:
                    control.kill(self.home, "mom", victim[4:])
                time.sleep(self.random.random() * 2)
                control.start(self.home)
                self.crashes += 1
            except control.ControlError as err:
                self.errors.append("crash %s: %s" % (victim, err))

    def release_all(self) -> None:
        """After the mix: release every hold so that each job can finish."""
        for jobid, attrs in self.statjobs().items():
            if attrs.get("job_state") == "H":
                self.run("qrls", jobid)

    # -- the verdict ------------------------------------------------------------------------
    def verdict(self, settle: float) -> Dict[str, int]:
        deadline = time.monotonic() + settle
        jobs = self.statjobs()
        while time.monotonic() < deadline:
            jobs = self.statjobs()
            if all(jobs.get(j, {}).get("job_state") == "F" for j in self.expected):
                break
            self.release_all()
            time.sleep(1.0)
        lost = [j for j in self.expected if j not in jobs]
        stuck = [j for j in self.expected if j in jobs and jobs[j].get("job_state") != "F"]
        runs = self.shell_runs()
        twice = sorted(j for j, n in runs.items() if n > 1)
        for jobid in twice[:10]:
            attrs = jobs.get(jobid, {})
            self.errors.append("%s ran %d times (run_count %s, Exit_status %s, comment %r)" % (
                jobid, runs[jobid], attrs.get("run_count"), attrs.get("Exit_status"),
                attrs.get("comment")))
        duplicated = len(self.printed) - len(set(self.printed)) + len(twice)
        bad_output = self.check_output(jobs)
        reruns = sum(1 for j in self.expected if int(jobs.get(j, {}).get("run_count", 0)) > 1)
        correct = 0
        for jobid, code in self.expected.items():
            attrs = jobs.get(jobid, {})
            if attrs.get("job_state") != "F":
                continue
            if jobid in self.cancelled or attrs.get("Exit_status") == code:
                correct += 1
            else:
                self.errors.append("%s: Exit_status %s, script chose %s (comment %r)" % (
                    jobid, attrs.get("Exit_status"), code, attrs.get("comment")))
        if lost or stuck:
            self.errors.append("lost %s stuck %s" % (lost[:10], stuck[:10]))
        return {"submitted": len(self.expected), "finished correctly": correct,
                "lost": len(lost), "duplicated": duplicated, "stuck": len(stuck),
                "bad output": bad_output, "run_count > 1": reruns,
                "crashes survived": self.crashes}

    def shell_runs(self) -> Dict[str, int]:
        """How many times each job's shell ran (its lines in runs.log)."""
        counts: Dict[str, int] = {}
        try:
            text = self.runs_log.read_text()
        except FileNotFoundError:
            return counts
        for line in text.splitlines():
            counts[line.strip()] = counts.get(line.strip(), 0) + 1
        return counts

    def check_output(self, jobs: Dict[str, Dict[str, str]]) -> int:
        """Jobs that ended on their own (not cancelled) whose output file is not exactly their
        one line (a lost stage-out, or one overwritten by a second run)."""
        bad = 0
        for jobid in self.expected:
            attrs = jobs.get(jobid, {})
            if jobid in self.cancelled or attrs.get("job_state") != "F":
                continue
            path = self.work / ("STDIN.o" + jobid.split(".")[0])
            try:
                text = path.read_text()
            except OSError as err:
                text = "(%s)" % err.strerror
            if text != "out %s\n" % jobid:
                bad += 1
                if bad <= 10:
                    self.errors.append("%s: output %r" % (jobid, text[:80]))
        return bad

    def progress(self, started: float) -> None:
        """A line a minute on stderr, so that a run of hours can be followed."""
        while not self.stop.wait(60.0):
            with self.guard:
                submitted = len(self.printed)
            print("soak: %.0f min, %d submitted, %d unfinished, %d crashes" % (
                (time.monotonic() - started) / 60, submitted, self.unfinished, self.crashes),
                file=sys.stderr, flush=True)

    def close(self) -> None:
        try:
            control.stop(self.home, now=True)
        finally:
            control.sweep(self.home)
            shutil.rmtree(str(self.home), ignore_errors=True)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--submitters", type=int, default=4)
    parser.add_argument("--crash-every", type=float, default=6.0, help="seconds")
    parser.add_argument("--settle", type=float, default=180.0, help="seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=0,
                        help="stop submitting after this many jobs (the mix ends when all are "
                        "submitted or --minutes have passed)")
    parser.add_argument("--job-seconds", type=float, default=2.0,
                        help="each job sleeps a random time below this")
    args = parser.parse_args(argv)
    soak = Soak(args.seed)
    soak.target = args.jobs
    soak.job_seconds = args.job_seconds
    try:
        control.start(soak.home, "soak", [control.parse_host(h) for h in HOSTS])
        threads = [threading.Thread(target=soak.submitter, args=(n,))
                   for n in range(args.submitters)]
        threads += [threading.Thread(target=soak.watcher), threading.Thread(target=soak.meddler),
                    threading.Thread(target=soak.crasher, args=(args.crash_every,))]
        started = time.monotonic()
        threads.append(threading.Thread(target=soak.progress, args=(started,)))
        for thread in threads:
            thread.start()
        deadline = started + args.minutes * 60
        while not soak.stop.wait(min(5.0, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline or (args.jobs and len(soak.printed) >= args.jobs):
                break
        soak.stop.set()
        for thread in threads:
            thread.join(120)
        control.start(soak.home)  # whatever the last crash left down
        try:
            counts = soak.verdict(args.settle)
        except (OSError, PbsError) as err:
            print("soak: the server did not answer at the end: %s" % err)
            return 1
        print("soak: %.1f minutes, %d submitters, a crash every %.0f s, seed %d" % (
            (time.monotonic() - started) / 60, args.submitters, args.crash_every, args.seed))
        for name, value in counts.items():
            print("%-20s %d" % (name, value))
        for line in soak.errors[:20]:
            print("note: %s" % line)
        bad = counts["lost"] + counts["duplicated"] + counts["stuck"] + counts["bad output"]
        return 0 if bad == 0 else 1
    finally:
        soak.close()


if __name__ == "__main__":
    sys.exit(main())
