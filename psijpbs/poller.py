"""The thread that polls PBS for the executor's jobs, with an interval that adapts to job age.

It replaces PSI/J's ``_QueuePollThread``, whose rules do not fit PBS: a job missing from the
output counts as COMPLETED, and one unknown id in a batch (rc 153) eventually fails every job.
Here the executor decides each job separately (``_poll_statuses``) and only a failure of qstat as
a whole counts as a poll error.
"""
import logging
import time
import traceback
import weakref
from threading import Event, RLock, Thread
from typing import TYPE_CHECKING, Dict, List, Optional

from psij import Job, JobState, JobStatus

from psijpbs import compat
from psijpbs.config import PBSProExecutorConfig

if TYPE_CHECKING:  # pragma: no cover
    from psijpbs.executor import PBSProJobExecutor

logger = logging.getLogger(__name__)

#: The interval grows by this fraction of the youngest job's age (time since the last
#: submission, attach or cancel), between the configured minimum and maximum.
AGE_FACTOR = 0.2
#: The pause after a poll is at least this many times as long as the poll took: a server that
#: answers slowly (a real PBS server under load, many ids) is never polled back to back, and
#: the poll thread spends at most a third of its time in qstat.
COST_FACTOR = 2.0


def poll_interval(age: float, minimum: float, maximum: float) -> float:
    """Seconds to wait before the next poll, given the age of the youngest activity."""
    return max(minimum, min(maximum, age * AGE_FACTOR))


