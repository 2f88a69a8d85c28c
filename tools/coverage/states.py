"""The state of every attribute of OpenPBS 23.06's tables in fake_pbs: one row per attribute.

Hand-maintained: a row says ``behaves`` only where a test would fail if the behaviour went away,
``stored only`` with the reason that is PBS's own behaviour here, and ``not modelled`` where the
fake refuses what PBS would act on (``fake_pbs/model/unmodelled.py``; docs/differences.md lists
it).  ``rows.in_progress(area)`` marks what another helper is implementing (none now).
``tests/docs/test_coverage.py`` checks the rows against the vendored PBS list
(``pbs_attributes.tsv``) and the fake's own tables.
"""
from typing import Dict

from tools.coverage.rows import Row, behaves, missing, refused, refused_when_true, stored

# Reasons shared by many rows.
PBS_STORES = "PBS itself only stores it: OpenPBS 23.06 reads it nowhere"
STATUS = "a status value the server computes for display; no client writes it"
INTERNAL = "the server's own bookkeeping: no read or write right for any client (15003)"
T_MAIL = "tests/server/test_mail.py::"
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

T_STAGE = "tests/staging/test_staging_cluster.py::"
NO_RECONFIRM = ("PBS reads it only to reconfirm a degraded reservation; the fake never "
                "degrades one (docs/differences.md, Reservations)")

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
T_PSETS = "tests/sched/test_placement_sets.py::"
NODE_GROUPS = behaves("scheduler/check.cpp:check_normal_node_path; node_partition.cpp; "
                      "node_info.cpp:eval_selspec",
                      T_PSETS + "test_server_node_grouping_and_a_queue_key")
T_JSF = "tests/sched/test_job_sort_formula.py::"
FORMULA = behaves("scheduler/job_info.cpp:formula_evaluate, sort.cpp:cmp_sort; "
                  "server/sched_func.c:validate_job_formula",
                  T_JSF + "test_the_highest_formula_value_runs_first",
                  T_JSF + "test_a_formula_is_checked_when_set",
                  T_JSF + "test_only_who_may_write_the_home_sets_it_and_sched_and_server_agree",
                  "tests/server/test_vnode_rules.py::test_job_sort_formula_orders_the_queue")
BACKFILL = missing(SCHED_DIFF + ": top jobs and the backfill calendar")
PSETS = behaves("scheduler/node_info.cpp:eval_selspec (SPAN_PSETS); "
                "node_partition.cpp (NP_CREATE_REST)",
                T_PSETS + "test_a_busy_set_makes_the_job_wait_and_a_too_big_one_spans_or_never_"
                "runs",
                T_PSETS + "test_only_explicit_psets_leaves_out_vnodes_without_the_resource")
PARTITION = refused("scheduler partitions (multi-sched)")
T_VRULES = "tests/sched/test_vnode_rules.py::"
T_VQUEUE = "tests/server/test_vnode_rules.py::"
VNODE_LIMITS = behaves("scheduler/node_info.cpp:is_vnode_eligible (not for a qrun job)",
                       T_VRULES + "test_max_running_and_max_user_run_of_a_vnode",
                       T_VRULES + "test_max_group_run_and_a_qrun_job_passes_the_limits",
                       T_VQUEUE + "test_a_vnode_max_running")

# The run and queue limits of the server and of queues: the same rules on both objects.
T_LIM = "tests/limits/"
T_ENQ = T_LIM + "test_enqueue.py::"
T_RUNLIM = T_LIM + "test_run_limits.py::"
T_ROUTING = T_LIM + "test_routing.py::"
T_DEFAULTS_LIM = T_LIM + "test_defaults.py::"
CT_MAX = "server/svr_func.c:check_entity_ct_limit_max (from svr_chkque)"
CT_QUEUED = "server/svr_func.c:check_entity_ct_limit_queued (from svr_chkque)"
RESC_MAX = "server/svr_func.c:check_entity_resc_limit_max (from svr_chkque)"
RESC_QUEUED = "server/svr_func.c:check_entity_resc_limit_queued (from svr_chkque)"
RUN_LIMITS = ("scheduler/limits.cpp:check_limits (check_queue_max_run, check_server_max_run, "
              "check_*_max_user_run, check_*_max_group_run, check_*_max_res)")
ROUTER = ("server/job_route.c:job_route, default_router; svr_movejob.c:should_retry_route "
          "(destinations in order; rejected by all: job_abt)")
X11 = missing("X11 forwarding (qsub -I -X): refused by the fake's qsub (rc 1) and unknown to "
              "its server (15002)")
T_RS = "tests/reservations/test_server_requests.py::"
T_RC = "tests/reservations/test_server_cluster.py::"
RESV_SUBMIT = "server/req_quejob.c:req_resvSub"
RESV_USER_ACL = behaves(RESV_SUBMIT + " (acl_resv_user_enable: 15094)",
                        T_RS + "test_acl_resv_users_and_resv_enable")
