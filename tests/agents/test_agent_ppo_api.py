"""The PPO agent on both backends: acting, the rollout schedule (also with environment subsets), where returns
bootstrap (rollout ends and truncations), GAE against a NumPy reference, updates from the buffer and from outside,
discrete / continuous / container actions with every policy switch, and errors."""

from __future__ import annotations

import numpy as np
import pytest
from agent_test_support import count_applies
from gymnasium.vector import AutoresetMode
from ppo_helpers import ACTIONS, CONTINUOUS, STATES, gae_reference, observe_random, small_ppo, small_ppo_config

from rlworkbench.agents.ppo import PPOAgent
from rlworkbench.agents.ppo_rollout import RolloutBuffer
from rlworkbench.errors import SpaceError
from rlworkbench.execution import Worker, make_vector_env
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox

METRICS = ["approx_kl", "clip_fraction", "entropy", "explained_variance", "grad_norm", "gradient_steps", "loss",
           "observe/skipped", "policy_loss", "rollout_steps", "update/refused", "value_loss"]


def test_acting_batched_single_and_greedy(backend):
    agent = small_ppo(backend)
    assert isinstance(agent, PPOAgent)
    states = STATES.sample(64, seed=0)
    actions = agent.get_actions(states)
    assert actions.shape == (64,) and actions.dtype == np.int64 and all(ACTIONS.contains(a) for a in actions)
    assert len(np.unique(actions)) == 3  # a fresh policy is close to uniform
    greedy = agent.get_actions(states, explore=False)
    np.testing.assert_array_equal(greedy, agent.get_actions(states, explore=False))
    single = agent.get_actions(states[0], explore=False)
    assert np.ndim(single) == 0 and single == greedy[0]
    values = agent.get_state_values(states)
    assert values.shape == (64,) and values.dtype == np.float32


def test_rollout_schedule_and_update(backend):
    agent = small_ppo(backend)  # rollout_length 5, 2 epochs of 2 minibatches
    observe_random(agent, 4)
    assert not agent.wants_update() and agent.buffer.size == 16
    observe_random(agent, 1, seed=1)
    assert agent.wants_update()
    before = agent.get_weights()
    metrics = agent.update()
    assert sorted(metrics) == METRICS and all(np.isfinite(list(metrics.values())))
    assert metrics["rollout_steps"] == 20 and metrics["gradient_steps"] == 4
    after = agent.get_weights()
    assert after["optimizer/steps"] == 4 and agent.updates == 1 and agent.buffer.size == 0
    for name in ("policy/network/dense_0/kernel", "value_network/dense_0/kernel"):
        assert not np.allclose(before[name], after[name]), name
    assert not agent.wants_update()


def test_environment_subsets_fill_the_rollout(backend):
    """A worker that masks reset steps passes a subset of its envs; the rollout counts all envs seen."""
    agent = small_ppo(backend)
    rng = np.random.default_rng(0)
    for step in range(6):
        env_ids = [0, 1, 2] if step != 2 else [0, 2]  # env 1 skips a step
        states = STATES.sample(len(env_ids), seed=rng)
        agent.observe(states, ACTIONS.sample(len(env_ids), seed=rng), np.ones(len(env_ids)), [False] * len(env_ids),
                      STATES.sample(len(env_ids), seed=rng), env_id=env_ids)
        assert agent.wants_update() == (agent.buffer.size >= 15)
    rollout = agent.buffer.rollout()
    assert rollout.index.shape == (3, 6) and (rollout.index[1] == -1).sum() == 1
    assert agent.update()["rollout_steps"] == 17


