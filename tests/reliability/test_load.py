"""Many clients at once (issue 6, "Load held"; CI-sized): submitters, pollers and a deleter.

Every submit gets a unique id; every job runs once and reaches F with the status its script
chose; none is lost or duplicated; ``qstat -x`` listings stay consistent throughout (no id twice,
no job leaving F).
"""
import threading
from typing import Dict, Iterator, List, Set

import pytest

from .rig import Rig

SUBMITTERS = 8
JOBS_EACH = 12
ORDER = {"Q": 0, "H": 0, "W": 0, "R": 1, "E": 2, "F": 3}


@pytest.fixture
def big() -> Iterator[Rig]:
    cluster = Rig(hosts=("n1:ncpus=8", "n2:ncpus=8"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()


def test_concurrent_submit_poll_delete(big: Rig) -> None:
    rig = big
    expected: Dict[str, str] = {}
    submitted: List[str] = []
    deleted: Set[str] = set()
    errors: List[str] = []
    guard = threading.Lock()
    stop = threading.Event()

    def submit(worker: int) -> None:
        for i in range(JOBS_EACH):
            code = str((worker + i) % 4)
            done = rig.run(["qsub"], input="#!/bin/sh\nexit %s\n" % code)
            if done.returncode != 0:
                errors.append("qsub: %d %s" % (done.returncode, done.stderr))
                continue
            with guard:
                jobid = done.stdout.strip()
                if jobid in expected:
                    errors.append("duplicate id %s" % jobid)
                expected[jobid] = code
                submitted.append(jobid)

    def poll() -> None:
        last: Dict[str, str] = {}
        while not stop.is_set():
            done = rig.run(["qstat", "-x"])
            if done.returncode != 0:
                errors.append("qstat: %d %s" % (done.returncode, done.stderr))
                continue
            seen: Set[str] = set()
            for line in done.stdout.splitlines()[2:]:
                fields = line.split()
                if len(fields) < 6:
                    errors.append("qstat line %r" % line)
                    continue
                jobid, state = fields[0], fields[4]
                if jobid in seen:
                    errors.append("qstat listed %s twice" % jobid)
                seen.add(jobid)
                if ORDER.get(last.get(jobid, "Q"), 0) == 3 and state != "F":
                    errors.append("%s left F for %s" % (jobid, state))
                last[jobid] = state

    def delete() -> None:
        index = 0
        while not stop.is_set():
            with guard:
                target = submitted[index] if index < len(submitted) else None
            if target is None:
                stop.wait(0.05)
                continue
            index += 7
            done = rig.run(["qdel", target])
            with guard:
                deleted.add(target)
            # 35: the job already finished; 168: it is exiting (E), which PBS refuses to delete
            # without -W force ("Request invalid for state of job"): both are races, not errors
            if done.returncode not in (0, 35, 168):
                errors.append("qdel %s: %d %s" % (target, done.returncode, done.stderr))

    workers = [threading.Thread(target=submit, args=(n,)) for n in range(SUBMITTERS)]
    helpers = [threading.Thread(target=poll), threading.Thread(target=poll),
               threading.Thread(target=delete)]
    for thread in workers + helpers:
        thread.start()
    for thread in workers:
        thread.join(120)
    try:
        final = rig.wait_all(list(expected), timeout=120)
    finally:
        stop.set()
        for thread in helpers:
            thread.join(60)
    assert not errors, errors[:10]
    assert len(expected) == SUBMITTERS * JOBS_EACH
    listed = rig.call("statjob", id=None, extend="x")
    assert len(listed) == len({r["id"] for r in listed}) == len(expected)
    for jobid, code in expected.items():
        attrs = final[jobid]
        if jobid in deleted:
            continue
        assert attrs.get("Exit_status") == code, (jobid, attrs)
        assert attrs.get("run_count") == "1", (jobid, attrs)
