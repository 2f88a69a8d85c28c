"""The state of every attribute of OpenPBS 23.06's tables in fake_pbs: one row per attribute.

Hand-maintained: a row says ``behaves`` only where a test would fail if the behaviour went away,
``stored only`` with the reason that is PBS's own behaviour here, and ``not modelled`` where the
fake refuses what PBS would act on (``fake_pbs/model/unmodelled.py``; docs/differences.md lists
it).  ``in_progress(area)`` marks what another helper is implementing now.
``tests/docs/test_coverage.py`` checks the rows against the vendored PBS list
(``pbs_attributes.tsv``) and the fake's own tables.
"""
from typing import Dict

from tools.coverage.rows import Row, behaves, in_progress, missing, stored

# Reasons shared by many rows.
PBS_STORES = "PBS itself only stores it: OpenPBS 23.06 reads it nowhere"
STATUS = "a status value the server computes for display; no client writes it"
INTERNAL = "the server's own bookkeeping: no read or write right for any client (15003)"
NO_MAIL = "no mail is sent: the fake has no mailer, as a PBS host without one"
NO_KRB = ("Kerberos: the reference build, like the fake, has none, so PBS stores it and acts "
          "on nothing")
NO_NET = "network tuning of PBS's TPP/RPP transport; the fake's daemons talk over Unix sockets"
NO_LICENSE = "OpenPBS licenses nothing: it checks and stores the value only"
NO_PROVISION = ("provisioning: nothing is provisioned, since aoe requests and node "
                "provision_enable are refused here")
NO_POWER = "power management: PBS acts only through a power hook, which nothing installs here"
NO_TOPJOB = ("only read for top jobs (backfill calendar); the fake's scheduler makes none "
             "(backfill_depth is refused)")
UNKNOWN_HERE = ("PBS's hidden bookkeeping, no client writes it; the fake does not know the name, "
                "so a client naming it gets 15002 (Unknown attribute) where PBS answers 15003")
SCHED_DIFF = "the fake's scheduler has no such behaviour; refused (docs/differences.md)"
T_LIMITS = "tests/mom/test_resource_limits.py::"
T_SETLIM = T_LIMITS + "test_set_limits_are_the_job_processes_rlimits_and_nice"
SETLIM = "resmom/linux/mom_mach.c:mom_set_limits (%s)"

LIMITS = "limits"
STAGING = "staging"
RESV_HELPER = "resvsrv"
INTERACTIVE = "interactive"
MULTINODE = "multinode"

T_STATUS = "tests/server/test_jobs_e2e.py::test_queue_and_server_status"
T_SCHED_OFF = "tests/sched/test_cycle.py::test_scheduling_false_runs_nothing"
T_HIST = ("tests/server/test_history_purge.py::"
          "test_jobs_expire_exactly_when_their_duration_has_passed")
T_ACL_USER = "tests/security/test_server_access.py::test_queue_user_acl_is_enforced_at_qsub"
T_ACL_GH = ("tests/security/test_server_access.py::"
            "test_queue_group_and_host_acls_are_enforced_at_qsub")
T_SRV_ACL = ("tests/security/test_server_access.py::"
             "test_server_user_acl_refuses_every_request_of_an_unlisted_user")
T_MANAGER = "tests/security/test_privileges.py::test_a_listed_manager_manages"
T_OPERATOR = "tests/security/test_privileges.py::test_an_operator_operates_but_does_not_manage"
T_NODE_DOWN = ("tests/reliability/test_node_down.py::"
               "test_down_node_requeues_or_ends_its_jobs_and_gets_no_new_ones")
T_PLACE = "tests/sched/test_placement.py::test_two_cpu_chunk_on_one_host"
T_GPU = "tests/sched/test_placement.py::test_gpus_short_now_and_forever"
T_HOSTRES = "tests/sched/test_placement.py::test_host_resource_selects_the_node"
T_MEMREASON = "tests/sched/test_placement.py::test_memory_reasons_print_sizes"
T_ASSIGNED = ("tests/server/test_assigned.py::"
              "test_only_server_assigned_resources_and_no_array_parent")
T_INVARIANT = "tests/sched/test_invariants.py::test_assigned_never_exceeds_available"
T_ROUTE = "tests/sched/test_cycle.py::test_stopped_and_route_queues_are_skipped"
T_PREEMPT = "tests/sched/test_preempt.py::test_preempt_sort_and_queue_prio"
T_EXEC = "tests/mom/test_exec.py::test_normal_job_events_env_and_output"
T_ARRAY = "tests/server/test_jobs_e2e.py::test_array_job"
T_BIGARRAY = "tests/server/test_arrays.py::test_a_big_array_is_one_record_until_its_subjobs_run"
T_FINISHED = "tests/server/test_jobs_e2e.py::test_finished_job_history"
T_DEFAULTS = "tests/server/test_jobs_e2e.py::test_first_job_id_is_zero_and_defaults"
T_ACCT = "tests/server/test_accounting.py::test_account_and_spaced_project_are_quoted"
T_SELECT = "tests/sched/test_select.py::test_chunks_are_summed_and_counted"
T_QSIG = "tests/server/test_job_control_rules.py::test_qsig_rules"

# Rows several objects share (the same rule, on the server and on queues or the scheduler).
TOTAL_JOBS = behaves("server/req_stat.c:update_state_ct", T_STATUS)
STATE_COUNT = behaves("server/req_stat.c:update_state_ct",
                      "tests/server/test_units.py::test_state_count_text")
ITERATION = behaves("server/sched_func.c:action_sched_iteration",
                    "tests/docs/test_coverage_behaviours.py::"
                    "test_scheduler_iteration_sets_the_timed_cycle")
