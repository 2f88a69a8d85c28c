"""End to end through PSI/J: the production ``pbspro`` executor (fake_pbs/bin first on PATH)
reports a job deleted by preemption (``D``) as FAILED with a message naming preemption
(transcript g08: comment ``... and terminated by Scheduler@vm``, Exit_status 271)."""
from datetime import timedelta
from pathlib import Path

from psij import Job, JobExecutor, JobSpec, JobState

from .preemptrig import PreemptRig
from psijpbs.config import PBSProExecutorConfig


def test_psij_reports_a_job_deleted_by_preemption_as_failed(
        rig: PreemptRig, tmp_path: Path) -> None:
    rig.setup("D")
    config = PBSProExecutorConfig(work_directory=tmp_path / "psij-work",
                                  queue_polling_interval=1, min_queue_polling_interval=0.2,
                                  initial_queue_polling_delay=0.2)
    executor = JobExecutor.get_instance("pbspro", config=config)
    job = Job(JobSpec("/bin/sleep", ["60"], directory=tmp_path))
    executor.submit(job)
    job.wait(target_states=[JobState.ACTIVE], timeout=timedelta(seconds=30))
    urgent = rig.submit("sleep 1", "-q", "expressq")
    status = job.wait(timeout=timedelta(seconds=60))
    assert status is not None, "the psij job did not end"
    assert status.state == JobState.FAILED, status
    assert status.message is not None and "preempt" in status.message, status.message
    assert status.exit_code == 271, status
    rig.wait(urgent, "F")
