"""Where a sweep's runs train and who proposes their values: Optuna's TPE through Tune, trials whose runs use
replica towers (``multi_gpu``) or Ray sampler actors (``ray``: IMPALA) — each still an ordinary run of its target."""

from __future__ import annotations

import json

from experiment_helpers import small_dqn
from ray import tune

from rlworkbench.agents.config import builtin_config
from rlworkbench.workbench.experiments import sweep
from rlworkbench.workbench.run_records import read_records
from rlworkbench.workbench.run_result import RunResult


def test_optuna_proposes_the_values(ray_session, tmp_path):
    experiment = sweep(small_dqn(), space={"optimizer/learning_rate": tune.loguniform(3e-4, 3e-3),
                                           "target/sync_interval": tune.choice([20, 100])},
                       search="optuna", search_options={"max_concurrent": 2}, seeds=1, trials=3, budget=600,
                       report_every=300, env="CartPole-v1", logdir=tmp_path, name="tpe")
    experiment.wait(timeout=300)
    assert experiment.state == "finished" and len(experiment.trials) == 3
    rates = experiment.trials["optimizer/learning_rate"]
    assert rates.nunique() == 3 and rates.between(3e-4, 3e-3).all()
    assert list((experiment.directory / "tune").glob("searcher-state-*"))  # Tune kept the searcher's own state
    assert json.loads((experiment.directory / "experiment.json").read_text())["search"] == "optuna"


def test_trials_train_on_replica_towers(ray_session, tmp_path):
    experiment = sweep(small_dqn(), space={"update/batch_size": tune.choice([16, 32])}, target="multi_gpu",
                       devices=["cpu", "cpu"], seeds=1, trials=1, budget=400, report_every=200,
                       env="CartPole-v1", logdir=tmp_path, name="towers")
    experiment.wait(timeout=300)
    assert experiment.state == "finished"
    record = next(r for r in read_records() if r.get("experiment") == "towers")
    assert record["target"] == "multi_gpu" and record["devices"] == ["cpu", "cpu"]
    assert RunResult(experiment.results["logdir"].iloc[0]).load_agent().timesteps >= 400


def test_trials_train_with_ray_samplers(ray_session, tmp_path):
    config = builtin_config("impala_cartpole")
    experiment = sweep(config, space={"optimizer/learning_rate": tune.choice([5e-4, 1e-3])}, target="ray",
                       workers=1, sampler_cpus=0, envs_per_worker=2, seeds=1, trials=1, budget=2000,
                       report_every=1000, env="CartPole-v1", logdir=tmp_path, name="samplers")
    experiment.wait(timeout=300)
    assert experiment.state == "finished", experiment.error
    record = next(r for r in read_records() if r.get("experiment") == "samplers")
    assert record["target"] == "ray" and record["state"] == "finished"
    trials = experiment.trials
    assert int(trials["timesteps"].iloc[0]) >= 2000 and trials["restarts"].iloc[0] == 0
    run = RunResult(experiment.results["logdir"].iloc[0])
    assert "sampler_restarts" in run.updates.columns  # the Ray algorithm's health columns, as a Ray run has them
