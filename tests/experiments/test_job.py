"""A sweep as one Ray job on a cluster (a real head on this machine, token authentication on): the Tune driver runs
inside the job, the notebook follows its log, stops it (every trial keeps its final checkpoint) and attaches to it
again by name."""

from __future__ import annotations

import pytest
from experiment_helpers import small_dqn, wait_until
from ray import tune

from rlworkbench.errors import ClusterError
from rlworkbench.workbench import list_runs
from rlworkbench.workbench.experiments import Experiment, sweep
from rlworkbench.workbench.run_records import read_records


def test_a_sweep_runs_as_a_ray_job_followed_stopped_and_attached_again(ray_head, tmp_path):
    experiment = sweep(small_dqn(), space={"optimizer/learning_rate": tune.choice([1e-3, 3e-3])}, seeds=1,
                       trials=2, budget=200_000, report_every=300, env="CartPole-v1", logdir=tmp_path,
                       name="on-cluster", address=ray_head.address, auth_token=ray_head.auth_token)
    assert experiment.source.remote and experiment.source.submission_id == "rlworkbench-experiment-on-cluster"
    wait_until(lambda: len({point["trial"] for point in experiment.book.points}) == 2, 240,
               "results of both trials from the job's log")
    assert experiment.state == "running" and experiment.directory == tmp_path / "on-cluster"  # shared storage
    record = wait_until(lambda: next((r for r in read_records() if r.get("kind") == "experiment"
                                      and r["name"] == "on-cluster"), None), 10, "the experiment's record")
    assert record["submission_id"] == experiment.source.submission_id and record["address"] == ray_head.address
    listed = list_runs(ray_head.address, auth_token=ray_head.auth_token)
    row = listed[listed["submission_id"] == experiment.source.submission_id].iloc[0]
    assert row["target"] == "sweep" and row["env"] == "CartPole-v1" and row["state"] == "running"
    assert 0 < row["timesteps"] < row["total_timesteps"] == 2 * 200_000
    experiment.widget()  # the same live widget as a sweep here (ipywidgets, nothing printed: ray#16016's case)
    experiment._view.refresh(force=True)
    assert len(experiment._view.table.rows) == 2 and bytes(experiment._view.image.value).startswith(b"\x89PNG")
    experiment.stop(timeout=180)
    assert experiment.state == "stopped" and set(experiment.trials["state"]) == {"stopped"}
    runs = experiment.runs()
    assert len(runs) == 2 and all(run.checkpoint is not None and run.checkpoint.name == "final" for run in runs)
    assert runs[0].load_agent().timesteps > 0
    experiment.close()

    again = Experiment.attach("on-cluster", address=ray_head.address, auth_token=ray_head.auth_token)
    wait_until(lambda: again.state == "stopped", 60, "the job's records replayed")
    assert again.trials[["trial", "timesteps"]].equals(experiment.trials[["trial", "timesteps"]])
    again.close()
    with pytest.raises(ClusterError, match="no job of this id"):
        Experiment.attach("nothing-like-it", address=ray_head.address, auth_token=ray_head.auth_token)
