"""SAC checkpoints: save → load → continue is exact on both backends — weights, the three optimizers' state, the
temperature, the memory, counters, and the random streams (updates sample actions and batches, so a restored agent
only continues identically when its generators do too)."""

from __future__ import annotations

import numpy as np
import pytest
from agent_sac_helpers import ACTIONS, DISCRETE, STATES, observe, small_agent, transitions
from agent_test_support import assert_same_weights

from rlworkbench.agents import Agent, CheckpointError
from rlworkbench.spaces import Space


def trained_agent(backend: str, updates: int = 5, action_space: Space = ACTIONS, **sections):
    agent = small_agent(backend, action_space=action_space, **sections)
    observe(agent, transitions(40, seed=1, terminal_every=4, action_space=action_space))
    for _ in range(updates):
        agent.update()
    return agent


def test_save_load_continue_is_exact(backend, tmp_path):
    agent = trained_agent(backend)
    agent.save(tmp_path / "ckpt")
    restored = small_agent(backend, seed=99).load(tmp_path / "ckpt")
    weights = agent.get_weights()
    assert_same_weights(restored.get_weights(), weights)
    for part in ("critic", "actor", "alpha"):
        assert weights[f"{part}_optimizer/steps"] == 5
    assert np.any(weights["alpha_optimizer/v/temperature/log_alpha"] > 0) and weights["temperature/log_alpha"] != 0
    assert (restored.timesteps, restored.updates, restored.episodes) == (40, 5, 10)
    assert restored.config == agent.config and restored.alpha == agent.alpha
    for _ in range(3):  # from memory: batches, next actions and policy actions are all sampled
        assert agent.update() == restored.update()
    assert_same_weights(restored.get_weights(), agent.get_weights())
    states = STATES.sample(8, seed=4)
    np.testing.assert_array_equal(restored.get_actions(states), agent.get_actions(states))


def test_saving_twice_at_the_same_point_continues_the_same(backend, tmp_path):
    """A save reseeds the random streams from the seed and counters: the run that saved and a run restored from
    either save continue alike."""
    agent = trained_agent(backend, updates=2)
    agent.save(tmp_path / "a")
    agent.save(tmp_path / "b")
    first, second = (small_agent(backend, seed=5).load(tmp_path / name) for name in ("a", "b"))
    metrics = [agent.update(), first.update(), second.update()]
    assert metrics[0] == metrics[1] == metrics[2]


def test_from_checkpoint_uses_the_saved_config(backend, tmp_path):
    agent = trained_agent(backend, action_space=DISCRETE, critic={"num_critics": 3})
    agent.save(tmp_path)
    restored = Agent.from_checkpoint(tmp_path, state_space=STATES, action_space=DISCRETE, backend=backend)
    assert restored.config["critic"]["num_critics"] == 3 and restored.updates == agent.updates
    assert_same_weights(restored.get_weights(), agent.get_weights())
    assert agent.update() == restored.update()


def test_a_checkpoint_of_another_shape_changes_nothing(backend, tmp_path):
    trained_agent(backend, critic={"num_critics": 3}).save(tmp_path)
    agent = trained_agent(backend, updates=2)
    before = agent.get_weights()
    with pytest.raises(CheckpointError, match="variables differ"):
        agent.load(tmp_path)
    assert_same_weights(agent.get_weights(), before)
    assert agent.updates == 2