REQUIRE_CRED = missing("Kerberos credential type; refused (require_cred_enable is)")
NODE_GROUPS = missing(SCHED_DIFF + ": placement by node groups")
FORMULA = missing(SCHED_DIFF + ": job order by formula")
BACKFILL = missing(SCHED_DIFF + ": top jobs and the backfill calendar")

# The run and queue limits of the server and of queues (the limits branch implements them).
LIMIT_ROWS: Dict[str, Row] = {name: in_progress(LIMITS) for name in (
    "max_running", "max_queued", "max_queued_res", "max_run", "max_run_res", "max_run_soft",
    "max_run_res_soft", "max_user_run", "max_group_run", "max_user_res", "max_group_res",
    "max_user_run_soft", "max_group_run_soft", "max_user_res_soft", "max_group_res_soft",
    "queued_jobs_threshold", "queued_jobs_threshold_res")}

SERVER: Dict[str, Row] = {
    **LIMIT_ROWS,
    "server_state": behaves("server/req_stat.c:status_attrib (encode_svrstate)", T_STATUS),
    "server_host": behaves("server/pbsd_init.c:pbsd_init", T_STATUS),
    "scheduling": behaves("server/sched_func.c:action_sched_scheduling; run_sched.c", T_SCHED_OFF),
    "pnames": stored(PBS_STORES + " (pbsnodes prints it)"),
    "total_jobs": TOTAL_JOBS,
    "state_count": STATE_COUNT,
    "acl_host_enable": stored("PBS always admits its own host; every client of the fake is on "
                              "it (docs/differences.md)"),
    "acl_hosts": stored("PBS always admits its own host; every client of the fake is on it "
                        "(docs/differences.md)"),
    "acl_host_moms_enable": stored("admits moms' hosts as clients; every fake mom is on the "
                                   "server's host"),
    "acl_resv_host_enable": in_progress(RESV_HELPER),
    "acl_resv_hosts": in_progress(RESV_HELPER),
    "acl_resv_group_enable": in_progress(RESV_HELPER),
    "acl_resv_groups": in_progress(RESV_HELPER),
    "acl_user_enable": behaves("server/svr_chk_owner.c:authenticate_user", T_SRV_ACL),
    "acl_users": behaves("server/svr_chk_owner.c:authenticate_user", T_SRV_ACL),
    "acl_resv_user_enable": in_progress(RESV_HELPER),
    "acl_resv_users": in_progress(RESV_HELPER),
    "acl_roots": behaves("server/geteusernam.c:determine_euser",
                         "tests/security/test_server_access.py::test_acl_roots_is_a_user_acl"),
    "managers": behaves("server/svr_chk_owner.c:svr_get_privilege", T_MANAGER),
    "operators": behaves("server/svr_chk_owner.c:svr_get_privilege", T_OPERATOR),
    "default_queue": behaves("server/req_quejob.c:req_quejob (get_dfltque)", T_DEFAULTS),
    "log_events": behaves("lib/Liblog/pbs_log.c:log_event (mask)",
                          "tests/server/test_request_log.py::test_request_lines_obey_log_events"),
    "mailer": stored(NO_MAIL),
    "mail_from": stored(NO_MAIL),
    "query_other_jobs": behaves("server/stat_job.c:status_job",
                                "tests/docs/test_coverage_behaviours.py::"
                                "test_query_other_jobs_false_hides_other_users_jobs"),
    "resources_available": behaves("scheduler/server_info.cpp:query_server (server totals)",
                                   T_INVARIANT),
    "resources_default": in_progress(LIMITS),
    "default_chunk": in_progress(LIMITS),
    "resources_max": in_progress(LIMITS),
    "resources_assigned": behaves("server/req_runjob.c:set_resc_assigned", T_ASSIGNED),
    "resources_cost": stored(PBS_STORES),
    "system_cost": stored(PBS_STORES),
    "scheduler_iteration": ITERATION,
    "comment": stored("PBS only stores a server's comment for display"),
    "default_node": stored(PBS_STORES + " (obsolete)"),
    "node_pack": stored(PBS_STORES + " (obsolete)"),
    "flatuid": stored("every client is on the server's host, where PBS never asks whether "
                      "user@host equals user (svr_chk_owner.c: the same-host path)"),
    "resv_enable": in_progress(RESV_HELPER),
    "node_fail_requeue": behaves("server/node_manager.c:node_down_requeue", T_NODE_DOWN),
    "max_array_size": behaves("server/array_func.c:setup_arrayjob_attrs",
                              "tests/server/test_attribute_tables.py::test_max_array_size"),
    "resend_term_delay": stored("openpbs master only (not in 23.06.06); its default, the "
                                "fake's behaviour, is never changed by a test"),
    "require_cred_enable": missing("Kerberos credentials required at submission; refused when "
                                   "set true"),
    "require_cred": REQUIRE_CRED,
    "node_group_enable": NODE_GROUPS,
    "node_group_key": NODE_GROUPS,
    "default_qdel_arguments": stored("qdel's only default argument is -Wsuppress_email, and no "
                                     "mail is sent here"),
    "default_qsub_arguments": in_progress(LIMITS),
    "rpp_retry": stored(NO_NET),
    "rpp_highwater": stored(NO_NET),
    "pbs_license_info": stored(NO_LICENSE),
    "pbs_license_min": stored(NO_LICENSE),
    "pbs_license_max": stored(NO_LICENSE),
    "pbs_license_linger_time": stored(NO_LICENSE),
    "license_count": stored(STATUS + "; OpenPBS counts no licenses"),
    "pbs_version": behaves("server/pbsd_init.c", "tests/cli/test_job_control.py::"
                           "test_version_everywhere"),
    "job_sort_formula": FORMULA,
    "eligible_time_enable": missing("eligible-time accrual (accrue_type, eligible_time); "
                                    "refused when set true"),
    "reserve_retry_time": in_progress(RESV_HELPER),
    "reserve_retry_init": in_progress(RESV_HELPER),
    "job_history_enable": behaves("server/svr_jobfunc.c:svr_histjob_update",
                                  "tests/executor/test_e2e.py::test_without_job_history"),
    "job_history_duration": behaves("server/svr_jobfunc.c:svr_clean_job_history", T_HIST),
    "provision_enable": stored(STATUS + "; " + NO_PROVISION),
    "max_concurrent_provision": stored(NO_PROVISION),
    "clear_topjob_estimates_enable": stored("openpbs master only (not in 23.06.06); "
                                            + NO_TOPJOB),
    "provision_timeout": stored(INTERNAL + "; " + NO_PROVISION),
    "resv_post_processing_time": in_progress(RESV_HELPER),
    "backfill_depth": BACKFILL,
    "job_requeue_timeout": behaves("server/req_rerun.c:req_rerunjob (timeout)",
                                   "tests/docs/test_coverage_behaviours.py::"
                                   "test_job_requeue_timeout_bounds_a_qrerun_reply"),
    "python_restart_max_hooks": stored("each hook runs in its own python3, so there is no "
                                       "long-lived interpreter to restart"),
    "python_restart_max_objects": stored("each hook runs in its own python3, so there is no "
                                         "long-lived interpreter to restart"),
    "python_restart_min_interval": stored("each hook runs in its own python3, so there is no "
                                          "long-lived interpreter to restart"),
    "jobscript_max_size": behaves("server/req_quejob.c:req_jobscript; "
                                  "svr_func.c:action_jobscript_max_size",
                                  "tests/docs/test_coverage_behaviours.py::"
                                  "test_jobscript_max_size_refuses_a_larger_script"),
    "restrict_res_to_release_on_suspend": missing("suspended jobs give back all their "
                                                  "resources here; refused"),
    "power_provisioning": stored("no write right (15003); " + NO_POWER),
    "show_hidden_attribs": missing("shows hidden attributes to managers; refused when set "
                                   "true"),
    "sync_mom_hookfiles_timeout": stored("hook files reach every fake mom through the "
                                         "cluster's home at once: no sync to time out"),
    "rpp_max_pkt_check": stored(NO_NET),
    "max_job_sequence_id": behaves("server/pbsd_init.c; svr_jobfunc.c:get_next_svr_sequence_id",
                                   "tests/server/test_seq.py::"
                                   "test_numbers_follow_wrap_and_skip_those_in_use"),
    "has_runjob_hook": stored(INTERNAL),
    "acl_krb_realm_enable": stored(NO_KRB),
    "acl_krb_realms": stored(NO_KRB),
    "acl_krb_submit_realms": stored(NO_KRB),
    "cred_renew_enable": stored(NO_KRB),
    "cred_renew_tool": stored(NO_KRB),
    "cred_renew_period": stored(NO_KRB),
    "cred_renew_cache_period": stored(NO_KRB),
}

