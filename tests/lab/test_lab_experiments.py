"""Experiments on the lab's server: the runs reply keeps an experiment's own record apart from the runs (its trials'
runs stay runs, naming their experiment), and the Stop route stops a real sweep through its record's heartbeat."""

from __future__ import annotations

import pytest
from ray import tune

from rlworkbench.workbench.experiments import sweep
from tests.experiments.experiment_helpers import small_dqn
from tests.workbench.run_helpers import wait_until


def reply(lab_server) -> dict:
    answer = lab_server.get("runs")
    assert answer.status_code == 200, answer.text
    return answer.json()


def shown(lab_server, name: str) -> tuple[dict | None, list[dict]]:
    """The experiment ``name``'s record and its trials' run records, as the runs reply has them."""
    now = reply(lab_server)
    experiment = next((record for record in now["experiments"] if record["name"] == name), None)
    return experiment, [run for run in now["runs"] if run.get("experiment") == name]


@pytest.mark.timeout(300)
def test_an_experiment_is_listed_apart_and_stopped_from_the_server(lab_server, runs_here, ray_session):
    experiment = sweep(small_dqn(), space={"optimizer/learning_rate": tune.choice([1e-3, 3e-3])}, seeds=1, trials=1,
                       budget=200_000, report_every=300, env="CartPole-v1", logdir=lab_server.root / "experiments",
                       name="stopped-from-lab")
    record, runs = wait_until(lambda: (seen := shown(lab_server, "stopped-from-lab")) and seen[0] and seen[1]
                              and seen[1][0]["timesteps"] > 0 and seen, 120, "the experiment and its running trial")
    assert record["kind"] == "experiment" and record["state"] == "running"
    assert record["directory_in_root"] == "experiments/stopped-from-lab" and record["metric"] == "return"
    assert [row["trial"] for row in record["trials"]] == [runs[0]["labels"]["trial"]]
    assert runs[0]["labels"]["seed"] == 0 and runs[0]["logdir_in_root"].startswith("experiments/stopped-from-lab/")
    everything = reply(lab_server)
    assert all("kind" not in run for run in everything["runs"])
    assert all(entry["kind"] == "experiment" for entry in everything["experiments"])
    assert lab_server.post(f"runs/{record['id']}/tensorboard").status_code == 404  # an experiment is not a run

    assert lab_server.post(f"runs/{record['id']}/stop").json() == {"id": record["id"], "stop_requested": True}
    experiment.wait(120)
    assert experiment.state == "stopped"
    wait_until(lambda: (seen := shown(lab_server, "stopped-from-lab"))[0]["state"] == "stopped"
               and {run["state"] for run in seen[1]} == {"stopped"}, 20, "the stopped records")
    assert lab_server.post(f"runs/{record['id']}/stop").status_code == 409  # not going any more