RESV_HOST_ACL = behaves(RESV_SUBMIT + " (acl_resv_host_enable: 15092, before an id is spent)",
                        T_RS + "test_acl_resv_hosts_and_groups")
RESV_GROUP_ACL = behaves(RESV_SUBMIT + " (acl_resv_group_enable: 15093)",
                         T_RS + "test_acl_resv_hosts_and_groups")
SOFT = behaves("scheduler/limits.cpp:check_soft_limits; job_info.cpp:set_preempt_prio "
               "(a job of an entity past a soft limit ranks at preempt_prio's queue_softlimits "
               "or server_softlimits level)",
               "tests/sched/test_preempt.py::test_a_user_over_a_queue_soft_limit_is_preempted_"
               "by_normal_jobs")
RESOURCES_MAX = behaves("server/svr_jobfunc.c:chk_resc_limits (from svr_chkque)",
                        T_ENQ + "test_queue_resources_max",
                        T_ENQ + "test_queue_max_wins_over_server_max",
                        T_LIM + "test_alter.py::test_altered_request_against_resources_max")
RESOURCES_DEFAULT = behaves("server/svr_jobfunc.c:set_resc_deflt",
                            T_DEFAULTS_LIM + "test_queue_default_before_server_default",
                            T_DEFAULTS_LIM + "test_qstat_shows_defaults_and_qmove_recomputes_them")
DEFAULT_CHUNK = behaves("server/vnparse.c:do_schedselect (default_chunk into each chunk)",
                        T_DEFAULTS_LIM + "test_default_chunk_fills_each_chunk_and_the_sums",
                        T_LIM + "test_alter.py::test_qalter_reapplies_defaults")
