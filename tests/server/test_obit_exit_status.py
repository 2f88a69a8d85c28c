"""The obit brings the exit status before the stage-out (req_jobobit.c; extra i05y)."""
import json
from pathlib import Path
from typing import Any, Dict

from fake_pbs import paths
from fake_pbs.server.app import ServerApp


def test_obit_sets_exit_status_before_the_stage_out(tmp_path: Path) -> None:
    """Extra i05y: while the mom still retries an output copy (job E), PBS shows the
    Exit_status the obit brought; the final release does not have to come first."""
    from fake_pbs.server import lifecycle
    config: Dict[str, Any] = {"server_name": "vm", "hosts": [{"name": "vm", "ncpus": 2}]}
    (tmp_path / "server_priv").mkdir()
    paths.config_file(tmp_path).write_text(json.dumps(config))
    app = ServerApp(tmp_path)
    app.bootstrap()
    job = {"_id": "336.vm", "job_state": "R", "substate": "42", "run_count": "1",
           "stime": str(app.now())}
    app.state.jobs["336.vm"] = job
    lifecycle.apply_event(app, {"job": "336.vm", "run_count": 1, "seq": 1, "ev": "finish",
                                "status": 0, "resources_used": {}})
    assert (job["job_state"], job["Exit_status"]) == ("E", "0")
