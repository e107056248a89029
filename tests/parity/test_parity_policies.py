"""Parity of the policies and action adapters (same weights → same parameters, deterministic actions, log-probs,
entropies, KLs, Q-values and state values on torch and TF) and of Ornstein-Uhlenbeck noise's state variable."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.explorations import OrnsteinUhlenbeckNoise
from rlworkbench.components.policies import (
    BernoulliAdapter,
    BetaAdapter,
    CategoricalAdapter,
    DuelingActionAdapter,
    DuelingPolicy,
    NormalAdapter,
    Policy,
    SharedValueFunctionPolicy,
)
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Tuple

LAYERS = [{"type": "dense", "units": 8, "activation": "tanh"}]
DETERMINISTIC = ["get_parameters", "get_deterministic_action", "get_log_probs", "get_entropy", "get_kl_divergence"]
ACTION_SPACE = Dict(discrete=IntBox(3), continuous=FloatBox(-1.0, 1.0, shape=(2,)), flags=BoolBox((2,)))


def _parameter_space(ranks):
    return Dict(discrete=FloatBox(shape=(3,)), continuous=Tuple(FloatBox(shape=(2,)), FloatBox(shape=(2,))),
                flags=FloatBox(shape=(2,)), **ranks)


def test_policy_over_a_container_action(parity, ranks):
    spaces = {"states": FloatBox(shape=(4,), **ranks), "actions": ACTION_SPACE.with_ranks_of(
        FloatBox(shape=(), **ranks)), "other_parameters": _parameter_space(ranks)}
    pair = parity(lambda: Policy(LAYERS, ACTION_SPACE, name="policy"), spaces, api_methods=DETERMINISTIC)
    assert "action_adapter_continuous/dense/kernel" in pair.tf.variable_values()


def test_bounded_policies(parity):
    action_space = Dict(squashed=FloatBox(-2.0, 3.0, shape=(2,)), beta=FloatBox(0.0, 1.0, shape=(2,)))
    parameters = Dict(squashed=Tuple(FloatBox(shape=(2,)), FloatBox(shape=(2,))),
                      beta=Tuple(FloatBox(1.0, 5.0, shape=(2,)), FloatBox(1.0, 5.0, shape=(2,))), add_batch_rank=True)
    spaces = {"states": FloatBox(shape=(4,), add_batch_rank=True), "actions": action_space.with_batch_rank(),
              "other_parameters": parameters}
    pair = parity(lambda: Policy(LAYERS, action_space, distributions={"squashed": "squashed_normal", "beta": "beta"},
                                 name="policy"), spaces, api_methods=DETERMINISTIC)
    pair.run("get_deterministic_action", FloatBox(shape=(4,), add_batch_rank=True).sample(3, seed=1))


def test_dueling_policy(parity, ranks):
    parity(lambda: DuelingPolicy(LAYERS, IntBox(4), value_units=[3], advantage_units=[5], name="dueling"),
           {"states": FloatBox(shape=(4,), **ranks)}, api_methods=["get_q_values", "get_state_values", "get_action"])


def test_shared_value_function_policy(parity):
    parity(lambda: SharedValueFunctionPolicy(LAYERS, IntBox(3), value_units=[4], name="actor_critic"),
           {"states": FloatBox(shape=(4,), add_batch_rank=True)}, api_methods=["get_state_values", "get_entropy"])


def test_ornstein_uhlenbeck_state(parity):
    pair = parity(lambda: OrnsteinUhlenbeckNoise(sigma=0.0, mu=0.3, batch_size=5, name="ou"),
                  {"actions": FloatBox(-1.0, 1.0, shape=(2,), add_batch_rank=True), "time_step": IntBox(0, 100)},
                  batch_sizes=(5,), api_methods=["get_action"])
    assert list(pair.tf.variable_values()) == ["state"]
    np.testing.assert_array_equal(pair.tf.variable_values("state"), pair.torch.variable_values("state"))


@pytest.mark.parametrize("make", [
    lambda: CategoricalAdapter(IntBox(3, shape=(2,))),
    lambda: BernoulliAdapter(BoolBox((2,))),
    lambda: NormalAdapter(FloatBox(shape=(2,)), log_std_bounds=(-0.5, 0.5)),
    lambda: BetaAdapter(FloatBox(0.0, 1.0, shape=(2,))),
], ids=["categorical", "bernoulli", "normal", "beta"])
def test_action_adapter(parity, ranks, make):
    parity(make, {"inputs": FloatBox(shape=(4,), **ranks)})


def test_dueling_action_adapter(parity, ranks):
    parity(lambda: DuelingActionAdapter(IntBox(3, shape=(2,)), value_units=[3]),
           {"inputs": FloatBox(shape=(4,), **ranks)})
