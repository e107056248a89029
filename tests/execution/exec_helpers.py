"""Helpers for the execution tests: a recording agent, a learning-shaped fake, a dict-observation env, and the
hand-stepped reference that replays the recorded actions on fresh envs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import pandas as pd

from rlworkbench.agents.random_agent import RandomAgent


class RecordingAgent(RandomAgent):
    """A random agent that writes down every row ``observe`` got: ``(env_id, s, a, r, terminal, s')``."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.rows: list[tuple] = []
        self.resets = 0

    def observe(self, states, actions, rewards, terminals, next_states, env_id=None) -> None:
        super().observe(states, actions, rewards, terminals, next_states, env_id)
        assert env_id is not None and len(env_id) == len(rewards)
        for row, env in enumerate(env_id):
            self.rows.append((int(env), _row(states, row), _row(actions, row), float(rewards[row]),
                              bool(terminals[row]), _row(next_states, row)))

    def reset(self) -> None:
        self.resets += 1


class UpdatingAgent(RandomAgent):
    """A random agent with a learner's schedule: wants an update every ``every`` timesteps, reports losses."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.every(8)

    def every(self, timesteps: int) -> UpdatingAgent:
        self.interval, self._next = timesteps, timesteps
        return self

    def wants_update(self) -> bool:
        return self.timesteps >= self._next

    def update(self, batch: Any = None) -> dict[str, Any]:
        self._next = self.timesteps + self.interval
        return {"loss": 1.0 / self.timesteps, "q_mean": np.float32(0.5), "td_error": np.array([1.0, 3.0])}


class DictCountEnv(gym.Env):
    """Dict observations ``{"t": [step, env id, action], "parity": step % 2}``, reward = step + action; each
    episode terminates after a random 2 … 6 steps (drawn from the env's seeded RNG); the env id is the seed."""

    def __init__(self):
        self.observation_space = gym.spaces.Dict({"t": gym.spaces.Box(-1e6, 1e6, (3,), np.float32),
                                                  "parity": gym.spaces.Discrete(2)})
        self.action_space = gym.spaces.Discrete(3)
        self.terminate_at, self.env_id, self.t, self.action = 0, -1, 0, 0

    def _obs(self) -> dict[str, Any]:
        return {"t": np.array([self.t, self.env_id, self.action], np.float32), "parity": np.int64(self.t % 2)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.env_id = seed
        self.t, self.action = 0, 0
        self.terminate_at = int(self.np_random.integers(2, 7))
        return self._obs(), {}

    def step(self, action):
        self.t, self.action = self.t + 1, int(action)
        return self._obs(), float(self.t + self.action), self.t >= self.terminate_at, False, {}


def _row(value: Any, row: int) -> Any:
    if isinstance(value, dict):
        return {key: _row(child, row) for key, child in value.items()}
    if isinstance(value, tuple):
        return tuple(_row(child, row) for child in value)
    return np.array(value[row], copy=True)


def assert_same(a: Any, b: Any) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def hand_step(make_env: Callable[[], gym.Env], seed: int, num_envs: int, rows: list[tuple]) -> pd.DataFrame:
    """Replays each sub-env's recorded actions on a fresh env seeded as :func:`make_vector_env` seeds it, checks
    every recorded transition against the env's own ``(s, a, r, terminated, s')``, and returns the finished
    episodes (``env_id, env_episode, return, length, terminated, truncated``)."""
    episodes = []
    for env_id in range(num_envs):
        env = make_env()
        env.reset(seed=seed + env_id)  # make_vector_env seeds at creation …
        obs, _ = env.reset()  # … and the worker's first vector reset is a plain reset
        ret, length, count = 0.0, 0, 0
        for _, s, a, r, terminal, s_next in (row for row in rows if row[0] == env_id):
            assert_same(s, obs)
            obs2, reward, terminated, truncated, _ = env.step(a)
            assert r == reward and terminal == terminated
            assert_same(s_next, obs2)  # the real final observation at episode ends, also when truncated
            ret, length = ret + reward, length + 1
            if terminated or truncated:
                episodes.append((env_id, count, ret, length, terminated, truncated))
                ret, length, count = 0.0, 0, count + 1
                obs, _ = env.reset()
            else:
                obs = obs2
    return pd.DataFrame(episodes, columns=["env_id", "env_episode", "return", "length", "terminated", "truncated"])
