"""GAE against a NumPy backward loop with episode boundaries: batch-major, time-major and time-only sequences, each
built once and run with two time lengths (unknown while tracing on TensorFlow); limits lambda 0 and 1; errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import GAE, from_spec
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox
from rlworkbench.testing import ComponentTest

NAMES = ["rewards", "values", "terminals", "bootstrap_values"]
RANKS = {
    "batch_major": {"add_batch_rank": True, "add_time_rank": True},
    "time_major": {"add_batch_rank": True, "add_time_rank": True, "time_major": True},
    "time_only": {"add_time_rank": True},
}


def gae_spaces(ranks: dict) -> dict:
    return {"rewards": FloatBox(**ranks), "values": FloatBox(**ranks), "terminals": BoolBox(**ranks),
            "bootstrap_values": FloatBox(add_batch_rank=ranks.get("add_batch_rank", False))}


def sample(spaces: dict, batch: int, time: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    has_batch = spaces["bootstrap_values"].has_batch_rank
    return [spaces[name].sample(batch if name == "bootstrap_values" else (batch, time), seed=rng)
            if has_batch else spaces[name].sample(None if name == "bootstrap_values" else time, seed=rng)
            for name in NAMES]


def by_name(inputs: list) -> tuple:
    """``("calculate", [rewards], {the others by name})``: all but ``rewards`` are keyword-only."""
    return "calculate", inputs[:1], dict(zip(NAMES[1:], inputs[1:]))


def gae_reference(rewards, values, terminals, bootstrap_values, discount, gae_lambda):
    """One sequence (1-D arrays over time), looping backwards."""
    T = len(rewards)
    advantages = np.zeros(T)
    next_value, next_advantage = bootstrap_values, 0.0
    for t in reversed(range(T)):
        not_done = 0.0 if terminals[t] else 1.0
        delta = rewards[t] + discount * not_done * next_value - values[t]
        advantages[t] = delta + discount * gae_lambda * not_done * next_advantage
        next_value, next_advantage = values[t], advantages[t]
    return advantages, advantages + values


def gae_batch_reference(inputs: list, layout: str, discount: float, gae_lambda: float):
    rewards, values, terminals, bootstrap_values = inputs
    if layout == "time_only":
        return gae_reference(rewards, values, terminals, bootstrap_values, discount, gae_lambda)
    if layout == "time_major":
        rewards, values, terminals = rewards.T, values.T, terminals.T
    rows = [gae_reference(rewards[b], values[b], terminals[b], bootstrap_values[b], discount, gae_lambda)
            for b in range(len(bootstrap_values))]
    advantages, targets = np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows])
    return (advantages.T, targets.T) if layout == "time_major" else (advantages, targets)


@pytest.mark.parametrize("layout", sorted(RANKS))
def test_gae_matches_a_numpy_backward_loop(backend, built, layout):
    spaces = gae_spaces(RANKS[layout])
    test = built((backend, layout), lambda: ComponentTest(GAE(0.9, 0.8), spaces, backend=backend))
    for batch, time in ((4, 6), (3, 13)):  # one build, two time lengths
        inputs = sample(spaces, batch, time, seed=time)
        expected = gae_batch_reference(inputs, layout, 0.9, 0.8)
        advantages, _ = test.test(by_name(inputs), expected_outputs=expected, decimals=4)
        assert advantages.shape == inputs[0].shape
    assert test.graph.output_space("calculate") == (FloatBox(**RANKS[layout]), FloatBox(**RANKS[layout]))


@pytest.mark.parametrize("gae_lambda", [0.0, 1.0])
def test_lambda_zero_is_the_td_error_and_lambda_one_the_discounted_return(backend, gae_lambda):
    spaces = gae_spaces(RANKS["batch_major"])
    test = ComponentTest(from_spec({"type": "gae", "discount": 0.5, "gae_lambda": gae_lambda}), spaces,
                         backend=backend)
    rewards = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)
    values = np.array([[0.5, 0.5, 0.5, 0.5]], np.float32)
    terminals = np.array([[False, True, False, False]])
    advantages, targets = test.test(by_name([rewards, values, terminals, np.array([8.0], np.float32)]))
    if gae_lambda == 0.0:  # r + 0.5 * V' * (1 - d) - V
        np.testing.assert_allclose(advantages, [[1.0 + 0.25 - 0.5, 2.0 - 0.5, 3.0 + 0.25 - 0.5, 4.0 + 4.0 - 0.5]])
    else:  # returns that restart after the terminal, minus V
        np.testing.assert_allclose(targets, [[1.0 + 0.5 * 2.0, 2.0, 3.0 + 0.5 * (4.0 + 0.5 * 8.0), 4.0 + 0.5 * 8.0]])


@pytest.mark.parametrize("key, space", [("rewards", FloatBox(add_batch_rank=True)),
                                        ("terminals", FloatBox(shape=(2,), add_batch_rank=True, add_time_rank=True)),
                                        ("bootstrap_values", FloatBox(add_batch_rank=True, add_time_rank=True))])
def test_bad_input_spaces_name_the_argument(backend, key, space):
    spaces = {**gae_spaces(RANKS["batch_major"]), key: space}
    if key == "rewards":
        spaces.update(values=space, terminals=BoolBox(add_batch_rank=True))
    with pytest.raises(SpaceError) as info:
        ComponentTest(GAE(), spaces, backend=backend)
    assert (info.value.argument, info.value.component) == (key, "gae")


@pytest.mark.parametrize("key", ["discount", "gae_lambda"])
def test_rates_outside_zero_one_are_config_errors(backend, key):
    with pytest.raises(ConfigError) as info:
        GAE(**{key: 1.5})
    assert info.value.key_path == key and info.value.got == 1.5