QUEUE: Dict[str, Row] = {
    **LIMIT_ROWS,
    "queue_type": behaves("scheduler/queue_info.cpp:query_queue_info (execution only)", T_ROUTE),
    "Priority": behaves("scheduler/fifo.cpp (sort by queue priority)",
                        "tests/sched/test_cycle.py::test_queue_priority_first"),
    "max_queuable": in_progress(LIMITS),
    "total_jobs": TOTAL_JOBS,
    "state_count": STATE_COUNT,
    "acl_host_enable": behaves("server/svr_jobfunc.c:svr_chkque (acl hosts)", T_ACL_GH),
    "acl_hosts": behaves("server/svr_jobfunc.c:svr_chkque (acl hosts)", T_ACL_GH),
    "acl_user_enable": behaves("server/svr_jobfunc.c:svr_chkque (acl users)", T_ACL_USER),
    "acl_users": behaves("server/svr_jobfunc.c:svr_chkque (acl users)", T_ACL_USER),
    "from_route_only": in_progress(LIMITS, "route queues: in progress by limits"),
    "resources_max": in_progress(LIMITS),
    "resources_min": in_progress(LIMITS),
    "resources_default": in_progress(LIMITS),
    "require_cred_enable": missing("Kerberos credentials required in the queue; refused when "
                                   "set true"),
    "require_cred": REQUIRE_CRED,
    "max_array_size": behaves("server/svr_jobfunc.c:svr_chkque (max_array_size)",
                              "tests/server/test_attribute_tables.py::test_max_array_size"),
    "comment": stored("PBS only stores a queue's comment for display"),
    "acl_group_enable": behaves("server/svr_jobfunc.c:svr_chkque (acl groups)", T_ACL_GH),
    "acl_groups": behaves("server/svr_jobfunc.c:svr_chkque (acl groups)", T_ACL_GH),
    "checkpoint_min": stored("the least interval of periodic checkpoints; no mom here has a "
                             "checkpoint script, and PBS's mom without one takes none either"),
    "rendezvous_retry": stored(PBS_STORES),
    "reserved_expedite": stored(PBS_STORES),
    "reserved_sync": stored(PBS_STORES),
    "default_chunk": in_progress(LIMITS),
    "resources_available": missing("queue-level resource pools for the scheduler; refused"),
    "resources_assigned": behaves("server/req_runjob.c:set_resc_assigned", T_ASSIGNED),
    "kill_delay": behaves("resmom/requests.c:req_signaljob / mom kill_job (SIGTERM then "
                          "SIGKILL)", "tests/mom/test_exec.py::"
                                      "test_termjob_escalates_to_sigkill_265"),
    "hasnodes": stored(STATUS + ": no node is associated with a queue here (node queue is "
                       "refused)"),
    "node_group_key": NODE_GROUPS,
    "backfill_depth": BACKFILL,
    "route_destinations": in_progress(LIMITS, "route queues: in progress by limits"),
    "alt_router": in_progress(LIMITS, "route queues: in progress by limits"),
    "route_held_jobs": in_progress(LIMITS, "route queues: in progress by limits"),
    "route_waiting_jobs": in_progress(LIMITS, "route queues: in progress by limits"),
    "route_retry_time": in_progress(LIMITS, "route queues: in progress by limits"),
    "route_lifetime": in_progress(LIMITS, "route queues: in progress by limits"),
    "enabled": in_progress(LIMITS),
    "started": behaves("scheduler/queue_info.cpp:query_queue_info (started queues only)",
                       T_ROUTE),
    "partition": missing("scheduler partitions (multi-sched); refused"),
}

