"""The runs panel's Resume for a cluster job, on a real Jupyter server and a real Ray head with token auth (the
server holds the token in ``RAY_AUTH_TOKEN``): a job its notebook let go of is refused while the cluster still runs
it; once stopped, the server's resume is a new job on that cluster that goes on under the same record, and the
server's Stop ends it again."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from rlworkbench.workbench import promote
from rlworkbench.workbench.cluster.connection import connect
from tests.lab.lab_server_process import serve
from tests.workbench.run_helpers import small_dqn, wait_until


def record(server, run_id: str) -> dict | None:
    return next((r for r in server.get("runs").json()["runs"] if r["id"] == run_id), None)


@pytest.mark.timeout(600)
def test_a_cluster_jobs_resume_from_the_panel_is_a_new_job_under_the_same_record(ray_head, tmp_path_factory,
                                                                                 monkeypatch):
    base = tmp_path_factory.mktemp("lab-cluster")
    with serve(base / "server", {"RAY_AUTH_TOKEN": ray_head.auth_token}) as server:
        monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(server.runs))
        run = promote(small_dqn(), to="ray", address=ray_head.address, auth_token=ray_head.auth_token,
                      logdir=base / "runs", seed=0, workers=0, timesteps=10**7, checkpoint_every=300, stop_grace=20)
        wait_until(lambda: run.timesteps > 400, 120, "a checkpoint's worth of steps")
        first_job = run.execution.submission_id
        run.detach()  # the notebook lets go; the job goes on
        refused = server.post(f"runs/{run.id}/resume")
        assert refused.status_code == 409 and "still going" in refused.reason, refused.reason

        client = connect(ray_head.address, ray_head.auth_token)
        client.stop_job(first_job)
        wait_until(lambda: str(client.get_job_status(first_job).value) == "STOPPED", 60, "the stopped job")
        final = run.logdir / "checkpoints" / "final" / "progress.json"
        wait_until(final.is_file, 30, "the stopped job's final checkpoint")
        stopped_at = json.loads(final.read_text())["timesteps"]

        answer = server.post(f"runs/{run.id}/resume")
        assert answer.status_code == 200, answer.reason
        assert answer.json()["checkpoint"] == str(run.logdir)  # the job's run directory on the cluster
        live = wait_until(lambda: (r := record(server, run.id)) and r["state"] == "running"
                          and r["submission_id"].startswith(f"{first_job}-resume-") and r["timesteps"] > stopped_at
                          and r, 240, "the resumed job's live record")
        assert server.post(f"runs/{run.id}/stop").json() == {"id": run.id, "stop_requested": True}
        second_job = live["submission_id"]
        wait_until(lambda: str(client.get_job_status(second_job).value) == "STOPPED", 120, "the second job to stop")
        wait_until(lambda: record(server, run.id)["state"] == "stopped", 60, "the stopped record")
        updates = pd.read_csv(run.logdir / "updates.csv")  # one table on: no gap, no repeat
        assert updates["update"].tolist() == list(range(len(updates)))
        assert updates["timesteps_total"].is_monotonic_increasing and updates["timesteps_total"].max() > stopped_at
        assert "resuming run" in (run.logdir / "resume.log").read_text()
