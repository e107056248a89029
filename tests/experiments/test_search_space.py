"""Sweep spaces over config key paths, checked against the agent's schema before anything starts: bad paths,
ranges a distribution can leave, kinds of distribution, nesting for Tune and back — and ``sweep()`` refusing bad
input without making a directory."""

from __future__ import annotations

import math
import sys

import pytest
from experiment_helpers import small_dqn
from ray import tune

from rlworkbench.agents.config import builtin_config
from rlworkbench.errors import ConfigError
from rlworkbench.workbench.experiments import sweep
from rlworkbench.workbench.experiments.search_space import (
    check_space,
    decode_space,
    describe,
    encode_space,
    params_of,
    produced_values,
    tune_space,
    with_params,
)


def test_a_good_space_passes_and_returns_the_full_config():
    config = check_space("dqn_cartpole" and builtin_config("dqn_cartpole"), {
        "optimizer/learning_rate": tune.loguniform(1e-4, 1e-2), "policy/network/0/units": tune.choice([64, 128]),
        "target/sync_interval": tune.grid_search([100, 500]), "update/batch_size": tune.qrandint(16, 128, 16),
        "loss/double_q": False})
    assert config["type"] == "dqn" and "exploration" in config  # defaults merged: paths walk the full config


@pytest.mark.parametrize(("space", "key_path", "words"), [
    ({"optimizer/learning_rat": tune.loguniform(1e-4, 1e-2)}, "optimizer/learning_rat", "takes no argument"),
    ({"policy/network/3/units": 64}, "policy/network/3/units", "not there"),
    ({"memory/capacity/size": 10}, "memory/capacity/size", "not there"),
    ({"optimizer/learning_rate": tune.uniform(-1.0, 1.0)}, "optimizer/learning_rate", "can produce -1.0"),
    ({"update/batch_size": tune.randint(0, 64)}, "update/batch_size", "can produce 0"),
    ({"memory/capacity": tune.uniform(100, 1000)}, "memory/capacity", "wrong type"),
    ({"loss/double_q": tune.choice([True, 3])}, "loss/double_q", "can produce 3"),
    ({"target/tau": tune.grid_search([0.5, 1.5])}, "target/tau", "can produce 1.5"),
    ({"target/tau": tune.randn(0.5, 0.1)}, "target/tau", "can produce"),
])
def test_bad_paths_and_ranges_are_config_errors_naming_the_path(space, key_path, words):
    with pytest.raises(ConfigError) as caught:
        check_space(small_dqn(), space)
    assert caught.value.key_path == key_path and caught.value.argument == "space"
    assert words in str(caught.value)


def test_bounds_a_sampler_never_reaches_are_not_checked():
    # randint excludes its upper bound, uniform too: randint(1, 11) on a key whose maximum is 10 is fine
    assert produced_values(tune.randint(1, 11), "x") == [1, 10]
    assert produced_values(tune.qrandint(0, 10, 5), "x") == [0, 10]
    assert produced_values(tune.lograndint(1, 100), "x") == [1, 99]
    low, high = produced_values(tune.uniform(0.0, 1.0), "x")
    assert low == 0.0 and high < 1.0 and high == pytest.approx(1.0)
    assert produced_values(tune.quniform(0.0, 1.2, 0.3), "x") == [0.0, pytest.approx(1.2)]
    assert produced_values(tune.randn(0, 1), "x") == [-sys.float_info.max, sys.float_info.max]
    assert produced_values(tune.choice(["a", "b"]), "x") == ["a", "b"]
    check_space(small_dqn(), {"target/tau": tune.uniform(0.5, 1.0)})  # tau <= 1, the sampler stays below 1


def test_sample_from_and_empty_grids_are_refused():
    with pytest.raises(ConfigError, match="sample_from"):
        check_space(small_dqn(), {"optimizer/learning_rate": tune.sample_from(lambda _: 1e-3)})
    with pytest.raises(ConfigError, match="grid_search needs"):
        check_space(small_dqn(), {"optimizer/learning_rate": {"grid_search": []}})
    with pytest.raises(ConfigError, match="key path"):
        check_space(small_dqn(), {"optimizer//learning_rate": 1e-3})
    with pytest.raises(ConfigError, match="low must lie below"):
        check_space(small_dqn(), {"optimizer/learning_rate": tune.uniform(0.1, 0.01)})
    with pytest.raises(ConfigError, match="needs values"):
        check_space(small_dqn(), {"optimizer/learning_rate": tune.choice([])})