NODE: Dict[str, Row] = {
    "Mom": behaves("server/node_manager.c (the mom a vnode belongs to)",
                   "tests/hooks/test_abort_paths.py::"
                   "test_sister_join_failure_aborts_before_end_and_requeues"),
    "Port": stored("the mom's TCP port; fake moms listen on Unix sockets (shown as PBS shows "
                   "it)"),
    "pbs_version": stored(STATUS + " (the mom's version)"),
    "ntype": stored(STATUS + " (always PBS)"),
    "state": behaves("scheduler/node_info.cpp:is_node_eligible; server/node_manager.c",
                     "tests/sched/test_placement.py::test_offline_node", T_NODE_DOWN),
    "pcpus": stored(STATUS + " (the cpus the mom reports)"),
    "Priority": missing("the scheduler's node order (node_sort_key sort_priority); refused"),
    "jobs": behaves("server/node_func.c:encode_jobs",
                    "tests/cli/test_pbsnodes.py::test_job_summary_of_a_node_running_a_gpu_job"),
    "max_running": missing("per-vnode job limits in the scheduler; refused"),
    "max_user_run": missing("per-vnode job limits in the scheduler; refused"),
    "max_group_run": missing("per-vnode job limits in the scheduler; refused"),
    "no_tasks": stored(PBS_STORES),
    "pnames": stored(PBS_STORES),
    "resv": in_progress(RESV_HELPER),
    "resources_available": behaves("scheduler/node_info.cpp:query_node_info; check_spec.cpp",
                                   T_PLACE, T_GPU),
    "resources_assigned": behaves("server/node_manager.c:update_job_node_rassn", T_INVARIANT,
                                  "tests/sched/test_placement.py::"
                                  "test_slot_index_follows_running_jobs"),
    "queue": missing("a vnode tied to one queue's jobs; refused"),
    "comment": behaves("scheduler and server node comments (node_manager.c:set_vnode_state)",
                       "tests/cli/test_pbsnodes.py::test_summaries_of_an_offline_node"),
    "resv_enable": in_progress(RESV_HELPER),
    "no_multinode_jobs": missing("vnodes that refuse multi-host jobs; refused when set true"),
    "sharing": behaves("scheduler/node_info.cpp (sharing vs place=excl)",
                       "tests/sched/test_placement.py::test_excl_needs_an_unused_node"),
    "provision_enable": missing(NO_PROVISION + "; refused when set true"),
    "current_aoe": missing(NO_PROVISION + "; refused"),
    "in_multivnode_host": stored("set by a mom that reports several vnodes; fake moms report "
                                 "one vnode each"),
    "maintenance_jobs": missing("the admin-suspended jobs of a vnode: qsig -s admin-suspend "
                                "puts the vnode in maintenance, but this list is not shown; "
                                "read only (15003)"),
    "license": stored(STATUS + "; " + NO_LICENSE),
    "license_info": stored(INTERNAL + "; " + NO_LICENSE),
    "topology_info": stored(INTERNAL + " (the mom's hwloc topology, for licensing)"),
    "vnode_pool": missing("mom pools (several moms answering for a vnode); refused"),
    "power_provisioning": missing(NO_POWER + "; refused when set true"),
    "current_eoe": missing(NO_POWER + "; refused"),
    "partition": missing("scheduler partitions (multi-sched); refused"),
    "poweroff_eligible": stored(PBS_STORES + " (a power hook reads it)"),
    "last_state_change_time": behaves("server/node_manager.c:set_vnode_state",
                                      "tests/server/test_request_log.py::"
                                      "test_set_vnode_state_lines"),
    "last_used_time": stored(STATUS + " (when the vnode last ended a job)"),
}