def test_rollout_flags_terminals_truncations_and_ends():
    buffer = RolloutBuffer()
    flat = lambda *values: {"": np.array(values, np.float32)}  # noqa: E731
    # step 1: envs 7 and 3 start; step 2: env 3 terminates; step 3: env 7 only; step 4: env 7 starts anew (its
    # episode was truncated after step 3), env 3 starts its next episode
    buffer.add([7, 3], [True, True], flat(0, 10), {"": np.array([0, 1])}, [1, 1], [False, False], flat(1, 11))
    buffer.add([7, 3], [False, False], flat(1, 11), {"": np.array([0, 1])}, [1, 1], [False, True], flat(2, 12))
    buffer.add([7], [False], flat(2), {"": np.array([0])}, [1], [False], flat(3))
    buffer.add([7, 3], [True, True], flat(5, 20), {"": np.array([1, 1])}, [1, 1], [False, False], flat(6, 21))
    rollout = buffer.rollout()
    np.testing.assert_array_equal(rollout.states[""], [0, 1, 2, 5, 10, 11, 20])  # env 7 first: seen first
    np.testing.assert_array_equal(rollout.continues, [True, True, False, False, True, False, False])
    np.testing.assert_array_equal(rollout.bootstraps, [False, False, True, True, False, False, True])
    np.testing.assert_array_equal(rollout.index, [[0, 1, 2, 3], [4, 5, 6, -1]])
    np.testing.assert_array_equal(rollout.unpadded(rollout.padded(np.arange(7.0))), np.arange(7.0))


