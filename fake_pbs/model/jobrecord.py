"""The server's job record: what ``state.jobs[jobid]`` holds and what each private field means.

A record is one dict.  Its public keys are PBS attribute names with their values as ``qstat -f``
prints them (``"job_state": "R"``, ``"Resource_List.ncpus": "2"``); every key that starts with
``_`` is the server's own bookkeeping, never shown to a client (``sched.loop.public`` strips
them) but stored with the record, so that a restarted server resumes where it was.

:data:`PRIVATE_FIELDS` is the one list of those fields (tests/server/test_jobrecord.py checks that
the server uses no other and that each one listed is used).  Keep it in step with the code.
"""

#: Private field -> (value type, meaning).  Grouped by when the server sets them.
PRIVATE_FIELDS = {
    # -- at submission (server/handlers/submit.py) ------------------------------------------
    "_id": ("str", "the canonical job id: ``12.vm``, ``12[].vm`` (array), ``12[3].vm`` (subjob)"),
    "_seq": ("int", "the sequence number of the id; the store orders jobs by it"),
    "_uid": ("int", "the submitter's uid, from the socket's peer credentials"),
    "_gid": ("int", "the submitter's gid, from the socket's peer credentials"),
    "_user": ("str", "the submitter's user name (the job runs as this user)"),
    "_group": ("str", "the submitter's group name (accounting ``group=``)"),
    "_script": ("str", "the job script's text, sent to the mom at each start"),
    "_deps_done": ("bool", "its dependents were released or deleted (in its E phase, pace pbs)"),
    "_deps": ("list[[type, jobid]]", "``depend`` conditions not yet met (server/depend.py)"),
    "_submit_token": ("str", "the client's token of this submission: a retried qsub gets the "
                             "same job back"),
    "_resc_defaulted": ("list[str]", "the Resource_List names that came from a default, not the "
                                     "request: a qmove recomputes them for the new queue "
                                     "(server/enqueue.py)"),
    # -- qorder (server/handlers/jobctl.py) --------------------------------------------------
    "_qrank": ("str", "the job's place in submission order once a qorder swapped it (PBS's "
                      "qrank); until then its qtime"),
    # -- at each run (server/lifecycle.begin_run, server/execclient.py) ----------------------
    "_hosts": ("list[dict]", "one dict per chunk (host, ncpus, mem, mpiprocs ...) for the moms"),
    "_sent": ("bool", "the mom has acknowledged the start request"),
    "_last_seq": ("int", "the last mom event applied: replayed events are ignored"),
    "_run_key": ("str", "names this run: id#run_count#_instance (ids come back after a reset)"),
    "_instance": ("str", "a random token naming this job apart from a later one given its id"),
    "_started": ("bool", "the job shell started (the mom's ``started`` event)"),
    "_accepted": ("str", "the run_count whose job send the mom accepted (stime and the S "
                         "record are written then; a refused send has neither, m04)"),
    "_session_id": ("str", "the session id the mom reported; ``session_id`` shows it once PBS "
                           "would have learnt it from a status update"),
    "_signals_on_start": ("list[str]", "signals asked for before the job shell existed"),
    "_kill_on_start": ("str", "a qdel (or preemption) that came before the job shell started"),
    # -- at the end of a run (server/lifecycle.py) ------------------------------------------
    "_exit": ("int", "the run's exit status: the mom's, or the server's (265 deleted, -11 lost "
                     "run, -3/-20 failed start)"),
    "_obit": ("int", "when the run ended (epoch seconds); becomes ``obittime``"),
    "_run_seconds": ("int", "how long the run lasted: a short one never shows a session id"),
    "_stageout_status": ("str", "the mom's stage-out result for the run (0: a file went to "
                         "undelivered/); becomes ``Stageout_status``"),
    "_substate_at_obit": ("int", "the substate when the obit came, for the server log line"),
    "_exception": ("str", "why a run was lost (``execution node vm down``) or the mom's note"),
    "_hook_action": ("int", "a mom hook's ``job.rerun()`` (-18) or ``job.delete()`` (-19)"),
    # -- requests that end or repeat a run --------------------------------------------------
    "_resvname": ("str", "Reserve_Name of the reservation whose queue the job is in (its "
                  "accounting records' resvname=; server/resv/jobs.py)"),
    "_deleted_by": ("str", "``user@host`` of the qdel (or preemption, reset) that ended the job"),
    "_purge": ("bool", "``qdel -x``: drop the job from history once it has ended"),
    "_rerun": ("bool", "qrerun or a requeue preemption asked for the run to go back to Q"),
    "_force_requeue": ("bool", "the obit must requeue whatever the exit status"),
    "_admin_suspended": ("bool", "``qsig -s admin-suspend``: its vnodes are in maintenance; "
                                 "only ``admin-resume`` resumes it"),
    "_discard_rerun": ("bool", "``qrerun -W force`` discarded the run: its end is the mom's "
                               "discard answer, logged without an obit line"),
    # -- array parents (server/lifecycle.py) --------------------------------------------------
    "_sub_exit": ("str", "an array parent's Exit_status to be, from the last subjob that ended "
                         "(update_sj_parent: 1 positive, 2 negative, 0)"),
    "_sj_queued": ("str", "the queued subjobs that are no records yet, as PBS range text "
                          "(``0-9,12``): rows of the array's table (server/subjobs.py)"),
    "_sj_expired": ("list[[int, str]]", "(when, ranges) of the table's subjobs deleted before "
                                        "they ran (qdel of the array)"),
    "_sj_comments": ("dict[str, str]", "the scheduler's comment per index of a queued row"),
    # -- not a job field: queue and server records (server/assigned.py) ---------------------
    "_assigned": ("str", "a queue's or the server's resources_assigned names, comma-separated: "
                         "once totalled, shown at 0 when nothing holds them"),
}