LIMIT_ROWS: Dict[str, Row] = {
    "max_running": behaves(RUN_LIMITS + "; old-style max_running is [o:PBS_ALL]",
                           T_RUNLIM + "test_server_max_running_and_user_limit"),
    "max_queued": behaves(CT_MAX, T_ENQ + "test_queue_max_queued_overall_at_below_above",
                          T_ENQ + "test_server_max_queued_user_generic_and_specific",
                          T_ENQ + "test_history_jobs_do_not_count_for_max_queued",
                          T_ENQ + "test_array_counts_its_subjobs"),
    "max_queued_res": behaves(RESC_MAX, T_ENQ + "test_max_queued_res_ncpus",
                              T_ENQ + "test_server_max_queued_res_mem_per_user"),
    "max_run": behaves(RUN_LIMITS, T_RUNLIM + "test_queue_max_run_overall",
                       T_RUNLIM + "test_server_generic_user_limit",
                       T_RUNLIM + "test_specific_user_limit_replaces_generic"),
    "max_run_res": behaves(RUN_LIMITS, T_RUNLIM + "test_queue_max_run_res_ncpus"),
    "max_user_run": behaves(RUN_LIMITS + "; old-style max_user_run is [u:PBS_GENERIC]",
                            T_RUNLIM + "test_queue_max_user_run_is_a_generic_user_limit",
                            T_RUNLIM + "test_server_max_running_and_user_limit"),
    "max_group_run": behaves(RUN_LIMITS + "; old-style max_group_run is [g:PBS_GENERIC]",
                             T_RUNLIM + "test_max_group_run_is_a_generic_group_limit"),
    "max_user_res": behaves(RUN_LIMITS + "; old-style max_user_res is [u:PBS_GENERIC]",
                            T_RUNLIM + "test_max_user_res_is_a_generic_user_resource_limit"),
    "max_group_res": behaves(RUN_LIMITS + "; old-style max_group_res is [g:PBS_GENERIC]",
                             T_RUNLIM + "test_max_group_res_is_a_generic_group_resource_limit"),
    "queued_jobs_threshold": behaves(CT_QUEUED,
                                     T_ENQ + "test_queued_jobs_threshold_counts_state_q_only"),
    "queued_jobs_threshold_res": behaves(RESC_QUEUED, T_ENQ + "test_queued_jobs_threshold_res_"
                                         "counts_queued_jobs"),
    **{name: SOFT for name in (
        "max_run_soft", "max_run_res_soft", "max_user_run_soft", "max_group_run_soft",
        "max_user_res_soft", "max_group_res_soft")},
}

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
    "acl_resv_host_enable": RESV_HOST_ACL,
    "acl_resv_hosts": RESV_HOST_ACL,
    "acl_resv_group_enable": RESV_GROUP_ACL,
    "acl_resv_groups": RESV_GROUP_ACL,
    "acl_user_enable": behaves("server/svr_chk_owner.c:authenticate_user", T_SRV_ACL),
    "acl_users": behaves("server/svr_chk_owner.c:authenticate_user", T_SRV_ACL),
    "acl_resv_user_enable": RESV_USER_ACL,
    "acl_resv_users": RESV_USER_ACL,
    "acl_roots": behaves("server/geteusernam.c:determine_euser",
                         "tests/security/test_server_access.py::test_acl_roots_is_a_user_acl"),
    "managers": behaves("server/svr_chk_owner.c:svr_get_privilege", T_MANAGER),
    "operators": behaves("server/svr_chk_owner.c:svr_get_privilege", T_OPERATOR),
    "default_queue": behaves("server/req_quejob.c:req_quejob (get_dfltque)", T_DEFAULTS),
    "log_events": behaves("lib/Liblog/pbs_log.c:log_event (mask)",
                          "tests/server/test_request_log.py::test_request_lines_obey_log_events"),
    "mailer": behaves("server/svr_mail.c:svr_exec_mailer (mailer -f from to)",
                      T_MAIL + "test_begin_and_end_mail_to_the_mail_users"),
    "mail_from": behaves("server/svr_mail.c:svr_mailowner_id (-f, default adm)",
                         T_MAIL + "test_default_mail_points_mean_abort_only"),
    "query_other_jobs": behaves("server/stat_job.c:status_job",
                                "tests/docs/test_coverage_behaviours.py::"
                                "test_query_other_jobs_false_hides_other_users_jobs"),
    "resources_available": behaves("scheduler/check.cpp:is_ok_to_run "
                                   "(INSUFFICIENT_SERVER_RESOURCE); server_info.cpp:query_server",
                                   "tests/sched/test_resource_pools.py::test_a_server_license_"
                                   "pool_limits_the_running_jobs",
                                   "tests/server/test_vnode_rules.py::test_a_server_license_pool"),
    "resources_default": RESOURCES_DEFAULT,
    "default_chunk": DEFAULT_CHUNK,
    "resources_max": RESOURCES_MAX,
    "resources_assigned": behaves("server/req_runjob.c:set_resc_assigned", T_ASSIGNED),
    "resources_cost": stored(PBS_STORES),
    "system_cost": stored(PBS_STORES),
    "scheduler_iteration": ITERATION,
    "comment": stored("PBS only stores a server's comment for display"),
    "default_node": stored(PBS_STORES + " (obsolete)"),
    "node_pack": stored(PBS_STORES + " (obsolete)"),
    "flatuid": stored("every client is on the server's host, where PBS never asks whether "
                      "user@host equals user (svr_chk_owner.c: the same-host path)"),
    "resv_enable": behaves(RESV_SUBMIT + " (resv_enable False: reservations disallowed)",
                           T_RS + "test_acl_resv_users_and_resv_enable"),
    "node_fail_requeue": behaves("server/node_manager.c:node_down_requeue", T_NODE_DOWN),
    "max_array_size": behaves("server/array_func.c:setup_arrayjob_attrs",
                              "tests/server/test_attribute_tables.py::test_max_array_size"),
    "resend_term_delay": stored("openpbs master only (not in 23.06.06); its default, the "
                                "fake's behaviour, is never changed by a test"),
    "require_cred_enable": refused_when_true("Kerberos credentials required at submission"),
    "require_cred": REQUIRE_CRED,
    "node_group_enable": NODE_GROUPS,
    "node_group_key": NODE_GROUPS,
    "default_qdel_arguments": behaves("cmds/qdel.c:get_mail_suppress_count (-Wsuppress_email)",
                                      T_MAIL + "test_the_server_default_suppresses_qdel_mail"),
    "default_qsub_arguments": behaves("cmds/qsub.c:do_submit (the server's defaults read "
                                      "first, below directives and options)",
                                      T_LIM + "test_qsub_defaults.py::"
                                      "test_defaults_apply_below_directives_and_command_line",
                                      T_LIM + "test_qsub_defaults.py::"
                                      "test_no_defaults_one_submission"),
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
    "eligible_time_enable": refused_when_true("eligible-time accrual (accrue_type, eligible_time)"),
    "reserve_retry_time": stored(NO_RECONFIRM),
    "reserve_retry_init": stored(NO_RECONFIRM),
    "job_history_enable": behaves("server/svr_jobfunc.c:svr_histjob_update",
                                  "tests/executor/test_e2e.py::test_without_job_history"),
    "job_history_duration": behaves("server/svr_jobfunc.c:svr_clean_job_history", T_HIST),
    "provision_enable": stored(STATUS + "; " + NO_PROVISION),
    "max_concurrent_provision": stored(NO_PROVISION),
    "clear_topjob_estimates_enable": stored("openpbs master only (not in 23.06.06); "
                                            + NO_TOPJOB),
    "provision_timeout": stored(INTERNAL + "; " + NO_PROVISION),
    "resv_post_processing_time": refused("time kept after a reservation's end for its jobs' "
                                         "end processing (svr_jobfunc.c)"),
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
    "restrict_res_to_release_on_suspend": refused("suspended jobs give back all their "
                                                  "resources here"),
    "power_provisioning": stored("no write right (15003); " + NO_POWER),
    "show_hidden_attribs": refused_when_true("shows hidden attributes to managers"),
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
    "max_queuable": behaves("server/svr_jobfunc.c:svr_chkque (max_queuable)",
                            T_ROUTING + "test_max_queuable"),
    "total_jobs": TOTAL_JOBS,
    "state_count": STATE_COUNT,
    "acl_host_enable": behaves("server/svr_jobfunc.c:svr_chkque (acl hosts)", T_ACL_GH),
    "acl_hosts": behaves("server/svr_jobfunc.c:svr_chkque (acl hosts)", T_ACL_GH),
    "acl_user_enable": behaves("server/svr_jobfunc.c:svr_chkque (acl users)", T_ACL_USER),
    "acl_users": behaves("server/svr_jobfunc.c:svr_chkque (acl users)", T_ACL_USER),
    "from_route_only": behaves("server/svr_jobfunc.c:svr_chkque (from_route_only)",
                               T_ENQ + "test_from_route_only_refuses_direct_submission",
                               T_ROUTING + "test_jobs_go_to_the_first_destination_that_"
                               "takes_them"),
    "resources_max": RESOURCES_MAX,
    "resources_min": behaves("server/svr_jobfunc.c:chk_resc_limits (from svr_chkque)",
                             T_ENQ + "test_queue_resources_min"),
    "resources_default": RESOURCES_DEFAULT,
    "require_cred_enable": refused_when_true("Kerberos credentials required in the queue"),
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
    "default_chunk": DEFAULT_CHUNK,
    "resources_available": behaves("scheduler/check.cpp:is_ok_to_run "
                                   "(INSUFFICIENT_QUEUE_RESOURCE)",
                                   "tests/sched/test_resource_pools.py::test_a_queue_pool_comes_"
                                   "first_and_sizes_print_as_pbs_prints_them"),
    "resources_assigned": behaves("server/req_runjob.c:set_resc_assigned", T_ASSIGNED),
    "kill_delay": behaves("resmom/requests.c:req_signaljob / mom kill_job (SIGTERM then "
                          "SIGKILL)", "tests/mom/test_exec.py::"
                                      "test_termjob_escalates_to_sigkill_265"),
    "hasnodes": behaves("server/node_func.c:mark_which_queues_have_nodes; req_manager.c (a "
                        "queue with vnodes is not deleted nor made a routing queue)",
                        T_VQUEUE + "test_a_queue_with_vnodes_shows_hasnodes_and_keeps_them"),
    "node_group_key": NODE_GROUPS,
    "backfill_depth": BACKFILL,
    "route_destinations": behaves(ROUTER, T_ROUTING + "test_jobs_go_to_the_first_destination_"
                                  "that_takes_them",
                                  T_ROUTING + "test_rejected_by_all_destinations_is_aborted"),
    "alt_router": stored("PBS's stock site_alt_router (lib/Libsite/site_alt_rte.c) is "
                         "default_router: the same routing either way"),
    "route_held_jobs": behaves("server/job_route.c:job_route (held jobs only with it)",
                               T_ROUTING + "test_jobs_go_to_the_first_destination_that_"
                               "takes_them"),
    "route_waiting_jobs": behaves("server/job_route.c:job_route (waiting jobs only with it)",
                                  T_ROUTING + "test_waiting_jobs_are_routed_only_with_route_"
                                  "waiting_jobs"),
    "route_retry_time": stored("the fake routes on every scheduler loop (each submission, "
                               "move, release, job end, scheduler_iteration) instead of "
                               "waiting route_retry_time between tries (docs/differences.md, "
                               "route queues)"),
    "route_lifetime": behaves("server/job_route.c:default_router (route_lifetime: job_abt)",
                              T_ROUTING + "test_route_lifetime_aborts_the_job"),
    "enabled": behaves("server/svr_jobfunc.c:svr_chkque (enabled: 15021 at qsub and qmove)",
                       T_ENQ + "test_disabled_queue_refuses_submission_and_move",
                       T_LIM + "test_queue_commands.py::test_sets_the_queue_attribute"),
    "started": behaves("scheduler/check.cpp:is_ok_to_run_queue; server/job_route.c:job_route "
                       "(a stopped route queue routes nothing)", T_ROUTE,
                       T_RUNLIM + "test_stopped_queue_keeps_jobs_queued_with_comment",
                       T_ROUTING + "test_stopped_route_queue_keeps_its_jobs"),
    "partition": PARTITION,
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
    "Priority": behaves("scheduler/sort.cpp:multi_node_sort (sched_config's node_sort_key "
                        "sort_priority)", T_VRULES + "test_node_sort_key_orders_the_search"),
    "jobs": behaves("server/node_func.c:encode_jobs",
                    "tests/cli/test_pbsnodes.py::test_job_summary_of_a_node_running_a_gpu_job"),
    "max_running": VNODE_LIMITS,
    "max_user_run": VNODE_LIMITS,
    "max_group_run": VNODE_LIMITS,
    "no_tasks": stored(PBS_STORES),
    "pnames": stored(PBS_STORES),
    "resv": behaves("server/req_rescq.c:assign_resv_resc (the node lists its reservations, "
                    "newest first)", T_RS + "test_submit_confirms_with_pbs_attributes",
                    T_RS + "test_confirmation_counts_other_reservations"),
    "resources_available": behaves("scheduler/node_info.cpp:query_node_info; check_spec.cpp",
                                   T_PLACE, T_GPU),
    "resources_assigned": behaves("server/node_manager.c:update_job_node_rassn", T_INVARIANT,
                                  "tests/sched/test_placement.py::"
                                  "test_slot_index_follows_running_jobs"),
    "queue": behaves("server/node_func.c:node_queue_action; scheduler/check.cpp:is_ok_to_run "
                     "(a queue's own vnodes, else the vnodes of no queue)",
                     T_VQUEUE + "test_a_vnode_queue_must_be_an_execution_queue",
                     T_VQUEUE + "test_jobs_run_on_their_queues_vnodes",
                     T_VRULES + "test_a_queue_with_vnodes_runs_only_there_and_other_queues_"
                     "never_do"),
    "comment": behaves("scheduler and server node comments (node_manager.c:set_vnode_state)",
                       "tests/cli/test_pbsnodes.py::test_summaries_of_an_offline_node"),
    "resv_enable": behaves("scheduler/node_info.cpp:is_vnode_eligible (no reservation on a "
                           "vnode without resv_enable)",
                           T_RS + "test_vnodes_without_resv_enable_take_no_reservation"),
    "no_multinode_jobs": behaves("scheduler/node_info.cpp:is_vnode_eligible, "
                                 "eval_complex_selspec",
                                 T_VRULES + "test_no_multinode_jobs_keeps_multi_chunk_jobs_off_"
                                 "the_vnode"),
    "sharing": behaves("scheduler/node_info.cpp (sharing vs place=excl)",
                       "tests/sched/test_placement.py::test_excl_needs_an_unused_node"),
    "provision_enable": refused_when_true(NO_PROVISION),
    "current_aoe": refused(NO_PROVISION),
    "in_multivnode_host": stored("set by a mom that reports several vnodes; fake moms report "
                                 "one vnode each"),
    "maintenance_jobs": missing("the admin-suspended jobs of a vnode: qsig -s admin-suspend "
                                "puts the vnode in maintenance, but this list is not shown; "
                                "read only (15003)"),
    "license": stored(STATUS + "; " + NO_LICENSE),
    "license_info": stored(INTERNAL + "; " + NO_LICENSE),
    "topology_info": stored(INTERNAL + " (the mom's hwloc topology, for licensing)"),
    "vnode_pool": refused("mom pools (several moms answering for a vnode)"),
    "power_provisioning": refused_when_true(NO_POWER),
    "current_eoe": refused(NO_POWER),
    "partition": PARTITION,
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
    "do_not_span_psets": PSETS,
    "only_explicit_psets": PSETS,
    "sched_preempt_enforce_resumption": refused_when_true(
        SCHED_DIFF + ": resuming preempted jobs first"),
    "preempt_targets_enable": behaves("scheduler/job_info.cpp:find_and_preempt_jobs",
                                      "tests/sched/test_preempt_targets.py::"
                                      "test_targets_limit_the_victims"),
    "job_sort_formula_threshold": behaves("scheduler/fifo.cpp (JOB_UNDER_THRESHOLD)",
                                          T_JSF + "test_jobs_under_the_threshold_do_not_run"),
    "throughput_mode": stored("whether the scheduler waits for each run's reply; the fake's "
                              "scheduler runs inside the server, which answers at once"),
    "job_run_wait": stored("whether the scheduler waits for each run's reply; the fake's "
                           "scheduler runs inside the server, which answers at once"),
    "opt_backfill_fuzzy": stored(NO_TOPJOB),
    "partition": stored("one scheduler, one partition: the default's name is shown as PBS "
                        "shows it"),
    "sched_priv": stored("where PBS's scheduler keeps its files; the fake's reads "
                         "sched_config from the cluster's home"),
    "sched_log": stored("the scheduler's log directory; the fake's scheduler logs in "
                        "sched_logs/ under the cluster's home"),
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
    "log_events": behaves("scheduler/fifo.cpp (the scheduler's log mask, read at each "
                          "SCH_CONFIGURE)", "tests/server/test_vnode_rules.py::"
                          "test_the_schedulers_log_events_filters_its_log"),
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
    "resv": missing("read only and never set by PBS 23.06 (15003 on a write); " + UNKNOWN_HERE),
    "queue": behaves("server/req_quejob.c:req_quejob", T_DEFAULTS),
    "server": behaves("server/req_quejob.c:req_quejob", T_DEFAULTS),
    "Account_Name": behaves("server/accounting.c:acct_job", T_ACCT),
    "Checkpoint": behaves("scheduler/prev_job_info / fifo.cpp:preempt_job (C needs a "
                          "checkpointable job)", "tests/sched/test_preempt.py::"
                                                 "test_usable_methods"),
    "ctime": behaves("server/req_quejob.c:req_quejob", T_DEFAULTS),
    "depend": behaves("server/req_register.c:depend_on_que, depend_on_term, register_dep "
                      "(after*, before*, on); synccount/syncwith/runone refused "
                      "(docs/differences.md)",
                      "tests/server/test_jobs_e2e.py::test_dependency_afterok",
                      "tests/server/test_depend_before.py::"
                      "test_before_releases_or_deletes_the_on_job",
                      "tests/server/test_depend_before.py::test_on_counts_registrations"),
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
    "interactive": behaves("cmds/qsub_sup.c (the session's reader and writer); "
                           "resmom/start_exec.c (conn_qsub: the job's shell on a pty)",
                           "tests/interactive/test_session.py::"
                           "test_session_lines_exit_status_and_record",
                           "tests/interactive/test_session.py::test_qdel_ends_the_session",
                           "tests/interactive/test_session.py::"
                           "test_server_refuses_interactive_array"),
    "Join_Path": behaves("resmom/start_exec.c (join oe/eo)",
                         "tests/mom/test_units.py::test_join_oe_delivers_only_stdout"),
    "Keep_Files": behaves("resmom/start_exec.c:std_file_name (keep in home)",
                          "tests/mom/test_units.py::test_keep_files_in_home"),
    "Mail_Points": behaves("server/svr_mail.c:svr_mailowner_id (a when unset, j for subjobs)",
                           T_MAIL + "test_default_mail_points_mean_abort_only",
                           T_MAIL + "test_array_mails_are_the_parents_unless_j"),
    "Mail_Users": behaves("server/svr_mail.c:svr_mailowner_id (the address argument)",
                          T_MAIL + "test_begin_and_end_mail_to_the_mail_users"),
    "mtime": stored(STATUS + " (the last change's time)"),
    "no_stdio_sockets": stored(PBS_STORES),
    "Output_Path": behaves("resmom/start_exec.c:std_file_name",
                           "tests/mom/test_exec.py::test_join_oe_and_output_directory"),
    "Priority": behaves("scheduler: job_priority is no sort key in the default sched_config",
                        "tests/sched/test_cycle.py::"
                        "test_job_priority_is_not_a_sort_key_by_default"),
    "qtime": behaves("server/req_quejob.c (qtime; FIFO order)",
                     "tests/sched/test_cycle.py::test_fifo_by_submission"),
    "Remove_Files": behaves("server/job_func.c:setup_cpyfiles and the mom's purge (after "
                            "Exit_status 0 only)",
                            "tests/mom/test_remove_files.py::"
                            "test_remove_files_after_a_successful_job_only",
                            "tests/mom/test_remove_files.py::"
                            "test_remove_files_takes_a_directly_written_stream"),
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
    "stagein": behaves("server/req_runjob.c:svr_stagein; resmom/requests.c:req_cpyfile; "
                       "stage_func.c:stage_file, sys_copy ($usecp: every host is this one)",
                       T_STAGE + "test_stage_in_then_out_and_the_staged_in_file_goes",
                       T_STAGE + "test_queued_job_with_stagein_is_substate_11",
                       T_STAGE + "test_failed_stage_in_leaves_the_job_waiting",
                       "tests/staging/test_stage_lists.py::"
                       "test_failed_stage_in_is_tried_four_times_and_undoes_earlier_files"),
    "stageout": behaves("server/req_jobobit.c:on_job_exit; resmom/requests.c:req_cpyfile; "
                        "stage_func.c:stage_file, sys_copy ($usecp: every host is this one)",
                        T_STAGE + "test_stage_in_then_out_and_the_staged_in_file_goes",
                        T_STAGE + "test_failed_stage_out_keeps_the_job_and_sets_stageout_"
                        "status_0", "tests/staging/test_stage_lists.py::"
                        "test_stage_out_wildcard_skips_dot_files_and_removes_what_it_copied"),
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
    "reserve_ID": behaves("server/svr_jobfunc.c:svr_chkque (a reservation queue's job); "
                          "accounting.c (resvID= in the job's records)",
                          T_RC + "test_jobs_wait_for_the_window_and_die_at_its_end",
                          "tests/reservations/test_psij_reservation.py::"
                          "test_job_runs_in_its_reservation"),
    "last_context_refresh": stored(INTERNAL),
    "gridname": stored(PBS_STORES),
    "umask": behaves("resmom/start_exec.c:finish_exec (the long read back as octal); "
                     "lib/Libattr/attr_fn_l.c:decode_l (stored decimal)",
                     "tests/mom/test_umask.py::test_umask_is_stored_decimal_and_applied",
                     "tests/mom/test_umask.py::"
                     "test_every_octal_umask_round_trips_through_its_decimal_text"),
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
    "forward_x11_cookie": X11,
    "forward_x11_port": X11,
    "ptime": stored(INTERNAL + " (preemption time, written by the scheduler)"),
    "run_version": stored(INTERNAL),
    "gui": missing("qsub -G (a GUI session, acted on by Windows moms only): the fake's qsub "
                   "takes -G and sends nothing, and its server does not know the name "
                   "(15002 where PBS stores it)"),
    "topjob": missing(NO_TOPJOB + "; " + UNKNOWN_HERE),
    "topjob_ineligible": stored(NO_TOPJOB),
    "resources_released": stored(INTERNAL + " (resources released on suspension)"),
    "resource_released_list": stored(INTERNAL + " (resources released on suspension)"),
    "release_nodes_on_stageout": refused_when_true("sister vnodes released before the "
                                                   "stage-out (req_jobobit.c)"),
    "tolerate_node_failures": missing("a job that goes on when sister hosts fail (with "
                                      "execjob_prologue/launch hooks releasing nodes); the "
                                      "fake refuses values other than none"),
    "Submit_Host": behaves("server/req_quejob.c (the connection's host)",
                           "tests/security/test_log_records.py::"
                           "test_the_submit_host_comes_from_the_connection"),
    "credential_id": stored(NO_KRB),
    "credential_validity": stored(NO_KRB),
    "create_resv_from_job": refused_when_true("a reservation made from the job when "
                                              "it runs (req_runjob.c)"),
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
    "partition": PARTITION,
    "aoe": refused(NO_PROVISION),
    "eoe": stored(NO_POWER),
    "preempt_targets": behaves("scheduler/job_info.cpp:preempt_job_set_filter; "
                               "server/resc_attr.c:preempt_targets_action",
                               "tests/sched/test_preempt_targets.py::"
                               "test_targets_limit_the_victims",
                               "tests/server/test_vnode_rules.py::"
                               "test_preempt_targets_are_checked_at_qsub_and_qalter"),
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

