"""The fake pbs_server: requests, job state machine, durable store, logs, scheduling, exec client.

Run it with ``python3 -m fake_pbs.server --home H`` (``fake-pbs start`` does).  The API other
parts of fake_pbs build on:

State (``fake_pbs.server.state.ServerState``, reached as ``app.state``)
    ``server``, ``sched``: dicts of PBS attribute strings; ``queues``/``nodes``: ``{name: attrs}``;
    ``jobs``: ``{jobid: record}`` (attribute strings plus private ``_`` fields); ``objects``:
    ``{kind: {name: record}}`` for everything else (``hook``, ``resource`` ...; records are any
    JSON).  Resource attributes are flat keys (``resources_available.ncpus``).  Hold
    ``state.lock`` (an RLock) around every read-modify-write, then persist with
    ``save_server()``, ``save_sched()``, ``save_queue(name)``, ``save_node(name)``,
    ``save_object(kind, name)`` or ``save_job(id)``: each commits to SQLite before returning, and
    a name missing from its dict is deleted from the store.  ``save_job`` also keeps
    ``state.index`` (live jobs, history counters, encoded history records) up to date: change a
    job, then save it; ``state.live_jobs()`` lists the jobs not in history without a walk.

Handlers (``fake_pbs.server.handlers``)
    ``@handler("op")`` registers ``fn(ctx, request) -> data``; it runs with ``state.lock`` held
    (``locked=False`` to manage the lock yourself) and raises ``PbsError`` for error replies.
    ``ctx.app`` is the :class:`~fake_pbs.server.app.ServerApp`; ``ctx.caller`` has ``uid``,
    ``gid``, ``user``, ``host``, ``manager`` (root or the cluster owner) and ``name``
    (``user@host``).  ``handlers/qmgr.py`` serves qmgr's requests
    through the pure ``fake_pbs/server/manager.py``.  A list reply may be returned as
    ``rawreply.EncodedList`` (items already JSON-encoded), which the listener sends as is.

Scheduling
    ``app.trigger_schedule()`` asks for a cycle soon (after qmgr changes, for example); cycles also
    run every ``scheduler_iteration``.  The fake-only ``schedule`` request runs one at once.

Hook events (``fake_pbs.server.hookpoints``)
    ``hookpoints.current()`` (queuejob, modifyjob, movejob, runjob, jobobit, periodic) runs the
    site's enabled hooks of each event; see that module for the contract.

Logs (``app.log``, ``app.sched_log``, ``app.acct``)
    ``app.log.job(jobid, message, event)``, ``app.log.write(event, cls, obj, message)`` write
    PBS-format lines to ``server_logs``; ``app.acct.record(kind, jobid, message)`` to accounting.

Fake-only requests
    ``reset`` (test harness: kill all jobs, fresh configuration, ids from 0), ``schedule``,
    ``preempt`` {ids}.  Differences from PBS: job history is on by default; root may submit
    jobs unless a manager sets ``acl_roots`` (then PBS's rule applies: root must be listed,
    else ``Bad UID for job execution``, transcript a12).
"""
