"""PPO checkpoints through the base's save/load: weights (both networks), Adam's moments and step count, counters
and the minibatch shuffling generator round-trip exactly, so save → load → continue gives identical weights. A
rollout still being collected is not saved (the loading agent drops its own)."""

from __future__ import annotations

import numpy as np
from agent_test_support import assert_same_weights
from ppo_helpers import ACTIONS, STATES, observe_random, small_ppo

from rlworkbench.agents import Agent
from rlworkbench.agents.ppo import PPOAgent


def trained(backend: str, rollouts: int = 2):
    agent = small_ppo(backend, seed=1)
    for index in range(rollouts):
        observe_random(agent, 5, seed=index, terminal_at=2)
        agent.update()
    return agent


def test_save_load_continue_is_exact(backend, tmp_path):
    agent = trained(backend)
    agent.save(tmp_path / "ckpt")
    restored = small_ppo(backend, seed=99).load(tmp_path / "ckpt")  # another seed: other weights, other shuffles
    weights = agent.get_weights()
    assert_same_weights(restored.get_weights(), weights)
    assert weights["optimizer/steps"] == 8 and np.any(weights["optimizer/v/value_network/dense_0/kernel"] > 0)
    assert (restored.timesteps, restored.updates, restored.episodes) == (agent.timesteps, 2, agent.episodes)
    assert restored.config == agent.config
    for index in range(2):  # the same transitions, observed, then an update from the buffer (shuffled)
        for learner in (agent, restored):
            observe_random(learner, 5, seed=10 + index)
        assert agent.update() == restored.update()
    assert_same_weights(restored.get_weights(), agent.get_weights())
    batch = observe_random(small_ppo(backend), 5, seed=20)  # and from an external batch
    assert agent.update(batch) == restored.update(batch)
    assert_same_weights(restored.get_weights(), agent.get_weights())
    states = STATES.sample(8, seed=4)
    np.testing.assert_array_equal(restored.get_actions(states, explore=False), agent.get_actions(states, explore=False))


def test_a_half_filled_rollout_is_not_saved(backend, tmp_path):
    agent = trained(backend, rollouts=1)
    observe_random(agent, 3, seed=5)
    assert agent.buffer.size == 12
    agent.save(tmp_path)
    restored = small_ppo(backend, seed=2)
    observe_random(restored, 2, seed=6)  # the loading agent's own rollout belongs to other weights: dropped
    restored.load(tmp_path)
    assert restored.buffer.size == 0 and not restored.wants_update() and restored.timesteps == agent.timesteps
    observe_random(restored, 5, seed=7)
    assert restored.wants_update()


def test_from_checkpoint_uses_the_saved_config(backend, tmp_path):
    agent = small_ppo(backend, policy={"shared_value_function": True, "value_units": [8]})
    observe_random(agent, 5)
    agent.update()
    agent.save(tmp_path)
    restored = Agent.from_checkpoint(tmp_path, state_space=STATES, action_space=ACTIONS, backend=backend)
    assert isinstance(restored, PPOAgent) and restored.config["policy"]["shared_value_function"]
    assert_same_weights(restored.get_weights(), agent.get_weights())
    assert "value_network/dense_0/kernel" not in restored.get_weights()
