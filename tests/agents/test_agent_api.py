"""The Agent facade on DQN, both backends: acting (batched and single), observing and its counters, the update
schedule, updates from memory and from outside, weights, and the config switches (dueling, prioritized replay,
n-step, preprocessing, Polyak sync) all building and learning from the same components."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from agent_helpers import ACTIONS, STATES, small_agent, small_config, transitions
from agent_test_support import count_applies

from rlworkbench.agents import Agent, DQNAgent, known_agents
from rlworkbench.agents.random_agent import RandomAgent
from rlworkbench.components import Dense
from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError, SpaceError
from rlworkbench.spaces import FloatBox, IntBox, from_gymnasium
from rlworkbench.testing import ComponentTest


def test_acting_batched_and_single(backend):
    agent = small_agent(backend)
    states = STATES.sample(5, seed=0)
    actions = agent.get_actions(states)
    assert actions.shape == (5,) and actions.dtype == np.int64 and all(ACTIONS.contains(a) for a in actions)
    single = agent.get_actions(states[0], explore=False)
    assert np.ndim(single) == 0 and single == agent.get_actions(states, explore=False)[0]
    greedy = agent.get_actions(states, explore=False)
    np.testing.assert_array_equal(greedy, np.argmax(agent.get_q_values(states), -1))
    np.testing.assert_array_equal(greedy, agent.get_actions(agent.preprocess(states), explore=False, preprocess=False))
    with pytest.raises(SpaceError, match="one value or a batch"):
        agent.get_actions(np.zeros((2, 3, 4), np.float32))


def test_exploration_follows_the_epsilon_schedule(backend):
    """Epsilon decays over observed timesteps: random at first, greedy at the end of the decay."""
    agent = small_agent(backend, exploration={"epsilon": {"type": "linear_decay", "from_value": 1.0,
                                                          "to_value": 0.0, "end_time_step": 100}})
    states = np.repeat(STATES.sample(1, seed=1), 300, axis=0)
    greedy = agent.get_actions(states, explore=False)
    assert len(np.unique(agent.get_actions(states))) == 3  # epsilon 1: uniform over the 3 actions
    agent.timesteps = 100
    np.testing.assert_array_equal(agent.get_actions(states), greedy)


def test_observe_counts_timesteps_and_episodes(backend):
    agent = small_agent(backend)
    batch = transitions(4, seed=1)
    agent.observe(batch["states"], batch["actions"], batch["rewards"], [False, True, False, False],
                  batch["next_states"])
    assert (agent.timesteps, agent.episodes) == (4, 1)
    # env 0 continues its episode, env 2 starts a new one (its last episode was truncated), env 1 had terminated
    states = np.stack([batch["next_states"][0], STATES.sample(seed=5), STATES.sample(seed=6)])
    agent.observe(states, [0, 1, 2], [1.0, 1.0, 1.0], [False, False, False], states, env_id=[0, 1, 2])
    assert (agent.timesteps, agent.episodes) == (7, 2)
    agent.observe(states[0], 1, 0.5, True, states[0], env_id=7)  # one unbatched transition of a new env
    assert (agent.timesteps, agent.episodes) == (8, 3)
    assert agent.executor.execute("get_memory_size") == 8
    with pytest.raises(SpaceError, match="env_id"):
        agent.observe(states, [0, 1, 2], [1.0] * 3, [False] * 3, states, env_id=[0, 1])


def test_update_schedule(backend):
    """No updates before learning_starts; then gradient_steps updates per update_interval env steps."""
    agent = small_agent(backend, update={"learning_starts": 16, "update_interval": 8, "gradient_steps": 2})
    done = []
    for step in range(10):
        batch = transitions(4, seed=step)
        agent.observe(*(batch[k] for k in ("states", "actions", "rewards", "terminals", "next_states")))
        while agent.wants_update():
            agent.update()
        done.append(agent.updates)
    # timesteps 4, 8, ... 40: due at 16 (2), 24 (4), 32 (6), 40 (8)
    assert done == [0, 0, 0, 2, 2, 4, 4, 6, 6, 8]


def test_update_from_memory_and_from_a_batch(backend):
    agent = small_agent(backend, target={"sync_interval": 2})
    batch = transitions(32, seed=2, terminal_every=3)
    agent.observe(*(batch[k] for k in ("states", "actions", "rewards", "terminals", "next_states")))
    before = agent.get_weights()
    metrics = agent.update()
    assert sorted(metrics) == ["grad_norm", "loss", "observe/skipped", "td_error", "update/refused"]
    assert all(np.isfinite(list(metrics.values())))
    after = agent.get_weights()
    assert not np.allclose(before["policy/network/dense_0/kernel"], after["policy/network/dense_0/kernel"])
    np.testing.assert_array_equal(before["target_policy/network/dense_0/kernel"],
                                  after["target_policy/network/dense_0/kernel"])  # synced every 2 updates
    agent.update(batch)  # external batch: the second update syncs the target
    synced = agent.get_weights()
    for name in ("network/dense_0/kernel", "action_adapter/dense/bias"):
        np.testing.assert_array_equal(synced[f"policy/{name}"], synced[f"target_policy/{name}"])
    assert agent.updates == 2 and synced["optimizer/steps"] == 2
    metrics, priorities = agent.update_with_priorities(batch)  # its TD errors: |td| = priority - epsilon
    assert metrics["td_error"] == pytest.approx(np.mean(priorities - agent.priority_epsilon), rel=1e-5)
    with pytest.raises(SpaceError, match="exactly these keys"):
        agent.update({"states": batch["states"]})


def test_priorities_are_the_td_errors_an_update_would_see_and_change_nothing(backend):
    agent = small_agent(backend, memory={"type": "prioritized_replay", "capacity": 64, "priority_epsilon": 0.01})
    batch = transitions(16, seed=4, terminal_every=5)
    before = agent.get_weights()
    priorities = agent.priorities(batch)
    after = agent.get_weights()
    assert all(np.array_equal(after[name], before[name]) for name in before)
    args, by_name = agent._external_batch(batch)
    _, _, td_errors = agent.api.update_from_batch(*args, **by_name)
    assert priorities.shape == (16,) and len(np.unique(np.round(priorities, 5))) == 16
    np.testing.assert_allclose(priorities, np.abs(td_errors) + 0.01, rtol=1e-5, atol=1e-6)


def test_no_updates_from_an_empty_memory(backend):
    agent = small_agent(backend, loss={"n_step": 3}, update={"learning_starts": 0})
    batch = transitions(2, seed=3)
    agent.observe(*(batch[k] for k in ("states", "actions", "rewards", "terminals", "next_states")))
    assert agent.timesteps == 2 and not agent.wants_update()  # both transitions wait for their 3rd step
    with pytest.raises(RLWorkbenchError, match="memory is empty"):
        agent.update()
    agent.observe(batch["next_states"], [0, 1], [1.0, 1.0], [True, True], batch["states"])
    assert agent.wants_update() and np.isfinite(agent.update()["loss"])


def test_fixed_targets_learn_a_regression(backend):
    """Terminal transitions: the Q-value of the action taken must become its reward (sign and scale)."""
    agent = small_agent(backend, optimizer={"learning_rate": 0.01})
    batch = transitions(64, seed=4, terminal_every=1)
    batch["rewards"] = np.where(batch["actions"] == 1, 2.0, -1.0).astype(np.float32)
    for _ in range(300):
        metrics = agent.update(batch)
    assert metrics["td_error"] < 0.05
    q_values = agent.get_q_values(batch["states"])
    taken = q_values[np.arange(64), batch["actions"]]
    np.testing.assert_allclose(taken, batch["rewards"], atol=0.25)


def test_weights_round_trip_and_seeds(backend):
    agent = small_agent(backend, seed=7)
    twin = small_agent(backend, seed=7)
    other = small_agent(backend, seed=8)
    weights = agent.get_weights()
    assert {"policy/network/dense_0/kernel", "target_policy/network/dense_0/kernel", "optimizer/m/policy/network/"
            "dense_0/kernel", "memory/records/states"} <= set(weights)
    for name, value in twin.get_weights().items():
        np.testing.assert_array_equal(value, weights[name], err_msg=name)
    kernel = "policy/network/dense_0/kernel"
    assert not np.allclose(other.get_weights()[kernel], weights[kernel])
    other.set_weights(weights)
    states = STATES.sample(6, seed=3)
    np.testing.assert_array_equal(other.get_q_values(states), agent.get_q_values(states))
    trainable = {n for n in weights if n.startswith(("policy/", "target_policy/"))}  # the target: never optimised
    assert set(agent.get_weights(trainable_only=True)) == trainable


@pytest.mark.parametrize("variant", ["dueling", "prioritized", "n_step", "preprocessing", "polyak", "no_double_q"])
def test_config_switches_build_and_update(backend, variant):
    sections = {
        "dueling": {"policy": {"dueling": True, "value_units": [8], "advantage_units": [8]}},
        "prioritized": {"memory": {"type": "prioritized_replay", "capacity": 64, "alpha": 0.6, "beta": 0.4}},
        "n_step": {"loss": {"n_step": 2}},
        "preprocessing": {"preprocessing": [{"type": "multiply", "factor": 2.0}, {"type": "clip", "low": -1.0,
                                                                                   "high": 1.0}]},
        "polyak": {"target": {"sync_interval": 1, "tau": 0.5}},
        "no_double_q": {"loss": {"double_q": False}},
    }[variant]
    agent = small_agent(backend, **sections)
    batch = transitions(24, seed=5, terminal_every=5)
    agent.observe(*(batch[k] for k in ("states", "actions", "rewards", "terminals", "next_states")))
    weights = agent.get_weights()
    metrics = [agent.update() for _ in range(3)]
    assert all(np.isfinite(m["loss"]) for m in metrics)
    after = agent.get_weights()
    if variant == "prioritized":  # TD errors became priorities: the sum tree changed from all-ones
        assert not np.allclose(after["memory/sum_tree/tree"], weights["memory/sum_tree/tree"])
        assert after["memory/max_priority"] > 0
    if variant == "preprocessing":
        np.testing.assert_allclose(agent.preprocess(batch["states"]), np.clip(batch["states"] * 2, -1, 1))
        np.testing.assert_allclose(after["memory/records/states"][:24], np.clip(batch["states"] * 2, -1, 1))
    if variant == "dueling":
        assert any(name.startswith("policy/action_adapter/") for name in after)
    if variant == "polyak":  # target = (online + target) / 2 after each update
        name = "network/dense_0/kernel"
        assert not np.allclose(after[f"target_policy/{name}"], after[f"policy/{name}"])
    if variant == "n_step":  # 24 envs, one step each: only the 5 terminal ones are complete
        assert agent.executor.execute("get_memory_size") == 5


def test_from_env_and_registry():
    env = gym.make("CartPole-v1")
    agent = Agent.from_env(env, small_config(), backend="torch")
    assert isinstance(agent, DQNAgent) and agent.state_space == FloatBox(env.observation_space.low,
                                                                           env.observation_space.high, shape=(4,))
    assert agent.action_space == IntBox(2)
    vector = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
    assert Agent.from_env(vector, small_config()).action_space == IntBox(2)
    assert Agent.from_env("CartPole-v1", small_config()).state_space.shape == (4,)
    assert "dqn" in known_agents()
    with pytest.raises(ConfigError, match="unknown agent type") as error:
        Agent.from_config({"type": "ppo2"}, state_space=STATES, action_space=ACTIONS)
    assert error.value.key_path == "type" and "dqn" in error.value.expected


def test_unbuilt_agents_and_bad_spaces():
    agent = Agent.from_config(small_config(), state_space=STATES, action_space=ACTIONS)
    assert "not built" in repr(agent)
    for call in (lambda: agent.get_actions(STATES.sample(2)), agent.update, lambda: agent.graph):
        with pytest.raises(BuildError, match="call build"):
            call()
    with pytest.raises(SpaceError, match="one discrete action"):
        Agent.from_config(small_config(), state_space=STATES, action_space=FloatBox(-1, 1, shape=(2,)))
    with pytest.raises(ConfigError, match="expected a space") as info:
        Agent.from_config(small_config(), state_space=(4,), action_space=ACTIONS)
    assert info.value.argument == "state_space" and info.value.got == "tuple"


def test_gymnasium_spaces_are_taken_as_they_are(backend):
    """Wherever a space goes — agents, build, ComponentTest — a Gymnasium space is converted with from_gymnasium."""
    gym_states = gym.spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
    agent = Agent.from_config(small_config(), state_space=gym_states, action_space=gym.spaces.Discrete(2),
                              backend=backend, seed=0).build()
    assert agent.state_space == from_gymnasium(gym_states) and agent.action_space == IntBox(2)
    assert agent.get_actions(gym_states.sample()).shape == ()
    test = ComponentTest(Dense(2, name="dense"), {"inputs": gym_states}, backend=backend)
    assert test.graph.api_spaces(test.component, "apply")[0]["inputs"] == from_gymnasium(gym_states)



def test_random_agent_takes_gymnasium_spaces():
    gym_states = gym.spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
    agent = RandomAgent(gym_states, gym.spaces.Discrete(2), seed=0)
    assert agent.state_space == from_gymnasium(gym_states) and agent.action_space == IntBox(2)
    actions = agent.get_actions(np.stack([gym_states.sample() for _ in range(4)]))
    assert actions.shape == (4,) and set(actions.tolist()) <= {0, 1}
    with pytest.raises(ConfigError, match="expected a space") as info:
        RandomAgent((3,), IntBox(2))
    assert info.value.argument == "state_space"

def test_graph_summary_names_the_parts(backend):
    agent = small_agent(backend)
    summary = agent.graph.summary()
    for part in ("policy", "target_policy", "target_sync", "exploration", "memory", "loss", "optimizer"):
        assert f"\n  {part} <" in summary, part
    assert agent.root.find("target_policy") is not agent.root.find("policy")


def test_build_takes_a_device_map_and_rejects_unknown_paths():
    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch").build(device_map={"policy/*": "cpu"})
    assert agent.root.find("policy/network").resolved_device == "cpu"
    with pytest.raises(ConfigError):
        Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch").build(device_map={"no_such/*": "cpu"})


@pytest.mark.parametrize("double_q", [True, False])
def test_an_update_runs_each_network_only_as_often_as_the_loss_needs(double_q):
    """Per update: the online network on states (and on next states for double Q's argmax), the target network on
    next states once; no other forward pass."""
    agent = small_agent("torch", loss={"double_q": double_q})
    batch = transitions(32, seed=2, terminal_every=3)
    agent.observe(*(batch[k] for k in ("states", "actions", "rewards", "terminals", "next_states")))
    passes = count_applies({name: getattr(agent.root, name).network for name in ("policy", "target_policy")})
    agent.update()
    assert passes == {"policy": 1 + double_q, "target_policy": 1}