SCHED: Dict[str, Row] = {
    "sched_host": stored(STATUS + "; the scheduler is a thread of the server"),
    "sched_cycle_length": stored("the longest a cycle may take; a fake cycle over a few "
                                 "vnodes never comes near it"),
    "do_not_span_psets": missing(SCHED_DIFF + ": placement sets; refused when set true"),
    "only_explicit_psets": missing(SCHED_DIFF + ": placement sets; refused when set true"),
    "sched_preempt_enforce_resumption": missing(SCHED_DIFF + ": resuming preempted jobs "
                                                "first; refused when set true"),
    "preempt_targets_enable": stored("read with the preempt_targets resource, which is refused "
                                     "here"),
    "job_sort_formula_threshold": stored("read with job_sort_formula, which is refused here"),
    "throughput_mode": stored("whether the scheduler waits for each run's reply; the fake's "
                              "scheduler runs inside the server, which answers at once"),
    "job_run_wait": stored("whether the scheduler waits for each run's reply; the fake's "
                           "scheduler runs inside the server, which answers at once"),
    "opt_backfill_fuzzy": stored(NO_TOPJOB),
    "partition": stored("one scheduler, one partition: the default's name is shown as PBS "
                        "shows it"),
    "sched_priv": stored("where PBS's scheduler keeps its files; the fake's reads "
                         "sched_config from the cluster's home"),
    "sched_log": stored("the scheduler's log directory; the fake's scheduler logs in the "
                        "server log"),
    "scheduling": behaves("scheduler/fifo.cpp:scheduling_cycle; server/sched_func.c",
                          T_SCHED_OFF),
    "scheduler_iteration": ITERATION,
    "sched_user": stored(PBS_STORES),
    "comment": stored("PBS only stores it, and the scheduler's own notes"),
    "state": stored(STATUS + " (idle/scheduling)"),
    "preempt_queue_prio": behaves("scheduler/prev_job_info.cpp / fifo.cpp (express queues)",
                                  T_PREEMPT),
    "preempt_prio": behaves("scheduler/fifo.cpp:preempt_job_set (preempt levels)",
                            "tests/preempt/test_suspend.py::"
                            "test_only_lower_priority_jobs_are_victims"),
    "preempt_order": behaves("scheduler/fifo.cpp:preempt_job (S, C, R, D)",
                             "tests/sched/test_preempt.py::test_order_steps",
                             "tests/preempt/test_ranges.py::"
                             "test_range_after_the_threshold_suspends"),
    "preempt_sort": behaves("scheduler/job_info.cpp (min_time_since_start)",
                            "tests/sched/test_preempt.py::"
                            "test_most_recently_started_first_and_only_as_many_as_needed"),
    "log_events": stored("the scheduler's own log mask; the fake's scheduler writes its few "
                         "lines in the server log"),
    "job_sort_formula": FORMULA,
    "server_dyn_res_alarm": stored("the timeout of server_dyn_res scripts, which the fake's "
                                   "sched_config does not run"),
    "attr_update_period": stored("how often the scheduler sends estimates; " + NO_TOPJOB),
}