class PBSProPoller(Thread):
    """Polls qstat for all registered jobs of one executor (a daemon thread).

    It fulfils :class:`psijpbs.compat.PollThreadContract`, what psij's base class uses of its
    poll thread in every supported psij.
    """

    def __init__(self, name: str, config: PBSProExecutorConfig,
                 executor: 'PBSProJobExecutor') -> None:
        super().__init__(name=name, daemon=True)
        self.config = config
        self.done = False
        self.executor = weakref.ref(executor, self._stop)
        self._jobs: Dict[str, List[Job]] = {}
        self._lock = RLock()
        self._wake = Event()
        self._activity = time.monotonic()
        # The first activity (submit, attach, cancel) that no poll has seen yet, or None.
        self._pending_since: Optional[float] = None
        self._last_poll_end = 0.0
        self._last_poll_cost = 0.0
        self._error_count = 0
        #: psij's status channel (psij > 0.9.11): the job script reports ACTIVE (and staging
        #: phases) through it as they happen, ahead of the next poll.
        self.status_updater: Optional[compat.StatusUpdater] = compat.status_updater()

    def _stop(self, _ref: object) -> None:
        self.stop()

    def register_job(self, job: Job) -> None:
        """Start tracking ``job`` (after submit or attach)."""
        assert job.native_id
        executor = self.executor()
        if self.status_updater is not None and executor is not None:
            self.status_updater.register_job(job, executor)
        with self._lock:
            self._jobs.setdefault(job.native_id, []).append(job)
        self.note_activity()

    def unregister_job(self, job: Job) -> None:
        """Stop tracking ``job`` (psij > 0.9.11 calls this when the job reaches a final state;
        the poll loop does it anyway). Other jobs attached to the same id stay tracked."""
        if self.status_updater is not None:
            self.status_updater.unregister_job(job)
        native_id = job.native_id
        if native_id is None:
            return
        with self._lock:
            jobs = self._jobs.get(native_id)
            if jobs is None:
                return
            jobs[:] = [j for j in jobs if j is not job]
            if jobs:
                return
            del self._jobs[native_id]
        executor = self.executor()
        if executor is not None:
            executor._forget(native_id)

    def note_activity(self) -> None:
        """Poll soon and often again (a job was submitted, attached or canceled)."""
        now = time.monotonic()
        self._activity = now
        if self._pending_since is None or self.done:
            self._pending_since = now
            # Only the first activity after a poll can bring the next poll forward; waking the
            # thread on every submission of a burst would cost a thread switch per job.
            self._wake.set()

    def stop(self) -> None:
        """End the thread soon (it is a daemon thread: this only spares a sleeping thread)."""
        self.done = True
        self._wake.set()

    def _next_due(self, now: float) -> float:
        """When to poll next.

        ``initial_queue_polling_delay`` after new activity, but a stream of submissions does
        not postpone the poll beyond ``max(initial delay, min interval)`` after the first of
        them (statuses keep flowing during a long burst, and each poll names few ids). Without
        new activity, one interval (growing with the youngest job's age) after the last poll.
        Never sooner than ``COST_FACTOR`` times the last poll's duration after it ended.
        """
        delay = float(self.config.initial_queue_polling_delay)
        minimum = self.config.min_queue_polling_interval
        pending = self._pending_since
        if pending is not None:
            due = min(self._activity + delay, pending + max(delay, minimum))
        else:
            due = self._last_poll_end + poll_interval(
                now - self._activity, minimum, float(self.config.queue_polling_interval))
        return max(due, self._last_poll_end + COST_FACTOR * self._last_poll_cost)

    def run(self) -> None:
        """Poll until the executor is garbage collected."""
        while not self.done:
            with self._lock:
                idle = not self._jobs
                if idle:
                    # Nothing to poll: forget activity (a cancel racing with the last job's
                    # end), so that the next register_job sees none pending and wakes us.
                    # register_job adds its job under this lock before it notes activity.
                    self._pending_since = None
            now = time.monotonic()
            if idle:
                self._wake.wait(float(self.config.queue_polling_interval))
                self._wake.clear()
                continue
            due = self._next_due(now)
            if now < due:
                self._wake.wait(due - now)
                self._wake.clear()
                continue
            # Activity from now on is not covered by this poll for sure: it makes a new one due.
            self._pending_since = None
            start = time.monotonic()
            try:
                self.poll()
            except Exception:  # never let the thread die: jobs would hang forever
                logger.exception('Unexpected error while polling PBS')
            self._last_poll_end = time.monotonic()
            self._last_poll_cost = self._last_poll_end - start

    def poll(self) -> None:
        """Query PBS once for every registered job and update their statuses."""
        executor = self.executor()
        if executor is None:
            return
        with self._lock:
            jobs = {native_id: list(job_list) for native_id, job_list in self._jobs.items()}
        if not jobs:
            return
        try:
            statuses = executor._poll_statuses(list(jobs))
        except OSError as ex:  # qstat missing or not executable: no point in retrying
            self._fail_all(executor, 'Failed to poll for job status: cannot run qstat: %s' % ex)
            return
        except Exception as ex:
            self._error_count += 1
            logger.warning('Polling PBS failed (%d in a row): %s', self._error_count, ex)
            if self._error_count > self.config.queue_polling_error_threshold:
                self._fail_all(executor, 'Failed to poll for job status: %s\n%s'
                               % (ex, traceback.format_exc()))
            return
        self._error_count = 0
        for native_id, job_list in jobs.items():
            status = statuses.get(native_id)
            if status is None:
                continue
            for job in job_list:
                executor._set_job_status(job, status)
            if status.state.final:
                self._unregister(executor, native_id)

    def _unregister(self, executor: 'PBSProJobExecutor', native_id: str) -> None:
        with self._lock:
            jobs = self._jobs.pop(native_id, [])
        if self.status_updater is not None:
            for job in jobs:
                self.status_updater.unregister_job(job)
        executor._forget(native_id)

    def _fail_all(self, executor: 'PBSProJobExecutor', message: str) -> None:
        self._error_count = 0
        with self._lock:
            jobs = dict(self._jobs)
            self._jobs.clear()
        for native_id, job_list in jobs.items():
            for job in job_list:
                if self.status_updater is not None:
                    self.status_updater.unregister_job(job)
                executor._set_job_status(job, JobStatus(JobState.FAILED, message=message))
            executor._forget(native_id)

    def tracked_ids(self) -> Optional[List[str]]:
        """The native ids currently polled for (for diagnostics and tests)."""
        with self._lock:
            return list(self._jobs)
