"""Recurrent (LSTM) PPO and IMPALA on both backends: the state carried from step to step and reset where episodes
begin, sequences stored with the state they start from, the learner's states equal to the acting ones, outside
batches with their start state, config errors naming the key, checkpoints without a run's state."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.recurrent_learning import RecurrentImpalaAgent, RecurrentPPOAgent
from rlworkbench.errors import ConfigError
from rlworkbench.execution import Worker, make_vector_env

UNITS = 8
NETWORK = [{"type": "dense", "units": 16, "activation": "tanh"}, {"type": "lstm", "units": UNITS}]
POLICY = {"network": NETWORK, "shared_value_function": True, "value_units": []}
PPO = {"type": "ppo", "policy": POLICY,
       "update": {"rollout_length": 12, "num_epochs": 2, "num_minibatches": 2, "sequence_length": 4}}
IMPALA = {"type": "impala", "policy": POLICY, "update": {"rollout_length": 6}}


def agent_for(backend: str, config: dict, seed: int = 0) -> Agent:
    return Agent.from_env("CartPole-v1", config, backend=backend, seed=seed).build()


def with_updates(config: dict, **update: object) -> dict:
    config = copy.deepcopy(config)
    config["update"].update(update)
    return config


def test_an_lstm_in_the_policy_network_makes_the_recurrent_variant(backend):
    ppo, impala = agent_for(backend, PPO), agent_for(backend, IMPALA)
    assert isinstance(ppo, RecurrentPPOAgent) and ppo.type_name == "ppo" and ppo.recurrent
    assert isinstance(impala, RecurrentImpalaAgent) and impala.type_name == "impala"
    h, c = ppo.initial_state(3)
    assert h.shape == c.shape == (3, UNITS) and not h.any()
    assert [leaf.shape for leaf in ppo.internal_state_space.flatten().values()] == [(UNITS,), (UNITS,)]


def test_the_state_is_carried_from_step_to_step(backend):
    agent = agent_for(backend, PPO)
    states = np.random.default_rng(0).normal(size=(5, 2, 4)).astype(np.float32)  # 5 steps of 2 rows
    carried = agent.initial_state(2)
    for t in range(5):
        agent.get_actions(states[t], explore=False, episode_starts=np.array([t == 0, t == 0]))
        _, carried = agent.act_with_state(states[t], carried, explore=False)
        np.testing.assert_allclose(agent.row_states.carried[0], carried[0], atol=1e-6)
    sequence = np.swapaxes(states, 0, 1)  # (rows, steps, 4): the whole sequence in one pass
    after = agent.api.step_states(sequence, agent.initial_state(2), np.zeros((2, 5), bool))
    np.testing.assert_allclose(after[0][:, -1], carried[0], atol=1e-5)
    np.testing.assert_allclose(after[1][:, -1], carried[1], atol=1e-5)
    assert np.abs(after[0][:, -1] - after[0][:, 0]).max() > 1e-4  # (it does change)


def test_rows_that_begin_an_episode_start_from_zeros(backend):
    agent = agent_for(backend, IMPALA)
    states = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
    agent.get_actions(states)
    agent.get_actions(states, episode_starts=np.array([True, False, False]))
    acted = agent.row_states.acted_with
    assert not acted[0][0].any() and not acted[1][0].any()
    assert acted[0][1].any() and acted[0][2].any()
    # without episode_starts: a terminal row, or a row whose states are not its last next states, is reset
    agent.observe(states, np.zeros(3, np.int64), np.ones(3), np.array([False, True, False]), states)
    moved = states.copy()
    moved[2] += 1.0
    agent.get_actions(moved)
    acted = agent.row_states.acted_with
    assert acted[0][0].any() and not acted[0][1].any() and not acted[0][2].any()


def test_sequences_keep_the_state_their_steps_acted_with(backend):
    agent = agent_for(backend, PPO)
    env = make_vector_env("CartPole-v1", num_envs=2, seed=3)
    Worker(agent, env, seed=3, progress=False).run(timesteps=40, learn=True)
    steps = [step for pending in agent.sequences.pending.values() for step in pending]
    assert steps
    for start, *_, state, reset in steps:
        assert reset == start  # the worker told the agent where episodes begin ...
        assert (not np.any(state[0])) == reset  # ... and exactly those states were zeroed
    env.close()


def test_the_learner_recomputes_the_states_the_agent_acted_with(backend):
    agent = agent_for(backend, with_updates(PPO, rollout_length=10, sequence_length=5))
    env = make_vector_env("CartPole-v1", num_envs=2, seed=4)
    worker = Worker(agent, env, seed=4, progress=False)
    worker.run(timesteps=20, learn=False)
    while not agent.sequences.ready(10):
        worker._step(explore=True, learn=True)  # observe without updating
    pending = agent.sequences.pending
    stored = {env_id: np.stack([step[6][0] for step in steps[:10]]) for env_id, steps in pending.items()}
    resets = {env_id: np.array([step[7] for step in steps[:10]]) for env_id, steps in pending.items()}
    rollout = agent._rollout(agent.sequences.take(10))
    states = agent.preprocessed_space.unflatten(rollout.states)
    agent._evaluate_rollout(rollout, states, agent.action_space.unflatten(rollout.actions))
    for row, env_id in enumerate(sorted(stored, key=str)):
        after = rollout.step_states[0][row]  # the learner's state after every step
        for t in range(1, 10):
            expected = np.zeros(UNITS) if resets[env_id][t] else after[t - 1]
            np.testing.assert_allclose(stored[env_id][t], expected, atol=1e-5)
    env.close()


@pytest.mark.parametrize("config", [PPO, IMPALA], ids=["ppo", "impala"])
def test_outside_sequences_learn_from_their_start_state(backend, config):
    rng = np.random.default_rng(5)
    chain = rng.normal(size=(4, 13, 4)).astype(np.float32)
    batch = {"states": chain[:, :-1], "next_states": chain[:, 1:], "actions": rng.integers(0, 2, (4, 12)),
             "rewards": np.ones((4, 12), np.float32), "terminals": np.zeros((4, 12), bool)}
    config = with_updates(config, rollout_length=12)
    zeros = agent_for(backend, config).update(batch)["loss"]
    assert np.isclose(agent_for(backend, config).update(batch)["loss"], zeros, atol=1e-6)  # deterministic
    state = tuple(rng.normal(size=(4, UNITS)).astype(np.float32) * 3 for _ in range(2))
    given = agent_for(backend, config).update({**batch, "internal_states": state})["loss"]
    assert np.isfinite(given) and abs(given - zeros) > 1e-4


def test_recurrent_ppo_learns_from_whole_sequences_and_empties_its_buffer(backend):
    agent = agent_for(backend, PPO)
    env = make_vector_env("CartPole-v1", num_envs=3, seed=6)
    Worker(agent, env, seed=6, progress=False).run(timesteps=3 * 12 * 2)
    assert agent.updates == 2
    assert all(len(steps) == 0 for steps in agent.sequences.pending.values())
    metrics = agent.update(None) if agent.wants_update() else None
    assert metrics is None
    env.close()


def test_checkpoints_keep_no_recurrent_state(backend, tmp_path):
    agent = agent_for(backend, IMPALA)
    agent.get_actions(np.ones((2, 4), np.float32))
    agent.save(tmp_path / "ckpt")
    other = agent_for(backend, IMPALA, seed=1).load(tmp_path / "ckpt")
    assert other.row_states.carried is None
    for name, value in agent.get_weights().items():
        np.testing.assert_array_equal(other.get_weights()[name], value)


@pytest.mark.parametrize(("change", "key"), [
    ({"update": {"rollout_length": 12, "sequence_length": 0}}, "sequence_length"),
    ({"update": {"rollout_length": 12, "sequence_length": 5}}, "update/sequence_length"),
    ({"policy": {**POLICY, "shared_value_function": False,
                 "value_network": [{"type": "lstm", "units": 4}]}}, "policy/value_network"),
    ({"policy": {**POLICY, "network": [*NETWORK, {"type": "conv2d", "filters": 2, "kernel_size": 1}]}},
     "layers/2/type"),
    ({"policy": {**POLICY, "network": [{"type": "lstm", "units": 4}, {"type": "lstm", "units": 4}]}}, "layers"),
])
def test_wrong_recurrent_configs_name_the_key(change, key):
    with pytest.raises(ConfigError) as error:
        Agent.from_env("CartPole-v1", {**PPO, **change}, backend="torch")
    assert key in str(error.value)