JOB: Dict[str, Row] = {
    "Job_Name": behaves("server/req_quejob.c:req_quejob; resmom (PBS_JOBNAME, output names)",
                        "tests/mom/test_units.py::test_output_paths"),
    "Job_Owner": behaves("server/req_quejob.c:req_quejob (owner from the connection)",
                         "tests/security/test_attribute_rules.py::"
                         "test_raw_queuejob_owner_is_the_caller"),
    "resources_used": behaves("resmom/mom_main.c:update_ajob_status; server/req_jobobit.c",
                              "tests/server/test_request_log.py::"
                              "test_end_usage_is_the_e_records_usage"),
    "resources_used_acct": missing(UNKNOWN_HERE),
    "resources_used_update": missing(UNKNOWN_HERE),
    "job_state": behaves("server/svr_jobfunc.c:svr_setjobstate", T_FINISHED),
    "resv": in_progress(RESV_HELPER),
    "queue": behaves("server/req_quejob.c:req_quejob", T_DEFAULTS),
    "server": behaves("server/req_quejob.c:req_quejob", T_DEFAULTS),
    "Account_Name": behaves("server/accounting.c:acct_job", T_ACCT),
    "Checkpoint": behaves("scheduler/prev_job_info / fifo.cpp:preempt_job (C needs a "
                          "checkpointable job)", "tests/sched/test_preempt.py::"
                                                 "test_usable_methods"),
    "ctime": behaves("server/req_quejob.c:req_quejob", T_DEFAULTS),
    "depend": behaves("server/req_register.c:depend_on_que, depend_on_term",
                      "tests/server/test_jobs_e2e.py::test_dependency_afterok"),
    "Error_Path": behaves("resmom/mom_main.c / start_exec.c:std_file_name",
                          "tests/mom/test_exec.py::test_join_oe_and_output_directory"),
    "exec_host": behaves("server/req_runjob.c:svr_startjob (exec_host from exec_vnode)",
                         "tests/hooks/test_reject_paths.py::"
                         "test_a_job_after_a_refused_run_gets_the_first_free_slot"),
    "exec_host2": missing(UNKNOWN_HERE),
    "exec_host_acct": missing(UNKNOWN_HERE),
    "exec_host_orig": missing(UNKNOWN_HERE),
    "exec_vnode": behaves("scheduler/fifo.cpp:run_update_job (exec_vnode)",
                          "tests/sched/test_placement.py::test_gpu_job_exec_vnode"),
    "exec_vnode_acct": missing(UNKNOWN_HERE),
    "exec_vnode_deallocated": missing(UNKNOWN_HERE),
    "exec_vnode_orig": missing(UNKNOWN_HERE),
    "Execution_Time": behaves("server/svr_jobfunc.c:job_wait_over (state W)",
                              "tests/sched/test_cycle.py::"
                              "test_execution_time_in_future_is_skipped"),
    "group_list": behaves("server/geteusernam.c:set_objexid (egroup)",
                          "tests/security/test_identity.py::"
                          "test_own_user_and_login_group_are_accepted"),
    "Hold_Types": behaves("server/req_holdjob.c:req_holdjob, req_releasejob",
                          "tests/server/test_jobs_e2e.py::test_hold_release_runs"),
    "interactive": in_progress(INTERACTIVE),
    "Join_Path": behaves("resmom/start_exec.c (join oe/eo)",
                         "tests/mom/test_units.py::test_join_oe_delivers_only_stdout"),
    "Keep_Files": behaves("resmom/start_exec.c:std_file_name (keep in home)",
                          "tests/mom/test_units.py::test_keep_files_in_home"),
    "Mail_Points": stored(NO_MAIL),
    "Mail_Users": stored(NO_MAIL),
    "mtime": stored(STATUS + " (the last change's time)"),
    "no_stdio_sockets": stored(PBS_STORES),
    "Output_Path": behaves("resmom/start_exec.c:std_file_name",
                           "tests/mom/test_exec.py::test_join_oe_and_output_directory"),
    "Priority": behaves("scheduler: job_priority is no sort key in the default sched_config",
                        "tests/sched/test_cycle.py::"
                        "test_job_priority_is_not_a_sort_key_by_default"),
    "qtime": behaves("server/req_quejob.c (qtime; FIFO order)",
                     "tests/sched/test_cycle.py::test_fifo_by_submission"),
    "Remove_Files": missing("removal of the output files after delivery (-R); refused"),
    "Rerunable": behaves("server/req_rerun.c:req_rerunjob",
                         "tests/server/test_job_control_rules.py::"
                         "test_qrerun_checks_rerunable_before_the_state"),
    "Resource_List": behaves("server/svr_jobfunc.c / scheduler (requests)", T_PLACE),
    "Resource_List_orig": missing(UNKNOWN_HERE),
    "Resource_List_acct": missing(UNKNOWN_HERE),
    "schedselect": behaves("server/svr_jobfunc.c:set_chunk_sum / make_schedselect",
                           "tests/server/test_units.py::test_job_attribute_order_matches_qstat_f"),
    "schedselect_orig": missing(UNKNOWN_HERE),
    "stime": behaves("server/req_runjob.c:svr_startjob",
                     "tests/preempt/test_ranges.py::test_range_after_the_threshold_suspends"),
    "obittime": behaves("server/req_jobobit.c:job_obit", T_FINISHED),
    "session_id": behaves("resmom/start_exec.c (the job shell's session)", T_EXEC),
    "Shell_Path_List": behaves("resmom/start_exec.c:set_shell",
                               "tests/mom/test_jobshell.py::"
                               "test_script_without_shebang_runs_in_the_job_shell"),
    "sandbox": behaves("resmom/start_exec.c (PRIVATE sandbox)",
                       "tests/mom/test_exec.py::test_private_sandbox"),
    "jobdir": behaves("resmom/start_exec.c (jobdir)",
                      "tests/server/test_sandbox_jobdir.py::"
                      "test_start_event_sets_the_sandbox_jobdir"),
    "stagein": in_progress(STAGING),
    "stageout": in_progress(STAGING),
    "substate": behaves("server/svr_jobfunc.c:svr_setjobstate", T_FINISHED),
    "User_List": behaves("server/geteusernam.c:determine_euser",
                         "tests/security/test_identity.py::test_qalter_checks_the_same_rules"),
    "Variable_List": behaves("resmom/start_exec.c (job environment)",
                             "tests/mom/test_jobshell.py::"
                             "test_variable_list_is_decoded_as_the_mom_decodes_it"),
    "euser": behaves("server/geteusernam.c:set_objexid",
                     "tests/mom/test_exec.py::test_job_runs_as_its_owner"),
    "egroup": behaves("server/geteusernam.c:set_objexid",
                      "tests/security/test_identity.py::"
                      "test_own_user_and_login_group_are_accepted"),
    "hashname": stored(INTERNAL + " (file names of the job's records)"),
    "hop_count": stored(INTERNAL),
    "queue_rank": stored(INTERNAL + " (the fake orders by qtime and id)"),
    "queue_type": stored(INTERNAL),
    "sched_hint": stored(INTERNAL),
    "security": stored(INTERNAL),
    "comment": behaves("scheduler/job_info.cpp:update_job_comment",
                       "tests/sched/test_placement.py::test_unchanged_comment_is_not_repeated"),
    "cookie": stored(INTERNAL),
    "alt_id": stored(STATUS + " (a mom's alternate id; Linux moms set none)"),
    "alt_id2": missing(UNKNOWN_HERE),
    "etime": behaves("server/svr_jobfunc.c:svr_setjobstate (eligible since)",
                     "tests/server/test_accounting.py::"
                     "test_q_record_names_dependencies_after_etime"),
    "reserve_ID": in_progress(RESV_HELPER),
    "last_context_refresh": stored(INTERNAL),
    "gridname": stored(PBS_STORES),
    "umask": in_progress(STAGING, "-W umask as PBS stores and prints it: in progress by "
                         "staging"),
    "block": behaves("cmds/qsub.c (block); server/req_jobobit.c (reply at the obit)",
                     "tests/cli/test_qsub.py::test_block_waits_for_the_exit_status"),
    "cred": missing("a Kerberos credential qsub sends in a Kerberos build; " + UNKNOWN_HERE),
    "run_count": behaves("server/req_runjob.c:svr_startjob (run_count)",
                         "tests/hooks/test_reject_paths.py::"
                         "test_begin_reject_requeues_without_a_run_then_holds"),
    "accounting_id": stored(STATUS + " (set by a site's job container; Linux moms set none)"),
    "eligible_time": stored("accrues only with eligible_time_enable, which is refused here; "
                            "PBS then only stores a value an operator sets"),
    "accrue_type": stored("accrues only with eligible_time_enable, which is refused here; "
                          "PBS then only stores a value a manager sets"),
    "sample_starttime": stored(INTERNAL),
    "job_kill_delay": stored(INTERNAL),
    "Stageout_status": behaves("server/req_jobobit.c (stage-out outcome)",
                               "tests/server/test_end_of_job_copy.py::"
                               "test_undelivered_output_is_stageout_status_0"),
    "Exit_status": behaves("server/req_jobobit.c:job_obit",
                           "tests/server/test_jobs_e2e.py::test_failed_job"),
    "Submit_arguments": behaves("cmds/qsub.c (Submit_arguments)",
                                "tests/cli/test_qsub.py::test_a08_dashdash_command"),
    "executable": behaves("resmom/start_exec.c (qsub -- command jobs)",
                          "tests/mom/test_exec.py::test_command_job_runs_executable"),
    "argument_list": behaves("resmom/start_exec.c (qsub -- command jobs)",
                             "tests/mom/test_exec.py::test_command_job_runs_executable"),
    "prov_vnode": stored(INTERNAL + "; " + NO_PROVISION),
    "array": behaves("server/array_func.c", T_ARRAY),
    "array_id": behaves("server/array_func.c:create_subjob", T_ARRAY),
    "array_index": behaves("server/array_func.c:create_subjob", T_BIGARRAY),
    "array_state_count": behaves("server/array_func.c (state counts)", T_BIGARRAY),
    "array_indices_submitted": behaves("server/array_func.c:setup_arrayjob_attrs", T_ARRAY),
    "array_indices_remaining": behaves("server/array_func.c (remaining indices)", T_BIGARRAY),
    "estimated": stored("written by the scheduler for top jobs, which the fake makes none of; "
                        "PBS only stores a manager's value"),
    "node_set": stored(INTERNAL + " (placement sets, refused here)"),
    "history_timestamp": behaves("server/svr_jobfunc.c:svr_histjob_update", T_HIST),
    "project": behaves("server/accounting.c:acct_job", T_ACCT),
    "forward_x11_cookie": in_progress(INTERACTIVE),
    "forward_x11_port": in_progress(INTERACTIVE),
    "ptime": stored(INTERNAL + " (preemption time, written by the scheduler)"),
    "run_version": stored(INTERNAL),
    "gui": in_progress(INTERACTIVE),
    "topjob": missing(NO_TOPJOB + "; " + UNKNOWN_HERE),
    "topjob_ineligible": stored(NO_TOPJOB),
    "resources_released": stored(INTERNAL + " (resources released on suspension)"),
    "resource_released_list": stored(INTERNAL + " (resources released on suspension)"),
    "release_nodes_on_stageout": in_progress(STAGING),
    "tolerate_node_failures": in_progress(MULTINODE, "sister failures tolerated by hooks: in "
                                          "progress by multinode"),
    "Submit_Host": behaves("server/req_quejob.c (the connection's host)",
                           "tests/security/test_log_records.py::"
                           "test_the_submit_host_comes_from_the_connection"),
    "credential_id": stored(NO_KRB),
    "credential_validity": stored(NO_KRB),
    "create_resv_from_job": in_progress(RESV_HELPER),
    "max_run_subjobs": behaves("scheduler/check.cpp:is_ok_to_run (MAX_RUN_SUBJOBS)",
                               "tests/docs/test_coverage_behaviours.py::"
                               "test_max_run_subjobs_caps_the_running_subjobs"),
}

