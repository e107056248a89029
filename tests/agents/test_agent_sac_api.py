"""The SAC agent on both backends: acting (float and discrete actions), observing, the update schedule, updates
from memory and from outside, Polyak target critics, the temperature, and losses checked against NumPy forward
passes of the agent's own weights (float actions on terminal transitions; discrete SAC exactly, as its
expectations over actions involve no sampling)."""

from __future__ import annotations

import numpy as np
import pytest
from agent_sac_helpers import ACTIONS, DISCRETE, STATES, log_softmax, mlp, observe, small_agent, transitions
from agent_test_support import count_applies

from rlworkbench.errors import SpaceError
from rlworkbench.spaces import IntBox

CRITIC_LAYERS = ["dense_0", "dense_1"]  # one hidden layer, then the head
POLICY_LAYERS = ["network/dense_0", "action_adapter/dense"]
METRICS = ["actor_grad_norm", "actor_loss", "alpha", "alpha_loss", "critic_grad_norm", "critic_loss", "entropy",
           "observe/skipped", "update/refused"]


def test_acting_with_float_actions(backend):
    agent = small_agent(backend)
    states = STATES.sample(64, seed=0)
    actions = agent.get_actions(states)
    assert actions.shape == (64, 1) and actions.dtype == np.float32 and np.all(np.abs(actions) <= 2.0)
    assert np.std(actions) > 0.3 and not np.array_equal(actions, agent.get_actions(states))  # sampled
    greedy = agent.get_actions(states, explore=False)
    np.testing.assert_array_equal(greedy, agent.get_actions(states, explore=False))
    weights = agent.get_weights()
    mean = mlp(weights, "policy", states, POLICY_LAYERS)[:, :1]  # the adapter gives (mean, log_std)
    np.testing.assert_allclose(greedy, 2.0 * np.tanh(mean), atol=1e-5)  # the squashed mean
    single = agent.get_actions(states[0], explore=False)
    assert single.shape == (1,) and np.allclose(single, greedy[0])


def test_acting_with_discrete_actions(backend):
    agent = small_agent(backend, action_space=IntBox(2, 5))
    states = STATES.sample(300, seed=1)
    actions = agent.get_actions(states)
    assert actions.dtype == np.int64 and set(np.unique(actions)) == {2, 3, 4}
    logits = mlp(agent.get_weights(), "policy", states, POLICY_LAYERS)
    np.testing.assert_array_equal(agent.get_actions(states, explore=False), 2 + np.argmax(logits, -1))
    q_values = agent.get_q_values(states[:5], actions[:5])
    all_q = mlp(agent.get_weights(), "critics/q_1", states[:5], CRITIC_LAYERS)
    np.testing.assert_allclose(q_values[:, 1], all_q[np.arange(5), actions[:5] - 2], rtol=1e-5, atol=1e-6)


def test_q_values_of_states_and_actions(backend):
    agent = small_agent(backend, critic={"num_critics": 3})
    batch = transitions(6, seed=2)
    q_values = agent.get_q_values(batch["states"], batch["actions"])
    assert q_values.shape == (6, 3)
    inputs = np.concatenate([batch["states"], batch["actions"]], -1)
    for critic in range(3):
        reference = mlp(agent.get_weights(), f"critics/q_{critic}", inputs, CRITIC_LAYERS)[:, 0]
        np.testing.assert_allclose(q_values[:, critic], reference, rtol=1e-5, atol=1e-6)


def test_observe_fills_the_memory(backend):
    agent = small_agent(backend)
    observe(agent, transitions(5, seed=1, terminal_every=2))
    assert (agent.timesteps, agent.episodes) == (5, 3)
    assert agent.executor.execute("get_memory_size") == 5
    np.testing.assert_array_equal(agent.get_weights()["memory/records/terminals"][:5], [1, 0, 1, 0, 1])


def test_update_schedule(backend):
    """No updates before learning_starts; then gradient_steps updates per update_interval env steps."""
    agent = small_agent(backend, update={"learning_starts": 16, "update_interval": 8, "gradient_steps": 2})
    done = []
    for step in range(10):
        observe(agent, transitions(4, seed=step))
        while agent.wants_update():
            agent.update()
        done.append(agent.updates)
    assert done == [0, 0, 0, 2, 2, 4, 4, 6, 6, 8]


