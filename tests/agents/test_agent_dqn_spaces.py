"""DQN on the spaces Gymnasium hands out beyond the usual: float64 observations (cast to the network's float32)
and ``Discrete(n, start=k)`` actions (Q-columns 0..n-1 are actions k..k+n-1), on both backends."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config


@pytest.mark.parametrize("backend", ["torch", "tf"])
@pytest.mark.parametrize(("observations", "actions"), [
    (gym.spaces.Box(-1, 1, (4,), np.float64), gym.spaces.Discrete(2)),
    (gym.spaces.Box(-1, 1, (4,), np.float32), gym.spaces.Discrete(3, start=5)),
])
def test_dqn_acts_and_learns_on_float64_states_and_offset_actions(backend, observations, actions):
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 8}]
    config["update"]["batch_size"] = 4
    agent = Agent.from_config(config, state_space=observations, action_space=actions, backend=backend,
                              seed=0).build()
    observations.seed(0)
    states = np.stack([observations.sample() for _ in range(4)])
    chosen = agent.get_actions(states)
    assert all(actions.contains(int(action)) for action in chosen)
    batch = {"states": states, "actions": np.full(4, actions.start + actions.n - 1), "rewards": np.ones(4, np.float32),
             "terminals": np.zeros(4, bool), "next_states": states[::-1].copy()}
    metrics = agent.update(batch)
    assert np.isfinite(metrics["loss"])
