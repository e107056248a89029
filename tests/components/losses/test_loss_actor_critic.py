"""ActorCriticLoss: policy gradient with advantages, value loss and entropy bonus against NumPy, with batch and
batch+time ranks; space and config errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components import ActorCriticLoss, from_spec
from rlworkbench.errors import ConfigError, SpaceError
from rlworkbench.spaces import FloatBox, IntBox
from rlworkbench.testing import ComponentTest

NAMES = ["log_probs", "advantages", "entropies", "values", "value_targets"]
RANKS = [
    ([20, 3], {"add_batch_rank": True}),
    ([(4, 5), (2, 9)], {"add_batch_rank": True, "add_time_rank": True}),
    ([(4, 5), (2, 9)], {"add_batch_rank": True, "add_time_rank": True, "time_major": True}),
]


def by_name(inputs: list) -> tuple:
    """``("loss", [log_probs], {the others by name})``: all but ``log_probs`` are keyword-only."""
    return "loss", inputs[:1], dict(zip(NAMES[1:], inputs[1:]))


def actor_critic_reference(log_probs, advantages, entropies, values, value_targets, value_weight=0.5,
                           entropy_weight=0.01):
    per_item = np.zeros(log_probs.shape)
    policy, value = np.zeros(log_probs.shape), np.zeros(log_probs.shape)
    for i in np.ndindex(log_probs.shape):
        policy[i] = -log_probs[i] * advantages[i]
        value[i] = 0.5 * (values[i] - value_targets[i]) ** 2
        per_item[i] = policy[i] + value_weight * value[i] - entropy_weight * entropies[i]
    parts = {"policy_loss": policy.mean(), "value_loss": value.mean(), "entropy": entropies.mean()}
    return per_item.mean(), per_item, parts


@pytest.mark.parametrize("sizes, ranks", RANKS)
def test_actor_critic_loss_matches_numpy(backend, built, sizes, ranks):
    spaces = {name: FloatBox(**ranks) for name in NAMES}
    config = {"value_weight": 0.25, "entropy_weight": 0.1}
    test = built((backend, tuple(ranks.items())),
                 lambda: ComponentTest(ActorCriticLoss(**config), spaces, backend=backend))
    for seed, size in enumerate(sizes):
        rng = np.random.default_rng(seed)
        inputs = [spaces[name].sample(size, seed=rng) for name in NAMES]
        test.test(by_name(inputs), expected_outputs=actor_critic_reference(*inputs, **config), decimals=4)
    loss_space, per_item_space, parts_space = test.graph.output_space("loss")
    assert (loss_space, per_item_space) == (FloatBox(), FloatBox(**ranks))
    assert sorted(parts_space.keys()) == ["entropy", "policy_loss", "value_loss"]


def test_actor_critic_loss_from_a_spec(backend):
    loss = from_spec({"type": "actor_critic_loss", "entropy_weight": 0.0})
    spaces = {name: FloatBox(add_batch_rank=True) for name in NAMES}
    test = ComponentTest(loss, spaces, backend=backend)
    inputs = [spaces[name].sample(6, seed=i) for i, name in enumerate(NAMES)]
    test.test(by_name(inputs), expected_outputs=actor_critic_reference(*inputs, entropy_weight=0.0), decimals=4)


@pytest.mark.parametrize("key, space", [("log_probs", IntBox(3, add_batch_rank=True)),
                                        ("entropies", FloatBox(add_batch_rank=True, add_time_rank=True))])
def test_bad_input_spaces_name_the_argument(backend, key, space):
    spaces = {**{name: FloatBox(add_batch_rank=True) for name in NAMES}, key: space}
    with pytest.raises(SpaceError) as info:
        ComponentTest(ActorCriticLoss(), spaces, backend=backend)
    assert (info.value.argument, info.value.component) == (key, "actor_critic_loss")


def test_negative_weights_are_config_errors(backend):
    with pytest.raises(ConfigError) as info:
        ActorCriticLoss(value_weight=-1.0)
    assert info.value.key_path == "value_weight"
