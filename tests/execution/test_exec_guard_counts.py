"""The agent's counts of skipped rows and refused updates reach a run: columns ``observe/skipped`` and
``update/refused`` of the updates table, TensorBoard scalars under those very tags, and the live view's status line
once above 0."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
from test_exec_tensorboard import _scalars

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config
from rlworkbench.execution import Worker, make_vector_env
from rlworkbench.execution.metrics import MetricsSnapshot
from rlworkbench.execution.tensorboard import EventWriter
from rlworkbench.workbench.live_plot import status_line

EVERY = 7  # every 7th step of a sub-env has a NaN reward


class NaNRewards(gym.Wrapper):
    """CartPole whose every :data:`EVERY`-th step's reward is NaN (a flaky reward source)."""

    def __init__(self):
        super().__init__(gym.make("CartPole-v1"))
        self.steps = 0

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.steps += 1
        return observation, float("nan") if self.steps % EVERY == 0 else reward, terminated, truncated, info


def test_skipped_rows_and_refused_updates_reach_the_table_tensorboard_and_status_line(tmp_path, recwarn):
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 8, "activation": "relu"}]
    config["memory"]["capacity"] = 256
    config["update"].update(learning_starts=20, batch_size=8)
    config["execution"] = {"on_bad": "skip"}
    env = make_vector_env(NaNRewards, 2, seed=0)
    agent = Agent.from_env(env, config, backend="torch", seed=0).build()
    with Worker(agent, env, logdir=tmp_path, progress=False) as worker:
        worker.run(timesteps=140)
        updates, snapshot = worker.updates, worker.snapshot()
    env.close()
    assert agent.guard_counts.skipped_rows == 140 // EVERY  # 70 steps of each sub-env
    skipped = updates["observe/skipped"]
    assert skipped.is_monotonic_increasing and 0 < skipped.iloc[-1] <= agent.guard_counts.skipped_rows  # (rows
    # skipped after the last update are in the next one's)
    assert (updates["update/refused"] == 0).all()
    scalars = _scalars(tmp_path)
    assert {"observe/skipped", "update/refused", "update/loss"} <= set(scalars)
    assert [value for _, value in scalars["observe/skipped"]] == skipped.tolist()
    assert f"{int(skipped.iloc[-1])} bad rows skipped" in status_line(snapshot, 140, "finished")
    assert "refused" not in status_line(snapshot, 140, "finished")
    assert len([w for w in recwarn if "drops bad rows" in str(w.message)]) == 1  # one kind, one warning


def test_the_status_line_shows_refused_updates_once_there_are_any():
    def snapshot(updates: pd.DataFrame) -> MetricsSnapshot:
        return MetricsSnapshot(timesteps=100, num_episodes=0, num_updates=len(updates), wall_time=1.0,
                               steps_per_second=100.0, recent_mean_return=float("nan"), running=True,
                               episodes=pd.DataFrame(), updates=updates)

    refused = pd.DataFrame({"update": [0, 1], "loss": [np.nan, 1.0], "update/refused": [1.0, 1.0]})
    assert "1 updates refused (not finite)" in status_line(snapshot(refused), 200, "running")
    for quiet in (pd.DataFrame({"update": [0], "update/refused": [0.0]}), pd.DataFrame({"update": [0]}),
                  pd.DataFrame()):
        assert "refused" not in status_line(snapshot(quiet), 200, "running")


def test_a_metric_with_a_namespace_keeps_it(tmp_path):
    writer = EventWriter(tmp_path)
    writer.scalars("update", {"loss": 1.0, "observe/skipped": 2.0}, 5)
    writer.close()
    assert set(_scalars(tmp_path)) == {"update/loss", "observe/skipped"}
