"""A fast history fill for the scale benchmark: copies of real finished jobs, written by the store.

Running 20,000 real ``/bin/true`` jobs takes 10-20 minutes on a 2-core machine; what the scale
figures measure is the server and the commands with that history, not how it got there.  So the
cluster first runs a few hundred real jobs to the end (state F, through the server, mom and
shepherds as usual); then, with the cluster stopped, each further history job is a copy of one of
those records under a new sequence number (its id, ``_seq`` and output paths renamed), written
with the server's own :class:`~fake_pbs.server.store.Store`; the cluster is started again and the
server loads them as it loads any history after a restart.  The records are byte for byte what
the server wrote for real jobs except for the renamed fields, so the statjob replies have the
same size and shape.
"""
import subprocess
from typing import Any, Dict, List

from fake_pbs import paths
from fake_pbs.server.store import Record, Store

from bench._cluster import BIN, BenchCluster


def _renamed(template: Record, seq: int, server: str) -> Record:
    old_seq = int(template["_seq"])
    record: Dict[str, Any] = dict(template)
    record["_id"] = "%d.%s" % (seq, server)
    record["_seq"] = seq
    for key in ("Output_Path", "Error_Path"):
        value = record.get(key)
        if isinstance(value, str):
            for suffix in (".o", ".e"):
                tail = "%s%d" % (suffix, old_seq)
                if value.endswith(tail):
                    value = value[:-len(tail)] + "%s%d" % (suffix, seq)
            record[key] = value
    return record


def _history(store: Store) -> List[Record]:
    return [record for _, record in store.jobs()
            if record.get("job_state") == "F" and not record.get("array_id")]


def clone_history(cluster: BenchCluster, total: int) -> int:
    """Bring the history to ``total`` finished jobs by copying the ones there; returns how many
    were added.  Stops and restarts the cluster's daemons."""
    subprocess.run([str(BIN / "fake-pbs"), "stop"], env=cluster.env, check=True,
                   stdout=subprocess.DEVNULL, timeout=120)
    cluster.drop_channel()
    store = Store(paths.server_priv(cluster.home) / "server.db")
    try:
        templates = _history(store)
        if not templates:
            raise RuntimeError("clone_history needs at least one finished job to copy")
        have = len(templates)
        seq = int(store.get_meta("next_seq") or "0")
        server = str(templates[0]["_id"]).split(".", 1)[1]
        for i in range(max(0, total - have)):
            record = _renamed(templates[i % len(templates)], seq, server)
            store.put_job(str(record["_id"]), seq, record)
            seq += 1
        store.put_meta("next_seq", str(seq))
    finally:
        store.close()
    subprocess.run([str(BIN / "fake-pbs"), "start"], env=cluster.env, check=True,
                   stdout=subprocess.DEVNULL, timeout=300)
    return max(0, total - have)
