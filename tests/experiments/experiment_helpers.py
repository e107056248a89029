"""Helpers for the experiment tests: a DQN config small enough that a sweep of a few thousand steps takes seconds,
run directories written by hand, polling."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rlworkbench.agents.config import builtin_config
from rlworkbench.execution.metrics import EPISODE_COLUMNS
from rlworkbench.testing import wait_until  # noqa: F401 (the tests import it from here)


def small_dqn() -> dict[str, Any]:
    """The shipped CartPole DQN with a 16-unit network, a small memory and an early start."""
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 16, "activation": "relu"}]
    config["memory"]["capacity"] = 5000
    config["update"].update(learning_starts=100, batch_size=16)
    return config


def write_run_dir(path: Path, returns: list[float], config: dict[str, Any], env: str = "CartPole-v1",
                  seed: int = 0, labels: dict[str, Any] | None = None, steps_per_episode: int = 20) -> Path:
    """A run directory as a finished run leaves it: config.json, run.json and episodes.csv with these returns."""
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps(config))
    (path / "run.json").write_text(json.dumps({"name": "dqn_cartpole", "env": env, "backend": "torch", "seed": seed,
                                               "labels": labels or {}}))
    count = len(returns)
    episodes = pd.DataFrame({"episode": np.arange(count), "env_id": 0, "env_episode": np.arange(count),
                             "return": returns, "length": steps_per_episode,
                             "timesteps_total": (np.arange(count) + 1) * steps_per_episode,
                             "wall_time": np.arange(count) * 0.1, "terminated": True, "truncated": False})
    episodes[list(EPISODE_COLUMNS)].to_csv(path / "episodes.csv", index=False)
    return path
