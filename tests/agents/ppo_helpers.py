"""Helpers for the PPO agent tests: small PPO configs and spaces, random rollouts, and a NumPy GAE reference that
bootstraps where an episode goes on past the rollout or was truncated."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from agent_test_support import with_sections

import rlworkbench.agents.ppo  # noqa: F401  (registers "ppo")
from rlworkbench import nest
from rlworkbench.agents import Agent, builtin_config
from rlworkbench.spaces import FloatBox, IntBox, Space

STATES = FloatBox(-1.0, 1.0, shape=(4,))
ACTIONS = IntBox(3)
CONTINUOUS = FloatBox(-2.0, 2.0, shape=(2,))


def small_ppo_config(**sections: Any) -> dict[str, Any]:
    """The CartPole config with small networks and short rollouts; ``sections`` update its sections (a non-dict
    value, or a section with another component ``type``, replaces it)."""
    config = copy.deepcopy(builtin_config("ppo_cartpole"))
    config["policy"]["network"] = [{"type": "dense", "units": 16, "activation": "tanh"}]
    config["policy"]["value_network"] = [{"type": "dense", "units": 16, "activation": "tanh"}]
    config["update"].update(rollout_length=5, num_epochs=2, num_minibatches=2)
    return with_sections(config, sections)


def small_ppo(backend: str, seed: int = 3, action_space: Space = ACTIONS, **sections: Any) -> Agent:
    return Agent.from_config(small_ppo_config(**sections), state_space=STATES, action_space=action_space,
                             backend=backend, seed=seed).build()


def observe_random(agent: Agent, steps: int, num_envs: int = 4, seed: int = 0, terminal_at: int | None = None
                   ) -> dict[str, np.ndarray]:
    """``steps`` vector steps of continuing random trajectories (env 0 terminates at step ``terminal_at``);
    returns them as batch-major sequences (the layout of an external update batch)."""
    rng = np.random.default_rng(seed)
    states = STATES.sample(num_envs, seed=rng)
    rows: dict[str, list[Any]] = {key: [] for key in ("states", "actions", "rewards", "terminals",
                                                              "next_states")}
    for step in range(steps):
        actions = agent.action_space.sample(num_envs, seed=rng)
        next_states = STATES.sample(num_envs, seed=rng)
        terminals = np.zeros(num_envs, bool)
        terminals[0] = step == terminal_at
        rewards = rng.normal(size=num_envs).astype(np.float32)
        agent.observe(states, actions, rewards, terminals, next_states)
        for key, value in zip(rows, (states, actions, rewards, terminals, next_states)):
            rows[key].append(value)
        states = next_states
    return {key: nest.map_structure(lambda *steps: np.stack(steps, axis=1), *values) for key, values in rows.items()}


def gae_reference(rewards, values, terminals, bootstraps, next_values, discount, gae_lambda):
    """GAE of one environment's steps (1-D arrays in time order), looping backwards: a terminal step ends the
    episode, a ``bootstraps`` step ends the sequence with ``V(next_state) = next_values[t]``."""
    advantages = np.zeros(len(rewards))
    next_value = next_advantage = 0.0
    for t in reversed(range(len(rewards))):
        if terminals[t]:
            next_value, next_advantage = 0.0, 0.0
        elif bootstraps[t]:
            next_value, next_advantage = next_values[t], 0.0
        delta = rewards[t] + discount * next_value - values[t]
        advantages[t] = delta + discount * gae_lambda * next_advantage
        next_value, next_advantage = values[t], advantages[t]
    return advantages, advantages + values
