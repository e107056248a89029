"""The numerical guard: an update whose loss or gradient is not finite changes no variable — weights, optimizer
moments and step count stay bit for bit — and says so in its metrics; the next finite update learns as usual."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config
from rlworkbench.execution.envs import make_vector_env


@pytest.mark.parametrize("backend", ["torch", "tf"])
def test_a_non_finite_update_is_skipped_without_touching_a_variable(backend):
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 8, "activation": "linear"}]
    config["memory"]["capacity"] = 64
    config["update"]["batch_size"] = 4
    env = make_vector_env("CartPole-v1", 1)
    agent = Agent.from_env(env, config, backend=backend, seed=0).build()
    env.close()
    rng = np.random.default_rng(0)
    batch = {"states": rng.normal(size=(4, 4)).astype(np.float32), "actions": np.array([0, 1, 0, 1]),
             "rewards": np.ones(4, np.float32), "terminals": np.zeros(4, bool),
             "next_states": rng.normal(size=(4, 4)).astype(np.float32)}
    healthy = agent.get_weights()
    huge = dict(healthy)
    name = next(name for name in healthy if name.startswith("policy/") and name.endswith("kernel"))
    huge[name] = np.full_like(healthy[name], 3e38)  # finite, but Q-values overflow to inf: so do loss and grads
    agent.set_weights(huge)
    before = agent.get_weights()
    metrics = agent.update(batch)
    assert not np.isfinite(metrics["loss"]) or not np.isfinite(metrics["grad_norm"])
    after = agent.get_weights()
    for key, value in before.items():
        if not key.startswith("memory/"):
            np.testing.assert_array_equal(after[key], value, err_msg=key)  # optimizer/steps included
    agent.set_weights(healthy)
    steps = agent.get_weights()["optimizer/steps"]
    metrics = agent.update(batch)
    assert np.isfinite(metrics["loss"]) and agent.get_weights()["optimizer/steps"] == steps + 1
    assert not np.array_equal(agent.get_weights()[name], healthy[name])  # a finite update learns