def test_advantages_bootstrap_at_rollout_ends_and_truncations(backend):
    agent = small_ppo(backend, seed=5, discount=0.9, loss={"gae_lambda": 0.7})
    observe_random(agent, 3, terminal_at=1)
    states = STATES.sample(4, seed=9)  # every env starts anew: their episodes were truncated
    agent.observe(states, [0, 1, 2, 0], [1.0, -1.0, 0.5, 2.0], [False] * 4, STATES.sample(4, seed=10))
    rollout = agent.buffer.rollout()
    # per env: step 2 was truncated, step 3 ends the rollout; env 0 terminated at step 1
    np.testing.assert_array_equal(rollout.bootstraps.reshape(4, 4), [[False, False, True, True]] * 4)
    np.testing.assert_array_equal(rollout.terminals.reshape(4, 4)[:, 1], [True, False, False, False])
    values = agent.get_state_values(rollout.states[""])
    next_values = agent.get_state_values(rollout.next_states[""])
    advantages, targets = agent.advantages(rollout, values)
    for row in rollout.index:
        steps = row[row >= 0]
        expected = gae_reference(rollout.rewards[steps], values[steps], rollout.terminals[steps],
                                 rollout.bootstraps[steps], next_values[steps], 0.9, 0.7)
        np.testing.assert_allclose(advantages[steps], expected[0], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(targets[steps], expected[1], rtol=1e-4, atol=1e-5)


def test_update_from_a_batch_equals_update_from_the_buffer(backend):
    """The same transitions, observed or given as sequences, give the same update (same seed, same shuffles)."""
    observed, given = small_ppo(backend, seed=4), small_ppo(backend, seed=4)
    batch = observe_random(observed, 5, terminal_at=2)
    assert batch["states"].shape == (4, 5, 4) and given.buffer.size == 0
    assert observed.update() == given.update(batch)
    for name, value in observed.get_weights().items():
        np.testing.assert_array_equal(value, given.get_weights()[name], err_msg=name)


@pytest.mark.parametrize("action_space, policy, loss", [
    (CONTINUOUS, {"shared_value_function": True, "value_units": [8]}, {"value_clip": 0.2}),
    (CONTINUOUS, {"distribution": "squashed_normal"}, {"normalize_advantages": False}),
    (IntBox(3), {"shared_value_function": True}, {"value_clip": 0.5, "entropy_weight": 0.01}),
    (Dict(steer=FloatBox(-1.0, 1.0, shape=(1,)), gear=IntBox(3), horn=BoolBox()), {"distribution": {"steer": "beta"}},
     {}),
], ids=["normal_shared_value_clip", "squashed_normal", "discrete_shared", "container"])
def test_action_spaces_and_policy_switches(backend, action_space, policy, loss):
    agent = small_ppo(backend, action_space=action_space, policy=policy, loss=loss,
                      preprocessing=[{"type": "multiply", "factor": 0.5}])
    states = STATES.sample(4, seed=1)
    actions = agent.get_actions(states)
    for key, leaf in action_space.flatten(actions).items():
        assert np.shape(leaf) == (4, *action_space.flatten()[key].shape), key
    agent.observe(states, actions, np.ones(4), [False] * 4, STATES.sample(4, seed=2))
    observe_random(agent, 4, seed=3)
    assert agent.wants_update()
    metrics = agent.update()
    assert all(np.isfinite(list(metrics.values()))), metrics
    weights = agent.get_weights()
    assert any(name.startswith("policy/value_head/") for name in weights) == bool(policy.get("shared_value_function"))


def test_target_kl_stops_an_update_early(backend):
    agent = small_ppo(backend, update={"target_kl": 1e-12, "num_epochs": 5}, optimizer={"learning_rate": 0.05})
    observe_random(agent, 5)
    metrics = agent.update()
    assert metrics["gradient_steps"] < 10 and agent.get_weights()["optimizer/steps"] == metrics["gradient_steps"]


def test_errors(backend):
    agent = small_ppo(backend)
    with pytest.raises(SpaceError, match="buffer is empty"):
        agent.update()
    batch = observe_random(agent, 2)
    with pytest.raises(SpaceError, match="exactly these keys") as error:
        agent.update({"states": batch["states"], "actions": batch["actions"]})
    assert error.value.argument == "batch"
    with pytest.raises(SpaceError, match="sequences") as error:
        agent.update({**batch, "rewards": batch["rewards"].reshape(-1)})
    assert error.value.key_path == "rewards"


def test_continuous_actions_learn_a_bandit(backend, one_torch_thread):
    """One-step episodes with reward ``-(action - state)**2``: the mean action must follow the state."""
    agent = small_ppo(backend, seed=0, action_space=FloatBox(shape=(1,)), optimizer={"learning_rate": 3e-3},
                      update={"rollout_length": 16, "num_minibatches": 2, "num_epochs": 4})
    rng = np.random.default_rng(0)
    probe = np.zeros((9, 4), np.float32)
    probe[:, 0] = np.linspace(-1, 1, 9)
    error = lambda: float(np.abs(agent.get_actions(probe, explore=False)[:, 0] - probe[:, 0]).max())  # noqa: E731
    start, entropies = error(), []
    for _ in range(30):
        while not agent.wants_update():
            states = STATES.sample(16, seed=rng)
            actions = agent.get_actions(states)
            agent.observe(states, actions, -np.square(actions[:, 0] - states[:, 0]), np.ones(16, bool), states)
        entropies.append(agent.update()["entropy"])
    assert start > 0.3 and error() < 0.15, (start, error())
    assert entropies[-1] < entropies[0]  # the policy narrows as it learns


@pytest.mark.parametrize("autoreset_mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_a_worker_drives_the_agent(backend, one_torch_thread, autoreset_mode):
    env = make_vector_env("CartPole-v1", 3, seed=0, autoreset_mode=autoreset_mode)
    agent = PPOAgent.from_env(env, small_ppo_config(), backend=backend, seed=0).build()
    worker = Worker(agent, env, progress=False)
    worker.run(timesteps=200)
    env.close()
    assert agent.updates == len(worker.updates) >= 10
    assert (worker.updates["rollout_steps"] >= 15).all() and len(worker.episodes) > 0
    if autoreset_mode is AutoresetMode.NEXT_STEP:  # masked reset steps: envs a step apart, padded sequences
        assert (worker.updates["rollout_steps"] > 15).any()


@pytest.mark.parametrize("shared", [False, True], ids=["value_network", "shared_value_function"])
def test_an_update_step_runs_the_policy_network_once_per_minibatch(shared):
    """log-probs, entropies (and a shared value head's values) come from one pass of the policy network: per
    minibatch step, and once for the rollout's evaluation (+1 with a shared head: the bootstrap states' values)."""
    agent = small_ppo("torch", policy={"shared_value_function": shared})
    observe_random(agent, 5)
    passes = count_applies({"policy": agent.root.policy.network})
    metrics = agent.update()
    assert metrics["gradient_steps"] == 4 and passes["policy"] == 4 + 1 + shared
