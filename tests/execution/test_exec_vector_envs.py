"""make_vector_env: ids and factories, seeding, typed errors; sync and async envs give the same episodes."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from exec_helpers import RecordingAgent

from rlworkbench.errors import ConfigError
from rlworkbench.execution import Worker, autoreset_mode_of, make_vector_env


def _episodes(mode: str, autoreset_mode: str, seed: int) -> tuple[pd.DataFrame, list[tuple]]:
    env = make_vector_env("CartPole-v1", 3, mode=mode, seed=seed, autoreset_mode=autoreset_mode,
                          max_episode_steps=30)
    try:
        agent = RecordingAgent.from_env(env, seed=seed)
        worker = Worker(agent, env, progress=False)
        worker.run(episodes=25)
        return worker.episodes.drop(columns="wall_time"), agent.rows
    finally:
        env.close()


@pytest.mark.parametrize("autoreset_mode", ["SameStep", "NextStep"])
def test_sync_and_async_envs_give_the_same_episodes_for_the_same_seeds(autoreset_mode):
    sync, sync_rows = _episodes("sync", autoreset_mode, seed=5)
    async_, async_rows = _episodes("async", autoreset_mode, seed=5)
    pd.testing.assert_frame_equal(sync, async_)
    assert len(sync_rows) == len(async_rows)
    for a, b in zip(sync_rows, async_rows):
        assert a[0] == b[0] and a[3:5] == b[3:5]
        np.testing.assert_array_equal(a[1], b[1])
        np.testing.assert_array_equal(a[5], b[5])


def test_same_seed_same_episodes_other_seed_other_episodes():
    first, _ = _episodes("sync", "SameStep", seed=3)
    again, _ = _episodes("sync", "SameStep", seed=3)
    other, _ = _episodes("sync", "SameStep", seed=4)
    pd.testing.assert_frame_equal(first, again)
    assert not first["return"].equals(other["return"])


def test_ids_factories_time_limits_and_autoreset_modes():
    env = make_vector_env("CartPole-v1", 2, seed=0)
    assert env.num_envs == 2 and autoreset_mode_of(env) is gym.vector.AutoresetMode.SAME_STEP
    env.close()
    env = make_vector_env(lambda: gym.make("CartPole-v1"), 1, autoreset_mode="NextStep", max_episode_steps=3)
    assert autoreset_mode_of(env) is gym.vector.AutoresetMode.NEXT_STEP
    env.reset(seed=0)
    truncated = [env.step(np.zeros(1, np.int64))[3][0] for _ in range(3)]
    assert truncated == [False, False, True]
    env.close()


@pytest.mark.parametrize(("args", "kwargs", "argument"), [
    (("CartPole-v1", 2), {"mode": "threads"}, "mode"),
    (("CartPole-v1", 0), {}, "num_envs"),
    (("NoSuchEnv-v0", 1), {}, "env"),
    ((42, 1), {}, "env_id_or_fn"),
    ((lambda: gym.make("CartPole-v1"), 1), {"render_mode": "rgb_array"}, "env_kwargs"),
])
def test_bad_arguments_raise_config_errors_that_name_the_argument(args, kwargs, argument):
    with pytest.raises(ConfigError) as error:
        make_vector_env(*args, **kwargs)
    assert error.value.argument == argument