NOT_ON_LINE = ("not on sched_config's default resources: line, so PBS's scheduler does not "
               "check it either; it stays in Resource_List (extra n02m, n02n)")

RESOURCE: Dict[str, Row] = {
    "cput": behaves(SETLIM % "RLIMIT_CPU; polled in resmom/mom_main.c:mom_over_limit",
                    T_LIMITS + "test_cput_over_the_job_total_kills_the_job"),
    "mem": behaves("scheduler/check_spec.cpp (consumable); the mom enforces it only with "
                   "$enforce mem, off by default", T_MEMREASON),
    "walltime": behaves("resmom/mom_main.c (walltime over limit)",
                        "tests/mom/test_exec.py::test_walltime_kill"),
    "soft_walltime": stored("PBS never ends a job at it; only top-job estimates and preempt "
                            "ranges read it"),
    "min_walltime": missing(SCHED_DIFF + ": shrink-to-fit jobs"),
    "max_walltime": missing(SCHED_DIFF + ": shrink-to-fit jobs"),
    "ncpus": behaves("scheduler/check_spec.cpp (consumable)", T_PLACE),
    "naccelerators": stored(NOT_ON_LINE),
    "select": behaves("server/svr_jobfunc.c:set_chunk_sum; scheduler placement", T_SELECT),
    "place": behaves("scheduler/check_spec.cpp (place=pack/scatter/excl)",
                     "tests/sched/test_placement.py::test_scatter_over_two_hosts"),
    "nodes": behaves("server/svr_jobfunc.c (nodes becomes select)",
                     "tests/sched/test_select.py::test_nodes_spec_becomes_select"),
    "nodect": behaves("server/svr_jobfunc.c:set_chunk_sum", T_SELECT),
    "arch": behaves("scheduler/check_spec.cpp (string match, on the resources: line)",
                    "tests/docs/test_coverage_behaviours.py::test_arch_selects_the_vnode"),
    "nchunk": stored(PBS_STORES),
    "vntype": stored(NOT_ON_LINE),
    "mpiprocs": behaves("resmom/start_exec.c (PBS_NODEFILE lines)",
                        "tests/mom/test_units.py::test_nodefile_one_line_per_mpiproc"),
    "ompthreads": behaves("resmom/start_exec.c (OMP_NUM_THREADS)", T_EXEC),
    "cpupercent": stored("a usage the mom reports; as a request PBS acts on it only with "
                         "$enforce cpuaverage, off by default"),
    "energy": stored("a usage power hooks report; " + NO_POWER),
    "file": behaves(SETLIM % "RLIMIT_FSIZE", T_LIMITS + "test_file_limit_stops_a_bigger_write"),
    "pmem": behaves(SETLIM % "RLIMIT_RSS", T_SETLIM),
    "vmem": behaves(SETLIM % "RLIMIT_AS; polled in resmom/mom_main.c:mom_over_limit; both only "
                    "when exec_vnode carries it: vmem on sched_config's resources: line",
                    T_LIMITS + "test_vmem_over_the_host_share_kills_the_job"),
    "pvmem": behaves(SETLIM % "RLIMIT_AS", T_SETLIM),
    "nice": behaves(SETLIM % "nice", T_SETLIM),
    "pcput": behaves(SETLIM % "RLIMIT_CPU", T_LIMITS + "test_pcput_kills_the_process_over_it"),
    "nodemask": stored(PBS_STORES),
    "hpm": stored(NOT_ON_LINE),
    "ssinodes": stored(PBS_STORES),
    "host": behaves("scheduler/check_spec.cpp (string match)", T_HOSTRES),
    "vnode": behaves("scheduler/check_spec.cpp (string match)", T_HOSTRES),
    "resc": stored(PBS_STORES),
    "software": stored(NOT_ON_LINE),
    "site": stored(PBS_STORES),
    "exec_vnode": stored(PBS_STORES),
    "start_time": stored(NO_TOPJOB),
    "partition": missing("scheduler partitions (multi-sched); refused"),
    "aoe": missing(NO_PROVISION + "; refused"),
    "eoe": stored(NO_POWER),
    "preempt_targets": missing(SCHED_DIFF + ": preemption limited to targets"),
    "accelerator": stored(NOT_ON_LINE),
    "accelerator_model": stored(NOT_ON_LINE),
    "accelerator_memory": stored(NOT_ON_LINE),
    "accelerator_group": stored(NOT_ON_LINE),
    "pstate": stored(NO_POWER),
    "hbmem": stored(NOT_ON_LINE),
    "pgov": stored(NO_POWER),
    "pcap_node": stored(NO_POWER),
    "pcap_accelerator": stored(NO_POWER),
}

