"""Gradients flow through the policy: d mean(log_prob) / d adapter bias for a normal policy, and d mean(action)
/ d adapter bias for a squashed-normal policy, against their closed forms on both backends."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from rlworkbench import Component, api, graph_fn
from rlworkbench.components.policies import Policy
from rlworkbench.spaces import FloatBox
from rlworkbench.testing import ComponentTest

STATES = FloatBox(shape=(3,), add_batch_rank=True)
ACTIONS = FloatBox(-1.0, 1.0, shape=(2,), add_batch_rank=True)
LAYERS = [{"type": "dense", "units": 5, "activation": "tanh"}]


class _BiasGradients(Component):
    """Gradients of the mean of a policy output with respect to its action adapter's bias."""

    def __init__(self, distribution: str):
        self.policy = Policy(LAYERS, ACTIONS.strip_ranks(), distributions=distribution, name="policy")
        super().__init__(self.policy, name="gradients")

    @api
    def of_log_probs(self, states: Any, actions: Any) -> Any:
        return self._bias_gradient(self.policy.get_log_probs(states, actions))

    @api
    def of_actions(self, states: Any) -> Any:
        return self._bias_gradient(self.policy.get_deterministic_action(states))

    @graph_fn(requires_grad=True)
    def _bias_gradient(self, values: Any) -> Any:
        return self.ops.gradients(self.ops.reduce_mean(values), [self.policy.adapters[""].dense.bias])[0]


def _parameters(test: ComponentTest, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    w = {k: (0.3 * rng.normal(size=v.shape)).astype(np.float32) for k, v in test.variable_values().items()}
    test.set_variable_values(w)
    hidden = np.tanh(states @ w["policy/network/dense_0/kernel"] + w["policy/network/dense_0/bias"])
    raw = (hidden @ w["policy/action_adapter/dense/kernel"] + w["policy/action_adapter/dense/bias"]).astype(np.float64)
    assert np.all(np.abs(raw[:, 2:]) < 2.0), "log_std inside the adapter's clipping bounds (else no gradient)"
    return raw[:, :2], raw[:, 2:]


@pytest.mark.parametrize("distribution", ["normal", "squashed_normal"])
def test_gradients_match_closed_forms(backend, distribution):
    test = ComponentTest(_BiasGradients(distribution), {"states": STATES, "actions": ACTIONS}, backend=backend)
    states, actions = STATES.sample(6, seed=1), ACTIONS.sample(6, seed=2)
    mean, log_std = _parameters(test, states)
    std = np.exp(log_std)
    if distribution == "normal":
        z = (actions - mean) / std  # d log N / d mean = z / std, d log N / d log_std = z**2 - 1 (summed over 2)
        expected = np.concatenate([(z / std).mean(0), (z**2 - 1).mean(0)])
        test.test(("of_log_probs", [states, actions]), expected_outputs=expected, decimals=4)
    # d mean(squashed or plain mean action) / d bias: per element 1 / (batch * 2) times the slope
    slope = 1 - np.tanh(mean) ** 2 if distribution == "squashed_normal" else np.ones_like(mean)
    test.test(("of_actions", states), expected_outputs=np.concatenate([slope.sum(0) / 12, np.zeros(2)]),
              decimals=5)
