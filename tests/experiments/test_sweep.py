"""``sweep()`` on a real Ray session: an ASHA sweep of small DQNs on CartPole — the cell returns at once, every
trial x seed is an ordinary run (directory, checkpoints, record labelled with its experiment), the tables and the
best run, the live widget, and ``stop()`` keeping every started trial's final checkpoint."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from experiment_helpers import small_dqn, wait_until
from ray import tune

from rlworkbench.workbench import promote
from rlworkbench.workbench.experiments import Experiment, sweep
from rlworkbench.workbench.run_records import read_records
from rlworkbench.workbench.run_result import RunResult

PNG = b"\x89PNG"
SPACE = {"optimizer/learning_rate": tune.loguniform(3e-4, 3e-3), "target/sync_interval": tune.choice([20, 100])}


@pytest.fixture(scope="module")
def asha(ray_session, tmp_path_factory):
    """A finished 4-trial ASHA sweep, 2 seeds each, with what was seen while it ran."""
    logdir = tmp_path_factory.mktemp("asha")
    started = time.monotonic()
    experiment = sweep(small_dqn(), space=SPACE, seeds=2, trials=4, scheduler="asha", budget=1200,
                       report_every=300, env="CartPole-v1", logdir=logdir, name="asha",
                       scheduler_options={"grace_period": 300, "reduction_factor": 2})
    returned_after = time.monotonic() - started
    live = wait_until(lambda: [r for r in read_records() if r.get("experiment") == "asha"], 120, "trial records")
    experiment.wait(timeout=420)
    return experiment, returned_after, live


def test_the_cell_returns_at_once_and_trials_publish_run_records_while_they_go(asha):
    experiment, returned_after, live = asha
    assert returned_after < 5.0
    record = live[0]
    assert record["labels"]["experiment"] == "asha" and record["labels"]["trial"] in set(experiment.trials["trial"])
    assert set(record["labels"]["params"]) == set(SPACE) and record["labels"]["seed"] in (0, 1)
    assert all(char in "0123456789abcdef" for char in record["id"])  # the runs panel's routes take hex ids


def test_every_trial_and_seed_is_an_ordinary_run(asha):
    experiment, _, _ = asha
    assert experiment.state == "finished"
    trials = experiment.trials
    assert len(trials) == 4 and set(trials["state"]) <= {"finished", "stopped"}
    assert (trials.loc[trials["state"] == "finished", "timesteps"] >= 1200).all()
    assert (trials.loc[trials["state"] == "stopped", "timesteps"] < 1200).all()
    results = experiment.results
    assert len(results) == 8 and sorted(set(results["seed"])) == [0, 1]
    for row in results.itertuples():
        run = RunResult(row.logdir)
        assert run.config["optimizer"]["learning_rate"] == pytest.approx(row._3)  # the trial's sampled value
        assert run.config["target"]["sync_interval"] == row._4
        assert run.seed == row.seed and run.labels["trial"] == row.trial and run.env == "CartPole-v1"
        assert len(run.metrics) > 0 and run.metrics["timesteps_total"].is_monotonic_increasing
        assert run.checkpoint is not None and run.checkpoint.name == "final"  # ASHA-stopped trials too
        assert run.metrics["timesteps_total"].max() <= row.timesteps + 1
    records = [r for r in read_records() if r.get("experiment") == "asha"]
    assert len(records) == 8 and {r["state"] for r in records} <= {"finished", "stopped"}
    group = wait_until(lambda: next((r for r in read_records() if r.get("kind") == "experiment" and
                                     r["name"] == "asha" and r["state"] == "finished"), None), 10, "its record")
    assert sum(group["counts"].values()) == 4 and len(group["trials"]) == 4 and group["best_trial"]


def test_curves_results_and_the_best_run(asha):
    experiment, _, _ = asha
    curves = experiment.curves
    assert set(curves.columns) >= {"trial", "seed", "timesteps", "return", *SPACE}
    assert set(curves["timesteps"]) <= {300, 600, 900, 1200}
    best = experiment.best
    finished = experiment.trials[experiment.trials["timesteps"] >= 1200]
    assert experiment.best_trial in set(finished["trial"])
    assert experiment.best_trial == finished.sort_values("return", ascending=False)["trial"].iloc[0]
    agent = best.load_agent()
    assert agent.timesteps >= 1200 and np.isfinite(agent.get_weights(trainable_only=True)[
        next(iter(agent.get_weights(trainable_only=True)))]).all()
    run = promote(best, to="local", timesteps=200, logdir=experiment.directory.parent / "again")
    run.wait(60)
    assert run.spec.config["optimizer"] == best.config["optimizer"] and run.state == "finished"
    again = Experiment.attach("asha", logdir=experiment.directory.parent)
    assert again is experiment  # the live object, while its driver's thread is in this process


def test_the_live_widget_shows_a_sorted_table_and_the_curves(asha):
    experiment, _, _ = asha
    widget = experiment.widget()
    view = experiment._view
    view.refresh(force=True)
    table = view.table
    assert table.best == experiment.best_trial and len(table.rows) == 4
    column = table.columns.index("return")
    values = [float(row[column]) for row in table.rows]
    assert values == sorted(values, reverse=True)  # sorted by the metric, best first
    table.sort_by, table.descending = "optimizer/learning_rate", False
    column = table.columns.index("optimizer/learning_rate")
    rates = [float(row[column]) for row in table.rows]
    assert rates == sorted(rates)
    assert bytes(view.image.value).startswith(PNG)
    before = view.refreshes
    view.color_by.value = "target/sync_interval"
    assert view.refreshes == before + 1 and widget.children[-1] is view.image
    assert "finished" in view.status.value and experiment.best_trial in view.status.value
    bundle = experiment._repr_mimebundle_()
    assert "text/plain" in bundle and "asha" in bundle["text/plain"]


def test_tensorboard_sees_every_trial_run(asha):
    experiment, _, _ = asha
    frame = experiment.tensorboard()
    try:
        runs = wait_until(lambda: _json(frame.src + "data/runs"), 60, "TensorBoard's run list")
        assert {f"{trial}/seed_{seed}" for trial in experiment.trials["trial"] for seed in (0, 1)} <= set(runs)
    finally:
        experiment._tensorboard.stop()


def _json(url: str):
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return json.loads(response.read())
    except OSError:
        return None


def test_stop_stops_every_trial_and_keeps_their_final_checkpoints(ray_session, tmp_path):
    experiment = sweep(small_dqn(), space={"optimizer/learning_rate": tune.choice([1e-3, 2e-3, 3e-3])}, seeds=1,
                       trials=1, budget=200_000, report_every=300, env="CartPole-v1", logdir=tmp_path, name="halt")
    wait_until(lambda: experiment.book.points, 120, "a first result")
    experiment.stop(timeout=120)
    assert experiment.state == "stopped"
    assert set(experiment.trials["state"]) == {"stopped"}
    runs = experiment.runs()
    assert runs and all(run.checkpoint is not None and run.checkpoint.name == "final" for run in runs)
    assert all(0 < run.metrics["timesteps_total"].max() < 200_000 for run in runs)
    lines = [json.loads(line) for line in (experiment.directory / "records.jsonl").read_text().splitlines()]
    assert lines[-1]["kind"] == "experiment" and lines[-1]["state"] == "stopped"
