"""Soak: a long mix of submits, cancels, holds and releases while the server and the moms are
killed (SIGKILL) and restarted, then a count of what came out (issue 6, reliability).

    python -m bench.soak --minutes 3 [--submitters 4] [--seed 1]

Prints: jobs submitted, finished correctly, lost, duplicated, stuck; crashes survived.  A job is
*finished correctly* when it is F with the Exit_status its script chose (a cancelled one: F);
*lost* when an id that qsub printed is unknown to the server; *duplicated* when qsub printed the
same id twice or a job ran more than once without a crash to explain it; *stuck* when it is not
F once the mix has stopped and the cluster had ``--settle`` seconds to finish.  Exit status 0
only when lost, duplicated and stuck are all zero.
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
        self.crashes = 0
        self.errors: List[str] = []
        self.stop = threading.Event()
        self.unfinished = 0                 # jobs not F at the watcher's last look

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
                jobs = self.statjobs()
            except (OSError, PbsError):
                continue  # the server is down this instant
            self.unfinished = sum(1 for a in jobs.values() if a.get("job_state") != "F")

    def submitter(self, worker: int) -> None:
        rng = random.Random(worker)
        while not self.stop.is_set():
            if self.unfinished >= BACKLOG:
                self.stop.wait(0.5)
                continue
            code = str(rng.randrange(0, 4))
            held = rng.random() < 0.1
            script = "#!/bin/sh\nsleep %.1f\nexit %s\n" % (rng.random() * 2, code)
            done = self.run("qsub", *(["-h"] if held else []), stdin=script)
            if done.returncode != 0:
                # The server may be down this instant: no id printed, nothing accepted.
                time.sleep(0.2)
                continue
            jobid = done.stdout.strip()
            with self.guard:
                self.printed.append(jobid)
                self.expected.setdefault(jobid, code)

    def meddler(self) -> None:
        """Cancels, holds and releases, at random, among the submitted jobs."""
        while not self.stop.wait(0.3):
            with self.guard:
                if not self.printed:
                    continue
                target = self.random.choice(self.printed)
            action = self.random.random()
            if action < 0.2:
                if self.run("qdel", target).returncode == 0:
                    with self.guard:
                        self.cancelled.add(target)
            elif action < 0.5:
                self.run("qhold", target)
            else:
                self.run("qrls", target)

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
        duplicated = len(self.printed) - len(set(self.printed))
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
                "crashes survived": self.crashes}

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
    args = parser.parse_args(argv)
    soak = Soak(args.seed)
    try:
        control.start(soak.home, "soak", [control.parse_host(h) for h in HOSTS])
        threads = [threading.Thread(target=soak.submitter, args=(n,))
                   for n in range(args.submitters)]
        threads += [threading.Thread(target=soak.watcher), threading.Thread(target=soak.meddler),
                    threading.Thread(target=soak.crasher, args=(args.crash_every,))]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        soak.stop.wait(args.minutes * 60)
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
        bad = counts["lost"] + counts["duplicated"] + counts["stuck"]
        return 0 if bad == 0 else 1
    finally:
        soak.close()


if __name__ == "__main__":
    sys.exit(main())