HOOK: Dict[str, Row] = {
    "hook_name": stored("the hook's name, given at create (qmgr create hook NAME)"),
    "type": behaves("server/hook_func.c (site hooks via hook, PBS hooks via pbshook)",
                    "tests/cli/test_qmgr_golden.py::test_extra_hook_attribute_cases"),
    "user": behaves("server/hook_func.c; resmom/mom_hook_func.c (pbsuser hooks run as the "
                    "job owner)", "tests/hooks/test_runas.py::"
                                  "test_pbsuser_hooks_run_as_the_job_owner"),
    "enabled": behaves("server/hook_func.c (disabled hooks are skipped)",
                       "tests/docs/test_coverage_behaviours.py::test_disabled_hooks_do_not_run"),
    "debug": stored("PBS writes hook input/output debug files with it; not modelled there "
                    "either way, the value is shown as PBS shows it"),
    "event": behaves("server/hook_func.c (events a hook runs for)",
                     "tests/mom/test_hookpoints.py::"
                     "test_prologue_reject_requeues_and_aborts_before_end"),
    "order": behaves("server/hook_func.c:insert_hook_sort_order",
                     "tests/docs/test_coverage_behaviours.py::test_hooks_run_in_ascending_order"),
    "alarm": behaves("src/lib/Libpython (hook alarm)",
                     "tests/hooks/test_runner.py::"
                     "test_alarm_kills_the_hook_and_keeps_earlier_messages"),
    "freq": behaves("server/hook_func.c (periodic hooks every freq seconds)",
                    "tests/fidelity/test_replay.py::test_golden_case[m08b]"),
    "fail_action": missing("what a failed execjob_begin/prologue/exechost_startup hook does to "
                           "the vnode (offline_vnodes, ...); flagged in the server log when set"),
    "pending_delete": stored(INTERNAL),
}

RESV: Dict[str, Row] = {}  # filled below: every reservation attribute is in progress

_RESV_NAMES = (
    "Reserve_Name", "Reserve_Owner", "reserve_state", "reserve_substate", "reservation_Tag",
    "reserve_ID", "reserve_start", "reserve_end", "reserve_duration", "queue", "Resource_List",
    "schedselect", "resources_used", "resv_nodes", "User_List", "group_list",
    "Authorized_Users", "Authorized_Groups", "Authorized_Hosts", "server", "Account_Name",
    "ctime", "Mail_Points", "Mail_Users", "mtime", "hashname", "hop_count", "Priority",
    "interactive", "Variable_List", "euser", "egroup", "qmove", "reserve_standing",
    "reserve_rrule", "reserve_index", "reserve_count", "reserve_execvnodes", "reserve_timezone",
    "reserve_retry", "delete_idle_time", "reserve_job", "schedselect_orig", "Submit_Host",
    "credential_id", "node_set", "partition", "reserve_alter_revert", "reserve_standing_revert",
)
for _name in _RESV_NAMES:
    RESV[_name] = in_progress(RESV_HELPER, "reservations: in progress by resvsrv/resvcli")

#: the attributes of a resource definition (``qmgr -c 'create resource NAME type=T, flag=F'``)
RESOURCE_DEF: Dict[str, Row] = {
    "type": behaves("server/resc_def.c / req_manager.c (a site resource's value type)",
                    "tests/server/test_site_resources.py::"
                    "test_ngpus_is_unknown_until_the_site_creates_it"),
    "flag": behaves("scheduler: flags h and n make a host-level consumable",
                    T_GPU),
}

#: object -> attribute -> row; the objects as pbs_attributes.tsv names them
TABLES: Dict[str, Dict[str, Row]] = {
    "job": JOB, "server": SERVER, "queue": QUEUE, "node": NODE, "sched": SCHED,
    "resv": RESV, "resource": RESOURCE, "hook": HOOK, "resourcedef": RESOURCE_DEF,
}
