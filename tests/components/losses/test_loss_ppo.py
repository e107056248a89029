"""PPOLoss: clipped surrogate, (clipped) value loss, entropy bonus and diagnostics against a NumPy loop, with batch
and batch+time ranks; the optional prev_values argument; config and space errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import PPOLoss
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest

BATCH = {"add_batch_rank": True}
TIME_MAJOR = {"add_batch_rank": True, "add_time_rank": True, "time_major": True}
NAMES = ["log_probs", "prev_log_probs", "advantages", "entropies", "values", "value_targets"]


def ppo_spaces(ranks: dict, prev_values: bool) -> dict:
    spaces = {name: FloatBox(**ranks) for name in NAMES}
    spaces["log_probs"] = spaces["prev_log_probs"] = FloatBox(-1.5, 0.0, **ranks)  # ratios in [0.22, 4.5]
    if prev_values:
        spaces["prev_values"] = FloatBox(**ranks)
    return spaces


def sample_inputs(spaces: dict, size, seed: int) -> list:
    rng = np.random.default_rng(seed)
    return [spaces[name].sample(size, seed=rng) for name in NAMES + ["prev_values"] if name in spaces]


def by_name(inputs: list) -> tuple:
    """``("loss", [log_probs], {the others by name})``: all but ``log_probs`` are keyword-only."""
    return "loss", inputs[:1], dict(zip(NAMES[1:] + ["prev_values"], inputs[1:]))


def ppo_reference(log_probs, prev_log_probs, advantages, entropies, values, value_targets, prev_values=None,
                  clip_ratio=0.2, value_clip=None, entropy_weight=0.01, value_weight=0.5):
    shape = log_probs.shape
    policy, value, kl, clipped = np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape)
    for i in np.ndindex(shape):
        ratio = np.exp(log_probs[i] - prev_log_probs[i])
        bounded = min(max(ratio, 1 - clip_ratio), 1 + clip_ratio)
        policy[i] = -min(ratio * advantages[i], bounded * advantages[i])
        squared = (values[i] - value_targets[i]) ** 2
        if value_clip is not None:
            moved = prev_values[i] + min(max(values[i] - prev_values[i], -value_clip), value_clip)
            squared = max(squared, (moved - value_targets[i]) ** 2)
        value[i] = 0.5 * squared
        kl[i] = prev_log_probs[i] - log_probs[i]
        clipped[i] = abs(ratio - 1) > clip_ratio
    per_item = policy + value_weight * value - entropy_weight * entropies
    parts = {"policy_loss": policy.mean(), "value_loss": value.mean(), "entropy": entropies.mean(),
             "approx_kl": kl.mean(), "clip_fraction": clipped.mean()}
    return per_item.mean(), per_item, parts


CONFIGS = {
    "plain": ({"clip_ratio": 0.2}, BATCH),
    "value_clipped": ({"clip_ratio": 0.1, "value_clip": 0.3, "entropy_weight": 0.05, "value_weight": 1.0},
                      TIME_MAJOR),
}


def ppo_test(built, backend: str, name: str) -> ComponentTest:
    config, ranks = CONFIGS[name]
    spaces = ppo_spaces(ranks, "value_clip" in config)
    return built((backend, name), lambda: ComponentTest(PPOLoss(**config), spaces, backend=backend))


@pytest.mark.parametrize("name, sizes", [("plain", [50, 7]), ("value_clipped", [(4, 6), (3, 11)])])
def test_ppo_loss_matches_numpy(backend, built, name, sizes):
    config, ranks = CONFIGS[name]
    test = ppo_test(built, backend, name)
    for size in sizes:
        inputs = sample_inputs(ppo_spaces(ranks, "value_clip" in config), size, seed=len(sizes) + 3)
        test.test(by_name(inputs), expected_outputs=ppo_reference(*inputs, **config), decimals=4)
    parts = {key: FloatBox() for key in ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")}
    loss_space, per_item_space, parts_space = test.graph.output_space("loss")
    assert (loss_space, per_item_space) == (FloatBox(), FloatBox(**ranks))
    assert dict(parts_space.items()) == parts


def test_the_surrogate_is_clipped_on_the_side_the_advantage_points_to(backend, built):
    test = ppo_test(built, backend, "plain")
    log_ratio = np.log(np.array([1.5, 1.5, 0.5, 0.5], np.float32))  # ratio above / below the [0.8, 1.2] band
    advantages = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
    zeros = np.zeros(4, np.float32)
    _, _, parts = test.test(by_name([log_ratio, zeros, advantages, zeros, zeros, zeros]))
    # -min(r A, clip(r) A): 1.5*1 -> 1.2, 1.5*-1 -> -1.5, 0.5*1 -> 0.5, 0.5*-1 -> -0.8 (pessimistic each time)
    np.testing.assert_allclose(parts["policy_loss"], -np.mean([1.2, -1.5, 0.5, -0.8]), rtol=1e-5)
    assert parts["clip_fraction"] == 1.0


@pytest.mark.parametrize("config, prev_values", [({"value_clip": 0.2}, False), ({}, True)])
def test_prev_values_are_given_exactly_with_value_clipping(backend, config, prev_values):
    with pytest.raises(ConfigError) as info:
        ComponentTest(PPOLoss(**config), ppo_spaces(BATCH, prev_values), backend=backend)
    assert info.value.key_path == "value_clip" and info.value.component == "ppo_loss"


@pytest.mark.parametrize("key, space", [("advantages", FloatBox(shape=(2,), **BATCH)),
                                        ("values", FloatBox(**TIME_MAJOR))])
def test_bad_input_spaces_name_the_argument(backend, key, space):
    with pytest.raises(SpaceError) as info:
        ComponentTest(PPOLoss(), {**ppo_spaces(BATCH, False), key: space}, backend=backend)
    assert info.value.argument == key and info.value.got == space


@pytest.mark.parametrize("key, value", [("clip_ratio", 0.0), ("value_clip", -1.0), ("entropy_weight", -0.1)])
def test_bad_configs_name_the_key(backend, key, value):
    with pytest.raises(ConfigError) as info:
        PPOLoss(**{key: value})
    assert info.value.key_path == key and info.value.got == value
