"""Outside sequence batches of PPO and IMPALA are checked before anything changes: ranks, the same (num_envs,
length) in every key, boolean terminals, finite values, integer ranges, and float actions in the bounds their
policy samples in — refused by default, clipped with ``out_of_bounds="clip"``. Errors name ``batch`` and the key
path in it; a refused batch leaves every variable as it was."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.sequence_checks import checked_sequences
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import Dict, FloatBox, IntBox

STATES = Dict({"position": FloatBox(-1.0, 1.0, shape=(3,)), "mode": IntBox(4)})
POSITIONS = STATES["position"]  # what the agents below observe (a dense network takes one float leaf)
ACTIONS = FloatBox(-1.0, 1.0, shape=(2,))
SMALL = {"network": [{"type": "dense", "units": 8, "activation": "tanh"}],
         "value_network": [{"type": "dense", "units": 8, "activation": "tanh"}]}


def batch(envs: int = 2, length: int = 3, seed: int = 0) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    chain = rng.uniform(-1, 1, (envs, length + 1, 3)).astype(np.float32)
    modes = rng.integers(0, 4, (envs, length + 1))
    return {"states": {"position": chain[:, :-1].copy(), "mode": modes[:, :-1].copy()},
            "actions": rng.uniform(-0.9, 0.9, (envs, length, 2)).astype(np.float32),
            "rewards": rng.normal(size=(envs, length)).astype(np.float32),
            "terminals": np.zeros((envs, length), bool),
            "next_states": {"position": chain[:, 1:].copy(), "mode": modes[:, 1:].copy()}}


def with_leaf(value: dict, path: str, leaf: object) -> dict:
    """``value`` with the leaf at ``path`` (``states/position``) replaced."""
    key, _, rest = path.partition("/")
    return {**value, key: with_leaf(value[key], rest, leaf) if rest else leaf}


def flat(value: dict) -> dict:
    """``value`` with its states' positions only."""
    return {key: leaf["position"] if key in ("states", "next_states") else leaf for key, leaf in value.items()}


def check(value: dict, out_of_bounds: str = "refuse") -> dict:
    return checked_sequences(value, STATES, ACTIONS, out_of_bounds, ("behaviour_log_probs",))


CASES = {  # batch key path -> a bad value, and what the error says
    "rewards": (np.zeros(6, np.float32), "sequences"),
    "terminals": (np.zeros((2, 4), bool), "num_envs, length"),
    "states/position": (np.zeros((3, 3, 3), np.float32), "num_envs, length"),
    "next_states/mode": (np.zeros((2, 2), np.int64), "num_envs, length"),
    "actions": (np.zeros((2, 3, 5), np.float32), "shape"),
}
VALUES = {  # bad values in the right shapes
    "rewards": np.array([[0.0, np.nan, 0.0], [0.0, 0.0, 0.0]], np.float32),
    "terminals": np.array([[0, 2, 0], [0, 0, 0]]),
    "states/position": np.full((2, 3, 3), np.inf, np.float32),
    "next_states/mode": np.full((2, 3), 9),
    "actions": np.full((2, 3, 2), np.nan, np.float32),
    "behaviour_log_probs": np.array([[0.0, -np.inf, 0.0], [0.0, 0.0, 0.0]], np.float32),
}


@pytest.mark.parametrize("path", sorted(CASES))
def test_every_key_has_the_rewards_num_envs_and_length(path):
    value, message = CASES[path]
    with pytest.raises(SpaceError, match=message) as error:
        check(with_leaf(batch(), path, value))
    assert (error.value.argument, error.value.key_path) == ("batch", path)


@pytest.mark.parametrize("path", sorted(VALUES))
def test_bad_values_are_refused_naming_their_key_path(path):
    with pytest.raises(SpaceError) as error:
        check(with_leaf(batch(), path, VALUES[path]))
    assert (error.value.argument, error.value.key_path) == ("batch", path)


def test_terminals_are_booleans_and_a_good_batch_comes_back_as_arrays():
    with pytest.raises(SpaceError, match="terminals are booleans") as error:
        check({**batch(), "terminals": [["no"] * 3] * 2})
    assert error.value.key_path == "terminals"
    good = check({**batch(), "terminals": np.array([[0, 1, 0], [0, 0, 1]])})
    assert good["terminals"].dtype == bool and good["terminals"].tolist() == [[False, True, False],
                                                                               [False, False, True]]
    assert good["rewards"].dtype == np.float32 and good["rewards"].shape == (2, 3)
    with pytest.raises(SpaceError, match="unknown keys") as error:
        check(with_leaf(batch(), "states/velocity", np.zeros((2, 3))))
    assert error.value.key_path == "states"


