"""Worker runs: by timesteps and by episodes, carrying on, learning off, callbacks, stop() and snapshot() from
another thread, the update schedule, and typed errors."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from exec_helpers import RecordingAgent, UpdatingAgent

from rlworkbench.agents.random_agent import RandomAgent
from rlworkbench.errors import ConfigError, RLWorkbenchError
from rlworkbench.execution import Worker, make_vector_env


@pytest.fixture
def env():
    vector_env = make_vector_env("CartPole-v1", 4, seed=0)
    yield vector_env
    vector_env.close()


def test_run_by_timesteps_stops_at_the_first_step_that_reaches_the_target_and_carries_on(env):
    agent = RecordingAgent.from_env(env, seed=0)
    worker = Worker(agent, env, progress=False)
    first = worker.run(timesteps=102)
    assert worker.timesteps == 104 and agent.resets == 1  # 4 sub-envs: 26 vector steps
    second = worker.run(timesteps=100)
    assert worker.timesteps == 204 and agent.resets == 1  # no reset: the same episodes go on
    assert len(first) + len(second) == len(worker.episodes)
    assert second["episode"].tolist() == list(range(len(first), len(first) + len(second)))
    assert worker.run(timesteps=0).empty


def test_run_by_episodes_stops_at_the_step_that_finishes_the_nth(env):
    worker = Worker(RandomAgent.from_env(env, seed=0), env, progress=False)
    episodes = worker.run(episodes=10)
    assert len(episodes) >= 10
    last_step = episodes["timesteps_total"].max()
    assert (episodes["timesteps_total"] < last_step).sum() < 10  # not yet 10 one step earlier
    assert worker.timesteps == last_step


def test_learn_false_neither_observes_nor_updates(env):
    agent = UpdatingAgent.from_env(env, seed=0)
    worker = Worker(agent, env, progress=False)
    worker.run(timesteps=80, learn=False)
    assert agent.timesteps == 0 and worker.updates.empty and worker.timesteps == 80
    worker.run(timesteps=80)
    assert agent.timesteps == 80 and len(worker.updates) == 10


def test_updates_follow_the_agents_schedule(env):
    agent = UpdatingAgent.from_env(env, seed=0).every(12)
    worker = Worker(agent, env, progress=False)
    worker.run(timesteps=120)
    updates = worker.updates
    assert updates["timesteps_total"].tolist() == [12, 24, 36, 48, 60, 72, 84, 96, 108, 120]
    assert list(updates.columns) == ["update", "timesteps_total", "wall_time", "loss", "q_mean", "td_error"]
    np.testing.assert_allclose(updates["loss"], 1.0 / updates["timesteps_total"])
    assert (updates["td_error"] == 2.0).all()  # a non-scalar metric is reported by its mean


def test_callback_runs_every_n_timesteps_and_can_stop_the_run(env):
    seen = []
    worker = Worker(RandomAgent.from_env(env), env, progress=False, callback=lambda w: seen.append(w.timesteps),
                    callback_every=40)
    worker.run(timesteps=200)
    assert seen == [40, 80, 120, 160, 200]

    stopper = Worker(RandomAgent.from_env(env), env, progress=False, callback=lambda w: w.timesteps < 80,
                     callback_every=20)
    stopper.run(timesteps=10_000)
    assert stopper.timesteps == 80


def test_stop_and_snapshot_from_another_thread(env):
    worker = Worker(UpdatingAgent.from_env(env, seed=0), env, progress=False)
    thread = threading.Thread(target=worker.run, kwargs={"timesteps": 10**9}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while (not worker.is_running or worker.book.num_episodes < 3) and time.monotonic() < deadline:
        time.sleep(0.01)
    with pytest.raises(RLWorkbenchError, match="running already"):
        worker.run(timesteps=10)
    snapshot = worker.snapshot()
    assert snapshot.running and snapshot.timesteps > 0 and snapshot.num_episodes >= 3
    assert len(snapshot.episodes) >= 3 and snapshot.num_updates > 0
    assert np.isfinite(snapshot.recent_mean_return)
    assert snapshot.steps_per_second > 0  # the first run's speed, while it runs (the live views show it)
    worker.stop()
    thread.join(timeout=10)
    assert not thread.is_alive()
    after = worker.snapshot()
    assert not after.running and after.timesteps >= snapshot.timesteps
    assert after.steps_per_second > 0


@pytest.mark.parametrize(("kwargs", "argument"), [({}, "timesteps/episodes"),
                                                  ({"timesteps": 5, "episodes": 5}, "timesteps/episodes"),
                                                  ({"timesteps": -1}, "steps"), ({"episodes": 1.5}, "episodes")])
def test_bad_run_targets_raise_config_errors(env, kwargs, argument):
    worker = Worker(RandomAgent.from_env(env), env, progress=False)
    with pytest.raises(ConfigError) as error:
        worker.run(**kwargs)
    assert error.value.argument == argument


def test_callback_and_interval_go_together(env):
    with pytest.raises(ConfigError, match="callback"):
        Worker(RandomAgent.from_env(env), env, callback=print)
    with pytest.raises(ConfigError, match="interval"):
        Worker(RandomAgent.from_env(env), env, callback=print, callback_every=0)
