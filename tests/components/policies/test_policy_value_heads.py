"""DuelingPolicy (Q = V + A - mean(A)) and SharedValueFunctionPolicy (a value head on the shared network),
against NumPy forward passes, with batch + time ranks; config errors."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.components.policies import DuelingPolicy, SharedValueFunctionPolicy
from rlworkbench.errors import ConfigError
from rlworkbench.spaces import Dict, FloatBox, IntBox
from rlworkbench.testing import ComponentTest

RANKS = {"add_batch_rank": True, "add_time_rank": True}
STATES = FloatBox(shape=(3,), **RANKS)
LAYERS = [{"type": "dense", "units": 6, "activation": "tanh"}]


def randomize(test: ComponentTest, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    weights = {k: rng.normal(size=v.shape).astype(np.float32) for k, v in test.variable_values().items()}
    test.set_variable_values(weights)
    return weights


def dense(w, prefix, x, activation=None):
    y = x @ w[f"{prefix}/kernel"] + w[f"{prefix}/bias"]
    return np.maximum(y, 0) if activation == "relu" else y


def test_dueling_q_values_state_values_and_greedy_actions(backend):
    policy = DuelingPolicy(LAYERS, IntBox(4), value_units=[5], name="dqn_policy")
    test = ComponentTest(policy, {"states": STATES}, backend=backend,
                         api_methods=["get_q_values", "get_state_values", "get_action", "get_stochastic_action"])
    w = randomize(test, 1)
    states = STATES.sample((4, 2), seed=2)
    hidden = np.tanh(dense(w, "network/dense_0", states))
    value = dense(w, "action_adapter/value_stream/dense_1", dense(w, "action_adapter/value_stream/dense_0", hidden,
                                                                  "relu"))
    advantages = dense(w, "action_adapter/advantage_stream/dense_0", hidden)
    q = value + advantages - advantages.mean(-1, keepdims=True)
    test.test(("get_q_values", states), expected_outputs=q, decimals=4)
    test.test(("get_state_values", states), expected_outputs=value[..., 0], decimals=4)
    test.test(("get_action", states), expected_outputs=np.argmax(q, -1))
    assert test.graph.output_space("get_q_values") == FloatBox(shape=(4,), **RANKS)
    assert test.graph.output_space("get_state_values") == FloatBox(shape=(), **RANKS)
    assert test.graph.output_space("get_action") == IntBox(4, **RANKS)
    assert IntBox(4, **RANKS).contains(test.test(("get_stochastic_action", states)))


def test_dueling_over_several_discrete_actions(backend):
    test = ComponentTest(DuelingPolicy(LAYERS, IntBox(3, shape=(2,)), name="dqn_policy"),
                         {"states": FloatBox(shape=(3,), add_batch_rank=True)}, backend=backend,
                         api_methods=["get_q_values"])
    w = randomize(test, 3)
    states = FloatBox(shape=(3,), add_batch_rank=True).sample(5, seed=4)
    hidden = np.tanh(dense(w, "network/dense_0", states))
    value = dense(w, "action_adapter/value_stream/dense_0", hidden)[:, :, None]
    advantages = dense(w, "action_adapter/advantage_stream/dense_0", hidden).reshape(5, 2, 3)
    test.test(("get_q_values", states), expected_outputs=value + advantages - advantages.mean(-1, keepdims=True),
              decimals=4)


@pytest.mark.parametrize("action_space", [FloatBox(shape=(2,)), Dict(a=IntBox(2)), IntBox(low=[0, 0], high=[2, 3])])
def test_dueling_needs_one_discrete_action(action_space):
    with pytest.raises(ConfigError, match="one discrete action"):
        DuelingPolicy(LAYERS, action_space)


def test_shared_value_function_policy(backend):
    action_space = Dict(move=IntBox(3), power=FloatBox(shape=()))
    policy = SharedValueFunctionPolicy(LAYERS, action_space, value_units=[4], name="actor_critic")
    test = ComponentTest(policy, {"states": STATES, "actions": action_space.with_batch_rank().with_time_rank()},
                         backend=backend, api_methods=["get_state_values", "get_log_probs"])
    w = randomize(test, 5)
    states = STATES.sample((3, 4), seed=6)
    hidden = np.tanh(dense(w, "network/dense_0", states))
    values = dense(w, "value_head/dense_1", dense(w, "value_head/dense_0", hidden, "relu"))[..., 0]
    test.test(("get_state_values", states), expected_outputs=values, decimals=4)
    assert test.graph.output_space("get_state_values") == FloatBox(shape=(), **RANKS)
    log_probs = test.test(("get_log_probs", [states, action_space.with_batch_rank().with_time_rank().sample(
        (3, 4), seed=7)]))
    assert set(log_probs) == {"move", "power"} and log_probs["power"].shape == (3, 4)