def test_float_actions_out_of_bounds_are_refused_or_clipped():
    wide = {**batch(), "actions": np.full((2, 3, 2), 1.5, np.float32)}
    with pytest.raises(SpaceError, match="out of bounds") as error:
        check(wide)
    assert (error.value.argument, error.value.key_path) == ("batch", "actions")
    assert np.all(check(wide, "clip")["actions"] == 1.0)
    nan = {**batch(), "actions": np.full((2, 3, 2), np.nan, np.float32)}
    with pytest.raises(SpaceError, match=r"not finite|out of bounds"):
        check(nan, "clip")  # clipping never makes NaN an action


def test_integer_actions_are_never_clipped():
    with pytest.raises(SpaceError, match="out of bounds") as error:
        checked_sequences({**batch(), "actions": np.full((2, 3), 7)}, STATES, IntBox(3), "clip")
    assert error.value.key_path == "actions"


def agent(kind: str, distribution: str | None = None, **execution) -> Agent:
    config = {"type": kind, "policy": {**SMALL, "distribution": distribution}, "update": {"rollout_length": 3},
              **({"execution": execution} if execution else {})}
    return Agent.from_config(config, state_space=POSITIONS, action_space=ACTIONS, backend="torch", seed=0).build()


@pytest.mark.parametrize("kind", ["ppo", "impala"])
def test_a_refused_batch_changes_nothing_and_a_bounded_policy_refuses_or_clips(kind):
    learner = agent(kind, "squashed_normal")
    before = learner.get_weights()
    wide = {**flat(batch()), "actions": np.full((2, 3, 2), 3.0, np.float32)}
    for bad in (wide, {**flat(batch()), "states": VALUES["states/position"]},
                {**flat(batch()), "terminals": VALUES["terminals"]}):
        with pytest.raises(SpaceError) as error:
            learner.update(bad)
        assert error.value.argument == "batch"
    for name, value in learner.get_weights().items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)
    assert learner.updates == 0
    clipped = learner.update(wide, out_of_bounds="clip")
    reference = agent(kind, "squashed_normal").update({**wide, "actions": np.ones((2, 3, 2), np.float32)})
    assert clipped["loss"] == pytest.approx(reference["loss"], rel=1e-5)  # the same update as on the bounds
    assert agent(kind, "squashed_normal", out_of_bounds="clip").update(wide)["loss"] == \
        pytest.approx(reference["loss"], rel=1e-5)  # the config's default
    with pytest.raises(ConfigError) as error:
        learner.update(wide, out_of_bounds="wrap")
    assert error.value.argument == "out_of_bounds"


@pytest.mark.parametrize("kind", ["ppo", "impala"])
def test_a_normal_policys_raw_samples_may_leave_the_action_box(kind):
    metrics = agent(kind).update({**flat(batch()), "actions": np.full((2, 3, 2), 3.0, np.float32)})
    assert np.isfinite(metrics["loss"])  # its Gaussian samples are unbounded: only finite is asked


def test_impala_behaviour_log_probs_are_checked_on_both_entry_points():
    learner = agent("impala")
    bad = {**flat(batch()), "behaviour_log_probs": VALUES["behaviour_log_probs"]}
    with pytest.raises(SpaceError) as error:
        learner.update(bad)
    assert error.value.key_path == "behaviour_log_probs"
    with pytest.raises(SpaceError) as error:
        learner.behaviour_log_probs({**flat(batch()), "states": VALUES["states/position"]})
    assert error.value.key_path == "states"


@pytest.mark.parametrize("kind", ["ppo", "impala"])
def test_a_recurrent_batchs_internal_states_are_checked(kind):
    config = {"type": kind, "policy": {"network": [{"type": "lstm", "units": 4}],
                                       "value_network": SMALL["value_network"]},
              "update": {"rollout_length": 3}}
    learner = Agent.from_config(config, state_space=POSITIONS, action_space=ACTIONS, backend="torch", seed=0).build()
    zeros = learner.initial_state(2)
    assert np.isfinite(learner.update({**flat(batch()), "internal_states": zeros})["loss"])
    for bad in ((zeros[0], np.full_like(zeros[1], np.nan)), (zeros[0][:1], zeros[1][:1]), zeros[0], "h"):
        with pytest.raises(SpaceError) as error:
            learner.update({**flat(batch()), "internal_states": bad})
        assert error.value.argument == "batch" and error.value.key_path.startswith("internal_states")
