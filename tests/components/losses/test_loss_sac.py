"""SACLoss: critic (twin-Q soft target), actor and temperature losses against NumPy loops, with batch and
batch+time ranks; one critic; space and config errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import SACLoss
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import BoolBox, FloatBox
from rlworkbench.testing import ComponentTest

BATCH = {"add_batch_rank": True}
BATCH_TIME = {"add_batch_rank": True, "add_time_rank": True}
CRITIC = ["q_values", "rewards", "terminals", "next_target_q_values", "next_log_probs", "log_alpha"]


def sac_spaces(ranks: dict, critics: int = 2) -> dict:
    q = FloatBox(shape=(critics,), **ranks)
    return {"q_values": q, "rewards": FloatBox(**ranks), "terminals": BoolBox(**ranks), "next_target_q_values": q,
            "next_log_probs": FloatBox(**ranks), "log_probs": FloatBox(**ranks), "log_alpha": FloatBox(-2.0, 1.0)}


def sample(spaces: dict, size, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {name: space.sample(None if name == "log_alpha" else size, seed=rng) for name, space in spaces.items()}


def critic_reference(q_values, rewards, terminals, next_target_q_values, next_log_probs, log_alpha, discount):
    per_item = np.zeros(rewards.shape)
    for i in np.ndindex(rewards.shape):
        soft_value = np.min(next_target_q_values[i]) - np.exp(log_alpha) * next_log_probs[i]
        target = rewards[i] + (0.0 if terminals[i] else discount * soft_value)
        per_item[i] = sum(0.5 * (q - target) ** 2 for q in q_values[i])
    return per_item.mean(), per_item


def actor_reference(log_probs, q_values, log_alpha):
    per_item = np.zeros(log_probs.shape)
    for i in np.ndindex(log_probs.shape):
        per_item[i] = np.exp(log_alpha) * log_probs[i] - np.min(q_values[i])
    return per_item.mean(), per_item


def temperature_reference(log_probs, log_alpha, target_entropy):
    per_item = np.zeros(log_probs.shape)
    for i in np.ndindex(log_probs.shape):
        per_item[i] = -np.exp(log_alpha) * (log_probs[i] + target_entropy)
    return per_item.mean(), per_item


@pytest.mark.parametrize("ranks, sizes, critics", [(BATCH, [32, 5], 2), (BATCH_TIME, [(3, 4), (2, 7)], 2),
                                                   (BATCH, [8], 1)])
def test_sac_losses_match_numpy(backend, built, ranks, sizes, critics):
    spaces = sac_spaces(ranks, critics)
    test = built((backend, tuple(ranks), critics),
                 lambda: ComponentTest(SACLoss(discount=0.9, target_entropy=-2.0), spaces, backend=backend))
    for seed, size in enumerate(sizes):
        x = sample(spaces, size, seed)
        test.test(("critic_loss", [x[name] for name in CRITIC[:3]], {name: x[name] for name in CRITIC[3:]}),
                  decimals=4,
                  expected_outputs=critic_reference(*[x[name] for name in CRITIC], discount=0.9))
        test.test(("actor_loss", [x["log_probs"], x["q_values"], x["log_alpha"]]), decimals=4,
                  expected_outputs=actor_reference(x["log_probs"], x["q_values"], x["log_alpha"]))
        test.test(("temperature_loss", [x["log_probs"], x["log_alpha"]]), decimals=4,
                  expected_outputs=temperature_reference(x["log_probs"], x["log_alpha"], -2.0))
    for api_method in ("critic_loss", "actor_loss", "temperature_loss"):
        assert test.graph.output_space(api_method) == (FloatBox(), FloatBox(**ranks))


def test_terminal_items_regress_to_the_reward(backend, built):
    spaces = sac_spaces(BATCH)
    test = built((backend, tuple(BATCH), 2),
                 lambda: ComponentTest(SACLoss(discount=0.9, target_entropy=-2.0), spaces, backend=backend))
    q = np.array([[1.0, 3.0]], np.float32)
    _, per_item = test.test(("critic_loss", [q, np.array([2.0], np.float32), np.array([True])],
                             {"next_target_q_values": np.full((1, 2), 100.0, np.float32),
                              "next_log_probs": np.array([5.0], np.float32), "log_alpha": np.float32(0.0)}))
    np.testing.assert_allclose(per_item, [0.5 * 1.0 + 0.5 * 1.0])


def test_temperature_loss_needs_a_target_entropy(backend):
    with pytest.raises(ConfigError) as info:
        ComponentTest(SACLoss(), sac_spaces(BATCH), backend=backend)
    assert (info.value.key_path, info.value.component, info.value.api_method) == \
        ("target_entropy", "sac_loss", "temperature_loss")


def test_critic_and_actor_losses_alone_need_no_target_entropy(backend):
    test = ComponentTest(SACLoss(), sac_spaces(BATCH), backend=backend, api_methods=["critic_loss", "actor_loss"])
    x = sample(sac_spaces(BATCH), 4, seed=9)
    test.test(("actor_loss", [x["log_probs"], x["q_values"], x["log_alpha"]]),
              expected_outputs=actor_reference(x["log_probs"], x["q_values"], x["log_alpha"]), decimals=4)


@pytest.mark.parametrize("key, space", [
    ("log_alpha", FloatBox(**BATCH)),
    ("q_values", FloatBox(**BATCH)),
    ("next_target_q_values", FloatBox(shape=(3,), **BATCH)),
    ("next_log_probs", FloatBox(**BATCH_TIME)),
])
def test_bad_input_spaces_name_the_argument(backend, key, space):
    with pytest.raises(SpaceError) as info:
        ComponentTest(SACLoss(target_entropy=-1.0), {**sac_spaces(BATCH), key: space}, backend=backend)
    assert (info.value.argument, info.value.component) == (key, "sac_loss")


def test_discount_outside_zero_one_is_a_config_error(backend):
    with pytest.raises(ConfigError) as info:
        SACLoss(discount=-0.1)
    assert info.value.key_path == "discount"
