"""The configuration of a fresh server, as ``qmgr -c 'print server'`` shows it after install.

Values follow the golden transcripts (b14b ``qstat -Bf``, b13b ``qstat -Qf``, e01 ``pbsnodes -a``).
Intended differences: ``job_history_enable`` is True (PSI/J polls with ``qstat -x``), and the mem
of a vnode comes from ``cluster.json``.
"""
from typing import Any, Dict, Mapping

from fake_pbs import PBS_VERSION

Attrs = Dict[str, str]


def server_attrs(server_name: str, host: str) -> Attrs:
    return {
        "server_host": host,
        "scheduling": "True",
        "default_queue": "workq",
        "log_events": "511",
        "mailer": "/usr/sbin/sendmail",
        "mail_from": "adm",
        "query_other_jobs": "True",
        "resources_default.ncpus": "1",
        "default_chunk.ncpus": "1",
        "scheduler_iteration": "600",
        "resv_enable": "True",
        "node_fail_requeue": "310",
        "max_array_size": "10000",
        "pbs_license_min": "0",
        "pbs_license_max": "2147483647",
        "pbs_license_linger_time": "31536000",
        "pbs_version": PBS_VERSION,
        "eligible_time_enable": "False",
        "job_history_enable": "True",
        "max_concurrent_provision": "5",
        "max_job_sequence_id": "9999999",
    }


def sched_attrs(host: str, home: str = "/var/spool/pbs") -> Attrs:
    """The default scheduler object in PBS's ``qmgr -c 'list sched'`` order (d07)."""
    return {
        "sched_host": host,
        "sched_cycle_length": "00:20:00",
        "throughput_mode": "True",
        "job_run_wait": "runjob_hook",
        "partition": "pbs-default",
        "sched_priv": "%s/sched_priv" % home,
        "sched_log": "%s/sched_logs" % home,
        "scheduling": "True",
        "scheduler_iteration": "600",
        "state": "idle",
        "preempt_queue_prio": "150",
        "preempt_prio": "express_queue, normal_jobs",
        "preempt_order": "SCR",
        "preempt_sort": "min_time_since_start",
        "log_events": "767",
        "server_dyn_res_alarm": "30",
    }


def queue_attrs() -> Attrs:
    return {"queue_type": "Execution", "enabled": "True", "started": "True"}


def node_attrs(host: Mapping[str, Any], now: int) -> Attrs:
    name = str(host["name"])
    ncpus = int(host.get("ncpus", 8))
    attrs: Attrs = {
        "Mom": name,
        "Port": "15002",
        "pbs_version": PBS_VERSION,
        "ntype": "PBS",
        "state": "free",
        "pcpus": str(ncpus),
        "resources_available.arch": "linux",
        "resources_available.host": name,
        "resources_available.mem": _mem_kb(str(host.get("mem", "16gb"))),
        "resources_available.ncpus": str(ncpus),
        "resources_available.vnode": name,
        "resources_assigned.accelerator_memory": "0kb",
        "resources_assigned.hbmem": "0kb",
        "resources_assigned.mem": "0kb",
        "resources_assigned.naccelerators": "0",
        "resources_assigned.ncpus": "0",
        "resources_assigned.vmem": "0kb",
        "resv_enable": "True",
        "sharing": "default_shared",
        "license": "l",
        "last_state_change_time": str(now),
    }
    ngpus = int(host.get("ngpus", 0) or 0)
    if ngpus:
        attrs["resources_available.ngpus"] = str(ngpus)
        attrs["resources_assigned.ngpus"] = "0"
    return attrs


def created_node(name: str) -> Attrs:
    """A node as ``create node`` makes it (node_func.c initialize_pbsnode, create_pbs_node2):
    its Mom and mom port, pbs_version ``unavailable`` until the mom reports, down and
    state-unknown, the resources_assigned PBS keeps per node at zero, resv_enable and
    sharing at their defaults."""
    return {"Mom": name, "Port": "15002", "pbs_version": "unavailable", "ntype": "PBS",
            "state": "state-unknown,down", "resources_available.host": name,
            "resources_available.vnode": name, "resources_assigned.accelerator_memory": "0kb",
            "resources_assigned.hbmem": "0kb", "resources_assigned.mem": "0kb",
            "resources_assigned.naccelerators": "0", "resources_assigned.ncpus": "0",
            "resources_assigned.vmem": "0kb", "resv_enable": "True",
            "sharing": "default_shared"}


_UNITS = {"b": 1, "kb": 1024, "mb": 1024 ** 2, "gb": 1024 ** 3, "tb": 1024 ** 4, "pb": 1024 ** 5}


def mem_bytes(value: str) -> int:
    """Bytes in a PBS size (``16gb``, ``512mb``, ``1024``, ``10kw`` is not supported)."""
    text = value.strip().lower()
    digits = text.rstrip("bkmgtpw")
    suffix = text[len(digits):] or "b"
    if suffix in ("k", "m", "g", "t", "p"):
        suffix += "b"
    return int(float(digits or "0") * _UNITS.get(suffix, 1))


def _mem_kb(value: str) -> str:
    """PBS shows a mom's memory in kb (e01: ``resources_available.mem = 24684084kb``)."""
    return "%dkb" % (mem_bytes(value) // 1024)


def format_kb(nbytes: int) -> str:
    return "%dkb" % (nbytes // 1024)
