"""Small agents trained for a few updates on fixed data, one device or several towers: the same numbers are
expected either way. Shared by the torch tests and the TensorFlow subprocess (two logical CPUs)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rlworkbench.agents import Agent

NETWORK = [{"type": "dense", "units": 16, "activation": "relu"}]
CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "dqn_per": ("CartPole-v1", {
        "type": "dqn", "policy": {"network": NETWORK, "dueling": True, "value_units": [8], "advantage_units": [8]},
        "memory": {"type": "prioritized_replay", "capacity": 256, "alpha": 0.6, "beta": 0.4},
        "loss": {"n_step": 3}, "target": {"sync_interval": 2, "tau": 1.0},
        "update": {"batch_size": 32, "learning_starts": 32, "update_interval": 2, "gradient_steps": 1}}),
    "ppo": ("CartPole-v1", {
        "type": "ppo", "policy": {"network": NETWORK},
        "update": {"rollout_length": 24, "num_epochs": 2, "num_minibatches": 2}}),
    "ppo_shared": ("CartPole-v1", {
        "type": "ppo", "policy": {"network": NETWORK, "shared_value_function": True},
        "update": {"rollout_length": 24, "num_epochs": 2, "num_minibatches": 2}}),
    "ppo_lstm": ("CartPole-v1", {  # minibatches of whole sequences: towers split by sequence
        "type": "ppo", "policy": {"network": [*NETWORK, {"type": "lstm", "units": 8}], "shared_value_function": True},
        "update": {"rollout_length": 24, "num_epochs": 2, "num_minibatches": 2, "sequence_length": 4}}),
    "sac": ("Pendulum-v1", {
        "type": "sac", "policy": {"network": NETWORK}, "critic": {"network": NETWORK, "num_critics": 2},
        "memory": {"type": "replay_memory", "capacity": 256},
        "update": {"batch_size": 32, "learning_starts": 32, "update_interval": 2, "gradient_steps": 1}}),
    "sac_discrete": ("CartPole-v1", {
        "type": "sac", "policy": {"network": NETWORK}, "critic": {"network": NETWORK, "num_critics": 2},
        "memory": {"type": "replay_memory", "capacity": 256},
        "update": {"batch_size": 32, "learning_starts": 32, "update_interval": 2, "gradient_steps": 1}}),
}


def make_agent(kind: str, backend: str, devices: Any = None, seed: int = 3) -> Agent:
    env_id, config = CONFIGS[kind]
    return Agent.from_env(env_id, config, backend=backend, seed=seed).build(devices=devices)


def train(kind: str, backend: str, devices: Any = None, updates: int = 6) -> tuple[dict[str, np.ndarray], list]:
    """Acts, observes and updates on two envs until ``updates`` updates ran; returns the final weights (networks,
    optimizer state and memory: priorities included) and each update's metrics."""
    agent = make_agent(kind, backend, devices)
    env_id, _ = CONFIGS[kind]
    envs = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync")
    states, _ = envs.reset(seed=1)
    metrics: list[dict[str, float]] = []
    while len(metrics) < updates:
        actions = agent.get_actions(states)
        next_states, rewards, terminals, _, _ = envs.step(actions)
        agent.observe(states, actions, rewards, terminals, next_states)
        states = next_states
        while agent.wants_update() and len(metrics) < updates:
            metrics.append(agent.update())
    envs.close()
    return agent.get_weights(), metrics


def batch(rows: int, seed: int = 0) -> dict[str, np.ndarray]:
    """A random outside batch for the DQN configs (CartPole's shapes): every row its own states, hence its own TD
    error."""
    rng = np.random.default_rng(seed)
    return {"states": rng.normal(size=(rows, 4)).astype(np.float32), "actions": rng.integers(0, 2, rows),
            "rewards": rng.normal(size=rows).astype(np.float32), "terminals": rng.random(rows) < 0.2,
            "next_states": rng.normal(size=(rows, 4)).astype(np.float32),
            "importance_weights": rng.uniform(0.5, 1.0, rows).astype(np.float32)}


def td_errors(agent: Agent, data: dict[str, np.ndarray]) -> np.ndarray:
    """One DQN update on ``data`` through the root's API method (no agent-side checks); its per-row TD errors."""
    _, _, errors = agent.api.update_from_batch(
        data["states"], data["actions"], data["rewards"], data["terminals"],
        next_preprocessed_states=data["next_states"], importance_weights=data["importance_weights"])
    return np.asarray(errors)


def largest_difference(weights: dict[str, np.ndarray], reference: dict[str, np.ndarray]) -> float:
    """The largest absolute difference over all variables (which must have the same names)."""
    assert sorted(weights) == sorted(reference)
    return max(float(np.max(np.abs(weights[name].astype(np.float64) - reference[name].astype(np.float64))))
               if reference[name].size else 0.0 for name in reference)


def refused_step(backend: str, devices: list[str]) -> dict[str, bool]:
    """A 2-tower DQN after one update, then a step on a NaN reward passed past the agent's checks: whether the
    weights stayed as they were and every tower still holds the policy's weights."""
    agent = make_agent("dqn_per", backend, devices)
    agent.update(batch(32, seed=1))
    before = agent.get_weights()
    data = batch(32, seed=2)
    data["rewards"][3] = np.nan
    td_errors(agent, data)
    after = agent.get_weights()
    own = agent.root.policy.get_weights()
    return {"unchanged": all(np.array_equal(after[name], before[name]) for name in before),
            "towers_in_sync": all(np.array_equal(value, own[name]) for copy in agent.towers.copies_of(agent.root.policy)
                                  for name, value in copy.get_weights().items())}
