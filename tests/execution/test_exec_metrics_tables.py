"""The worker's pandas tables: columns and dtypes (also when empty), per-env numbering, and the summary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from exec_helpers import UpdatingAgent

from rlworkbench.execution import EPISODE_COLUMNS, Worker, make_vector_env

EPISODE_DTYPES = {"episode": "int64", "env_id": "int64", "env_episode": "int64", "return": "float64",
                  "length": "int64", "timesteps_total": "int64", "wall_time": "float64", "terminated": "bool",
                  "truncated": "bool"}


@pytest.fixture
def worker():
    env = make_vector_env("CartPole-v1", 3, seed=2, max_episode_steps=25)
    yield Worker(UpdatingAgent.from_env(env, seed=2), env, progress=False)
    env.close()


def test_tables_have_their_columns_and_dtypes_before_any_run(worker):
    assert worker.episodes.empty and worker.updates.empty
    assert worker.episodes.dtypes.astype(str).to_dict() == EPISODE_DTYPES == EPISODE_COLUMNS
    assert worker.updates.dtypes.astype(str).to_dict() == {"update": "int64", "timesteps_total": "int64",
                                                           "wall_time": "float64"}
    assert np.isnan(worker.summary()["mean_return_last_10%"])


def test_tables_after_a_run(worker):
    worker.run(timesteps=300)
    episodes, updates = worker.episodes, worker.updates
    assert episodes.dtypes.astype(str).to_dict() == EPISODE_DTYPES
    assert updates.dtypes.astype(str).to_dict() == {"update": "int64", "timesteps_total": "int64",
                                                    "wall_time": "float64", "loss": "float64",
                                                    "q_mean": "float64", "td_error": "float64"}
    assert (episodes["wall_time"].diff().dropna() >= 0).all() and (episodes["wall_time"] > 0).all()
    for _, per_env in episodes.groupby("env_id"):  # each sub-env numbers its own episodes
        assert per_env["env_episode"].tolist() == list(range(len(per_env)))
    assert set(episodes["env_id"]) == {0, 1, 2}
    np.testing.assert_array_equal(episodes["return"], episodes["length"])  # CartPole: +1 per step
    episodes.loc[0, "return"] = -1.0  # a copy: the worker's table is not touched
    assert worker.episodes.loc[0, "return"] > 0


def test_summary_reports_the_last_tenth_throughput_and_updates(worker):
    worker.run(timesteps=600)
    summary = worker.summary()
    returns = worker.episodes["return"]
    tail = returns.iloc[-int(np.ceil(len(returns) * 0.1)):]
    assert summary["episodes"] == len(returns) and summary["timesteps"] == 600
    assert summary["mean_return_last_10%"] == pytest.approx(tail.mean())
    assert summary["max_return_last_10%"] == tail.max()
    assert summary["updates"] == len(worker.updates) == 600 // 9  # every 8 timesteps, 3 per vector step
    assert summary["steps_per_s"] > 0 and summary["wall_time_s"] > 0
    table = pd.DataFrame([summary]).to_string(index=False)
    assert "mean_return_last_10%" in table and "steps_per_s" in table
