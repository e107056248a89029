"""Helpers for the agent tests: small DQN configs and spaces, and a minimal CartPole training loop (the agent API
only: ``get_actions`` → ``env.step`` → ``observe`` → ``while wants_update(): update()``)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from agent_test_support import with_sections

from rlworkbench.agents import Agent, builtin_config
from rlworkbench.spaces import FloatBox, IntBox

STATES = FloatBox(-1.0, 1.0, shape=(4,))
ACTIONS = IntBox(3)


def small_config(**sections: Any) -> dict[str, Any]:
    """The CartPole config with a small network and memory, 1-step; ``sections`` update its sections (a section with
    another component ``type``, or a non-dict value, replaces it)."""
    config = copy.deepcopy(builtin_config("dqn_cartpole"))
    config["policy"]["network"] = [{"type": "dense", "units": 16, "activation": "relu"}]
    config["memory"]["capacity"] = 256
    config["update"].update(batch_size=8, learning_starts=16)
    config["loss"]["n_step"] = 1
    return with_sections(config, sections)


def small_agent(backend: str, seed: int = 3, **sections: Any) -> Agent:
    return Agent.from_config(small_config(**sections), state_space=STATES, action_space=ACTIONS, backend=backend,
                             seed=seed).build()


def transitions(count: int, seed: int = 0, terminal_every: int = 0) -> dict[str, np.ndarray]:
    """``count`` random transitions of STATES/ACTIONS as a batch dict."""
    rng = np.random.default_rng(seed)
    terminals = np.zeros(count, bool) if not terminal_every else np.arange(count) % terminal_every == 0
    return {"states": STATES.sample(count, seed=rng), "actions": rng.integers(0, 3, count),
            "rewards": rng.normal(size=count).astype(np.float32), "terminals": terminals,
            "next_states": STATES.sample(count, seed=rng)}


@dataclass
class Run:
    returns: list[float] = field(default_factory=list)
    timesteps: int = 0
    updates: int = 0

    def recent(self, count: int = 10) -> float:
        return float(np.mean(self.returns[-count:])) if len(self.returns) >= count else 0.0


def train_cartpole(agent: Agent, max_timesteps: int, target: float, num_envs: int = 4, seed: int = 0) -> Run:
    """Trains on CartPole-v1 until the mean return of the last 10 episodes reaches ``target`` or
    ``max_timesteps`` env steps have passed. Truncated episodes go to ``observe`` with ``terminals=False`` and
    their true final observation (same-step autoreset puts it in ``info["final_obs"]``)."""
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * num_envs,
                                    autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    run = Run()
    running = np.zeros(num_envs)
    states, _ = envs.reset(seed=seed)
    try:
        while agent.timesteps < max_timesteps and run.recent() < target:
            actions = agent.get_actions(states)
            observations, rewards, terminated, truncated, info = envs.step(actions)
            done = terminated | truncated
            next_states = observations.copy()
            if done.any():
                next_states[done] = np.stack(info["final_obs"][done])
            agent.observe(states, actions, rewards, terminated, next_states)
            running += rewards
            for env in np.flatnonzero(done):
                run.returns.append(float(running[env]))
                running[env] = 0.0
            while agent.wants_update():
                agent.update()
            states = observations
    finally:
        envs.close()
    run.timesteps, run.updates = agent.timesteps, agent.updates
    return run