RESV_WINDOW = behaves("server/req_quejob.c:req_resvSub; svr_jobfunc.c:Time4resv, "
                      "Time4resvFinish; req_modify.c:req_modifyReservation",
                      T_RS + "test_window_begins_and_ends",
                      T_RS + "test_ralter_moves_start_end_duration")
RESV_STATE = behaves("server/svr_jobfunc.c:resv_setResvState, eval_resvState",
                     T_RS + "test_submit_confirms_with_pbs_attributes",
                     T_RS + "test_window_begins_and_ends")
STANDING = behaves("server/svr_jobfunc.c:Time4occurrenceFinish; req_quejob.c:req_resvSub "
                   "(check_rrule)",
                   T_RS + "test_standing_reservation_moves_through_its_occurrences",
                   T_RS + "test_queued_jobs_wait_for_the_next_occurrence")
AUTHORIZED = behaves("server/req_quejob.c:get_queue_for_reservation (the queue's ACLs); "
                     "req_modify.c:req_modifyReservation",
                     T_RS + "test_authorized_lists_are_the_queues_acls",
                     "tests/reservations/test_server_users.py::"
                     "test_only_authorized_users_submit_into_the_queue")
RESV_HIDDEN = stored("the server's own bookkeeping, which pbs_rstat -f does not show (R04); "
                     "a client cannot send it (15003 in PBS; the fake's pbs_rsub handler "
                     "refuses every name it does not take)")