def test_the_space_nests_for_tune_and_reads_back_by_path():
    space = {"optimizer/learning_rate": tune.loguniform(1e-4, 1e-2), "policy/network/0/units": tune.choice([8, 16])}
    nested = tune_space(space)
    assert set(nested) == {"optimizer", "policy"} and "0" in nested["policy"]["network"]
    sampled = {"optimizer": {"learning_rate": 3e-3}, "policy": {"network": {"0": {"units": 16}}}}
    params = params_of(sampled, list(space))
    assert params == {"optimizer/learning_rate": 3e-3, "policy/network/0/units": 16}
    config = with_params(small_dqn(), params)
    assert config["optimizer"]["learning_rate"] == 3e-3 and config["policy"]["network"][0]["units"] == 16
    with pytest.raises(ConfigError, match="inside another"):
        tune_space({"optimizer": {"type": "adam"}, "optimizer/learning_rate": 1e-3})


def test_spaces_travel_as_json_and_come_back_alike():
    space = {"a": tune.loguniform(1e-4, 1e-2), "b": tune.qrandint(1, 10, 2), "c": tune.grid_search([1, 2]),
             "d": tune.choice(["x", "y"]), "e": 5, "f": tune.randn(0, 2), "g": tune.quniform(0, 1.2, 0.3),
             "h": tune.lograndint(1, 100)}
    decoded = decode_space(encode_space(space))
    assert {key: describe(value) for key, value in decoded.items()} == \
        {key: describe(value) for key, value in space.items()}


@pytest.mark.parametrize(("arguments", "argument"), [
    ({"space": {"optimizer/learning_rat": 1e-3}}, "space"),
    ({"space": {"optimizer/learning_rate": tune.uniform(-1, 1)}}, "space"),
    ({"scheduler": "hyperband"}, "scheduler"),
    ({"search": "hyperopt"}, "search"),
    ({"search": "optuna", "space": {"target/sync_interval": tune.grid_search([10, 20])}}, "space"),
    ({"scheduler": "pbt", "search": "optuna"}, "search"),
    ({"seeds": 0}, "seeds"),
    ({"seeds": [1, 1]}, "seeds"),
    ({"metric": "loss"}, "metric"),
    ({"metric": "greedy_return", "evaluation_episodes": 0}, "evaluation_episodes"),
    ({"target": "cluster"}, "target"),
    ({"target": "local", "workers": 2}, "workers"),
    ({"budget": 0}, "budget"),
    ({"name": "../escape"}, "name"),
    ({"env": lambda: None}, "env"),
    ({"auth_token": "secret"}, "auth_token"),
])
def test_sweep_refuses_bad_input_before_anything_starts(tmp_path, arguments, argument):
    settings = {"space": {"optimizer/learning_rate": tune.loguniform(1e-4, 1e-2)}, "logdir": tmp_path,
                "budget": 1000, **arguments}
    with pytest.raises(ConfigError) as caught:
        sweep(small_dqn(), **settings)
    assert argument in (caught.value.argument or "")
    assert list(tmp_path.iterdir()) == []  # nothing was started, nothing written


def test_an_existing_experiment_name_is_refused(tmp_path):
    (tmp_path / "mine").mkdir()
    with pytest.raises(ConfigError, match="exists"):
        sweep(small_dqn(), space={"optimizer/learning_rate": 1e-3}, logdir=tmp_path, name="mine")
    assert math.isfinite(1.0)


def _drawn(plan, space, samples=3):
    """The values the plan's search draws for ``space`` (Tune's generator, no trial run)."""
    from rlworkbench.workbench.experiments.driver import make_search

    generator = make_search(plan, space)
    generator.add_configurations({"e": {"run": lambda config: None, "config": tune_space(space),
                                        "num_samples": samples}})
    values = []
    while (trial := generator.next_trial()) is not None:
        values.append(trial.config["optimizer"]["learning_rate"])
    return values


def test_a_search_seed_draws_the_same_trials_again():
    from rlworkbench.workbench.experiments.plan import ExperimentPlan

    space = {"optimizer/learning_rate": tune.loguniform(1e-4, 1e-2)}

    def plan(seed):
        return ExperimentPlan(name="x", prototype="dqn", directory="/tmp/x", config=small_dqn(), paths=list(space),
                              space={}, seeds=[0], budget=100, report_every=100, target="local", settings={},
                              search_seed=seed)
    assert _drawn(plan(1), space) == _drawn(plan(1), space) != _drawn(plan(2), space)