@pytest.mark.parametrize("sync_interval", [1, 2])
def test_updates_move_every_part_and_polyak_the_targets(backend, sync_interval):
    tau = 0.25
    agent = small_agent(backend, target={"sync_interval": sync_interval, "tau": tau})
    batch = transitions(32, seed=2, terminal_every=3)
    observe(agent, batch)
    before = agent.get_weights()
    metrics = agent.update()
    assert sorted(metrics) == METRICS and all(np.isfinite(list(metrics.values())))
    after = agent.get_weights()
    for name in ("critics/q_0/dense_0/kernel", "critics/q_1/dense_1/bias", "policy/network/dense_0/kernel",
                 "temperature/log_alpha"):
        assert not np.allclose(before[name], after[name]), name
    for name in ("critic_optimizer/steps", "actor_optimizer/steps", "alpha_optimizer/steps"):
        assert after[name] == 1, name
    for name in [n for n in after if n.startswith("critics/")]:
        target = after["target_" + name]
        if sync_interval == 1:
            np.testing.assert_allclose(target, tau * after[name] + (1 - tau) * before["target_" + name], rtol=1e-5,
                                       atol=1e-7, err_msg=name)
        else:
            np.testing.assert_array_equal(target, before["target_" + name], err_msg=name)
    assert metrics["alpha"] == pytest.approx(np.exp(after["temperature/log_alpha"]), rel=1e-5)
    agent.update(batch)  # an external batch; the second update syncs every sync_interval
    assert agent.updates == 2 and agent.get_weights()["critic_optimizer/steps"] == 2
    with pytest.raises(SpaceError, match="exactly these keys"):
        agent.update({"states": batch["states"]})


def test_the_critic_loss_on_terminal_transitions(backend):
    """With terminals the target is the reward: the loss is ``sum_i 0.5 (Q_i(s, a) - r)**2`` on the pre-update
    critics; the temperature loss is ``-alpha (log pi + target_entropy)``."""
    agent = small_agent(backend)
    batch = transitions(16, seed=3, terminal_every=1)
    q_values = agent.get_q_values(batch["states"], batch["actions"])
    alpha = agent.alpha
    metrics = agent.update(batch)
    reference = np.mean(np.sum(0.5 * (q_values - batch["rewards"][:, None]) ** 2, -1))
    assert metrics["critic_loss"] == pytest.approx(reference, rel=1e-5)
    assert metrics["alpha_loss"] == pytest.approx(-alpha * (-metrics["entropy"] + agent.target_entropy), rel=1e-4)


def test_critics_learn_a_regression(backend, one_torch_thread):
    """Terminal transitions whose reward is the action: both critics must fit ``Q(s, a) = a``."""
    agent = small_agent(backend, optimizers={"critic": {"type": "adam", "learning_rate": 0.01}})
    batch = transitions(64, seed=4, terminal_every=1)
    batch["rewards"] = batch["actions"][:, 0].copy()
    for _ in range(300):
        metrics = agent.update(batch)
    assert metrics["critic_loss"] < 0.01
    np.testing.assert_allclose(agent.get_q_values(batch["states"], batch["actions"]),
                               np.repeat(batch["rewards"][:, None], 2, 1), atol=0.15)


def test_discrete_losses_match_numpy(backend):
    """Discrete SAC on one batch: the critic target ``r + discount (1 - d) E_pi'[min_i Qt_i - alpha log pi']``, the
    actor loss ``E_pi[alpha log pi - min_i Q_i]`` (on the critics just updated) and the temperature loss."""
    agent = small_agent(backend, action_space=DISCRETE, temperature={"initial_alpha": 0.5})
    batch = transitions(16, seed=5, terminal_every=4, action_space=DISCRETE)
    before = agent.get_weights()
    metrics = agent.update(batch)
    after = agent.get_weights()
    alpha, discount, rows = 0.5, agent.config["discount"], np.arange(16)

    def critics(weights, prefix, states):
        return np.stack([mlp(weights, f"{prefix}/q_{i}", states, CRITIC_LAYERS) for i in range(2)], 1)

    log_pi_next = log_softmax(mlp(before, "policy", batch["next_states"], POLICY_LAYERS))
    next_min_q = critics(before, "target_critics", batch["next_states"]).min(1)
    soft_value = np.sum(np.exp(log_pi_next) * (next_min_q - alpha * log_pi_next), -1)
    target = batch["rewards"] + discount * (1 - batch["terminals"]) * soft_value
    q_taken = critics(before, "critics", batch["states"])[rows, :, batch["actions"]]
    assert metrics["critic_loss"] == pytest.approx(np.mean(np.sum(0.5 * (q_taken - target[:, None]) ** 2, -1)),
                                                   rel=1e-4)
    log_pi = log_softmax(mlp(before, "policy", batch["states"], POLICY_LAYERS))
    expected_log_pi = np.sum(np.exp(log_pi) * log_pi, -1)
    min_q = critics(after, "critics", batch["states"]).min(1)
    actor = np.mean(alpha * expected_log_pi - np.sum(np.exp(log_pi) * min_q, -1))
    assert metrics["actor_loss"] == pytest.approx(actor, rel=1e-4, abs=1e-5)
    assert metrics["entropy"] == pytest.approx(-np.mean(expected_log_pi), rel=1e-5)
    assert metrics["alpha_loss"] == pytest.approx(-alpha * np.mean(expected_log_pi + agent.target_entropy),
                                                  rel=1e-4, abs=1e-6)


