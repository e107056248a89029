"""Helpers for the promote tests: a small DQN config, an env whose simulator crashes, polling, HTTP."""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

import gymnasium as gym

from rlworkbench.agents.config import builtin_config
from rlworkbench.testing import wait_until  # noqa: F401 (the tests import it from here)


def small_dqn(learning_starts: int = 100) -> dict[str, Any]:
    """The shipped CartPole DQN with a 32-unit network and an early start, so a few thousand steps take seconds."""
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 32, "activation": "relu"}]
    config["update"].update(learning_starts=learning_starts, batch_size=16)
    return config


class SimulatorCrash(RuntimeError):
    """What the crashing env raises."""


class CrashingCartPole(gym.Wrapper):
    """CartPole whose simulator raises :class:`SimulatorCrash` on env step ``crash_at`` (counted over episodes)."""

    def __init__(self, crash_at: int):
        super().__init__(gym.make("CartPole-v1"))
        self.crash_at, self.steps = crash_at, 0

    def step(self, action: Any):
        self.steps += 1
        if self.steps >= self.crash_at:
            raise SimulatorCrash(f"the simulator crashed at step {self.steps}")
        return super().step(action)


def crashing_cartpole() -> gym.Env:
    return CrashingCartPole(crash_at=251)


class StuckCartPole(gym.Wrapper):
    """CartPole whose simulator stops answering (sleeps) from env step ``stuck_at`` on, until ``released`` is set."""

    def __init__(self, stuck_at: int, released: threading.Event):
        super().__init__(gym.make("CartPole-v1"))
        self.stuck_at, self.steps, self.released = stuck_at, 0, released

    def step(self, action: Any):
        self.steps += 1
        while self.steps >= self.stuck_at and not self.released.wait(0.05):
            pass
        return super().step(action)


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())
