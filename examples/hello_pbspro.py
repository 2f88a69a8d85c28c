"""Run one PSI/J job through the ``pbspro`` executor on an embedded fake PBS cluster.

The cluster lives in a temporary FAKE_PBS_HOME; it is stopped and removed at the end.  On a real
cluster, drop the fake: ``JobExecutor.get_instance('pbspro')`` talks to whatever ``qsub``,
``qstat`` and ``qdel`` are on PATH.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from psij import Job, JobExecutor, JobSpec, JobState, ResourceSpecV1

FAKE_BIN = Path(__file__).resolve().parent.parent / "fake_pbs" / "bin"


def main() -> int:
    home = tempfile.mkdtemp(prefix="fake-pbs-example-")
    os.environ["FAKE_PBS_HOME"] = home
    os.environ["PATH"] = "%s%s%s" % (FAKE_BIN, os.pathsep, os.environ.get("PATH", ""))
    subprocess.run(["fake-pbs", "start"], check=True)
    try:
        out = Path(home) / "hello.out"
        spec = JobSpec(executable="/bin/echo", arguments=["hello from", "PBS"], name="hello",
                       stdout_path=out,
                       resources=ResourceSpecV1(node_count=1, processes_per_node=1))
        spec.attributes.duration = timedelta(minutes=5)
        job = Job(spec)
        executor = JobExecutor.get_instance("pbspro")
        executor.submit(job)
        print("submitted %s as PBS job %s" % (job.id, job.native_id))
        status = job.wait(timeout=timedelta(seconds=120))
        print("final state: %s (exit code %s)" % (str(status.state) if status else "none",
                                                  status.exit_code if status else None))
        print("job output: %s" % out.read_text().strip())
        subprocess.run(["qstat", "-x", job.native_id or ""], check=False)
        return 0 if status is not None and status.state == JobState.COMPLETED else 1
    finally:
        subprocess.run(["fake-pbs", "stop"], check=False)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