@pytest.mark.parametrize("action_space", [ACTIONS, DISCRETE], ids=["float", "discrete"])
def test_alpha_moves_towards_the_target_entropy(backend, action_space):
    batch = transitions(32, seed=6, action_space=action_space)
    alphas = {}
    for target_entropy in (-10.0, 5.0):  # far below, far above the policy's entropy
        agent = small_agent(backend, action_space=action_space, temperature={"target_entropy": target_entropy},
                            optimizers={"alpha": {"type": "adam", "learning_rate": 0.05}})
        for _ in range(5):
            metrics = agent.update(batch)
        alphas[target_entropy] = metrics["alpha"]
    assert alphas[-10.0] < 0.8 < 1.2 < alphas[5.0], alphas


def test_a_fixed_alpha(backend):
    agent = small_agent(backend, temperature={"initial_alpha": 0.2, "learn_alpha": False})
    observe(agent, transitions(16, seed=7))
    metrics = [agent.update() for _ in range(3)]
    assert all(m["alpha"] == pytest.approx(0.2) for m in metrics) and agent.alpha == pytest.approx(0.2)
    weights = agent.get_weights()
    assert not any(name.startswith("alpha_optimizer/") for name in weights)
    assert "temperature/log_alpha" not in agent.get_weights(trainable_only=True)


def test_weights_round_trip_and_seeds(backend):
    agent, twin, other = small_agent(backend, seed=7), small_agent(backend, seed=7), small_agent(backend, seed=8)
    weights = agent.get_weights()
    for name, value in twin.get_weights().items():
        np.testing.assert_array_equal(value, weights[name], err_msg=name)
    assert not np.allclose(weights["critics/q_0/dense_0/kernel"], weights["critics/q_1/dense_0/kernel"])  # twins
    other.set_weights(weights)
    states = STATES.sample(6, seed=3)
    np.testing.assert_array_equal(other.get_actions(states, explore=False), agent.get_actions(states, explore=False))


def test_preprocessing_and_more_gradient_steps(backend):
    agent = small_agent(backend, preprocessing=[{"type": "multiply", "factor": 2.0}],
                        update={"learning_starts": 4, "update_interval": 2, "gradient_steps": 3})
    batch = transitions(8, seed=8)
    observe(agent, batch)
    np.testing.assert_allclose(agent.get_weights()["memory/records/states"][:8], 2.0 * batch["states"])
    while agent.wants_update():
        assert np.isfinite(agent.update()["critic_loss"])
    assert agent.updates == 9  # due at 4, 6, 8: three rounds of 3


def test_an_update_runs_each_network_only_as_often_as_the_losses_need():
    """Per update (float actions): the policy on next states (targets) and on states (actor loss); each critic on
    (states, actions) and, after the critic step, on (states, new actions); each target critic once."""
    agent = small_agent("torch")
    observe(agent, transitions(32, seed=1))
    root = agent.root
    networks = {"policy": root.policy.network, **{f"critic_{i}": n for i, n in enumerate(root.critics.networks)},
                **{f"target_{i}": n for i, n in enumerate(root.target_critics.networks)}}
    passes = count_applies(networks)
    agent.update()
    assert passes == {"policy": 2, **{f"critic_{i}": 2 for i in range(2)}, **{f"target_{i}": 1 for i in range(2)}}