RESV: Dict[str, Row] = {
    "Reserve_Name": stored("a name PBS shows (pbs_rstat) and writes in the B record; nothing "
                           "else reads it"),
    "Reserve_Owner": behaves("server/req_quejob.c:req_resvSub (the caller); "
                             "req_delete.c:req_deleteReservation (owner or manager)",
                             T_RS + "test_only_owner_or_manager_deletes_or_alters",
                             "tests/reservations/test_server_users.py::"
                             "test_another_user_may_neither_delete_nor_alter"),
    "reserve_state": RESV_STATE,
    "reserve_substate": RESV_STATE,
    "reservation_Tag": RESV_HIDDEN,
    "reserve_ID": behaves("server/req_quejob.c:req_resvSub (R/S + the job sequence)",
                          T_RS + "test_ids_share_the_job_sequence_and_refusals_spend_one"),
    "reserve_start": RESV_WINDOW,
    "reserve_end": RESV_WINDOW,
    "reserve_duration": RESV_WINDOW,
    "queue": behaves("server/req_quejob.c:get_queue_for_reservation",
                     T_RS + "test_submit_confirms_with_pbs_attributes",
                     T_RC + "test_jobs_wait_for_the_window_and_die_at_its_end"),
    "Resource_List": behaves("server/req_quejob.c:get_queue_for_reservation (queue limits); "
                             "scheduler confirmation (resv_info.cpp)",
                             T_RS + "test_queue_limits_are_the_reservations_resources",
                             T_RS + "test_too_big_is_denied_and_deleted"),
    "schedselect": RESV_HIDDEN,
    "resources_used": stored("PBS 23.06 never sets it (no code writes it)"),
    "resv_nodes": behaves("server/req_rescq.c:req_confirmresv (the scheduler's vnodes)",
                          T_RS + "test_submit_confirms_with_pbs_attributes",
                          T_RC + "test_reserved_cpus_are_not_for_other_jobs"),
    "User_List": stored("a reservation runs nothing as that user; PBS derives euser from it "
                        "and checks acl_resv_groups against euser's groups, where the fake "
                        "checks the submitter's (docs/differences.md, Reservations)"),
    "group_list": stored("a reservation runs nothing as that group; PBS only derives egroup "
                         "from it"),
    "Authorized_Users": AUTHORIZED,
    "Authorized_Groups": AUTHORIZED,
    "Authorized_Hosts": AUTHORIZED,
    "server": stored(STATUS + " (the server's name)"),
    "Account_Name": behaves("server/accounting.c:acct_resv (account= in the B record)",
                            T_RS + "test_window_begins_and_ends"),
    "ctime": stored(STATUS + " (the reservation's creation)"),
    "Mail_Points": behaves("server/svr_mail.c:svr_mailownerResv (a and c when unset)",
                           T_MAIL + "test_reservation_mail"),
    "Mail_Users": behaves("server/svr_mail.c:svr_mailownerResv (23.06: the first address)",
                          T_MAIL + "test_reservation_mail"),
    "mtime": stored(STATUS + " (the last change's time)"),
    "hashname": RESV_HIDDEN,
    "hop_count": RESV_HIDDEN,
    "Priority": behaves("server/req_quejob.c:req_resvSub (-1024..1024, else 15014; then only "
                        "stored)", T_RS + "test_priority_range"),
    "interactive": behaves("server/req_quejob.c:req_resvSub; req_rescq.c:req_confirmresv "
                           "(pbs_rsub -I waits for CONFIRMED or DENIED)",
                           T_RS + "test_interactive_answers_confirmed_or_denied",
                           "tests/reservations/test_cli_commands.py::test_rsub_interactive"),
    "Variable_List": behaves("server/req_quejob.c:req_resvSub (PBS_TZID of a standing "
                             "reservation, PBS_O_* shown)",
                             T_RS + "test_standing_reservation_moves_through_its_occurrences"),
    "euser": RESV_HIDDEN,
    "egroup": RESV_HIDDEN,
    "qmove": behaves("server/req_rescq.c:cnvrt_qmove (an ASAP reservation takes the job)",
                     T_RS + "test_asap_takes_the_first_free_window",
                     T_RC + "test_asap_reservation_runs_the_job"),
    "reserve_standing": STANDING,
    "reserve_rrule": behaves("server/req_quejob.c:req_resvSub (check_rrule, libical)",
                             T_RS + "test_standing_reservation_moves_through_its_occurrences",
                             "tests/reservations/test_cli_rrule.py::test_weekly_byday"),
    "reserve_index": STANDING,
    "reserve_count": STANDING,
    "reserve_execvnodes": missing("the vnodes of each occurrence of a standing reservation: "
                                  "here every occurrence keeps the first's (docs/differences.md,"
                                  " Reservations); no client sets it"),
    "reserve_timezone": STANDING,
    "reserve_retry": missing("the time a degraded reservation is reconfirmed: the fake never "
                             "degrades one (docs/differences.md, Reservations); no client sets "
                             "it"),
    "delete_idle_time": behaves("server/req_rescq.c:resv_idle_delete, set_idle_delete_task",
                                T_RS + "test_delete_idle_time_deletes_a_running_reservation_"
                                "without_jobs", T_RC + "test_asap_reservation_runs_the_job"),
    "reserve_job": stored("the job a reservation was made from (create_resv_from_job, refused "
                          "here): never set"),
    "schedselect_orig": RESV_HIDDEN,
    "Submit_Host": RESV_HIDDEN,
    "credential_id": stored(NO_KRB),
    "node_set": stored(INTERNAL + " (placement sets, refused here)"),
    "partition": stored("one scheduler, one partition: the default's name is shown as PBS "
                        "shows it"),
    "reserve_alter_revert": RESV_HIDDEN,
    "reserve_standing_revert": RESV_HIDDEN,
}

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
