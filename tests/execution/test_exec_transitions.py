"""The agent sees exactly the envs' true transitions, and the worker's episode table matches hand-stepped envs,
in every Gymnasium 1.x autoreset mode (NEXT_STEP, SAME_STEP, DISABLED), at terminations and truncations."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from exec_helpers import DictCountEnv, RecordingAgent, hand_step

from rlworkbench.execution import StepReader, Worker, make_vector_env

MODES = ["SameStep", "NextStep", "Disabled"]
REFERENCE_COLUMNS = ["env_id", "env_episode", "return", "length", "terminated", "truncated"]


def _run(env, seed: int, timesteps: int) -> tuple[Worker, RecordingAgent]:
    agent = RecordingAgent.from_env(env, seed=seed)
    worker = Worker(agent, env, progress=False)
    worker.run(timesteps=timesteps)
    return worker, agent


def _by_env(episodes: pd.DataFrame) -> pd.DataFrame:
    return episodes.sort_values(["env_id", "env_episode"]).reset_index(drop=True)[REFERENCE_COLUMNS]


@pytest.mark.parametrize("autoreset_mode", MODES)
def test_cartpole_transitions_and_episodes_match_hand_stepped_envs(autoreset_mode):
    seed, num_envs, limit = 11, 3, 20
    env = make_vector_env("CartPole-v1", num_envs, seed=seed, autoreset_mode=autoreset_mode,
                          max_episode_steps=limit)
    worker, agent = _run(env, seed=1, timesteps=450)
    env.close()
    reference = hand_step(lambda: gym.make("CartPole-v1", max_episode_steps=limit), seed, num_envs, agent.rows)
    episodes = worker.episodes
    pd.testing.assert_frame_equal(_by_env(episodes), reference, check_dtype=False)
    assert episodes["terminated"].any() and episodes["truncated"].any()
    assert (episodes.loc[episodes["truncated"], "length"] == limit).all()
    # per-env and total timesteps count real env steps only (a NEXT_STEP reset step is none)
    rows_per_env = np.bincount([row[0] for row in agent.rows], minlength=num_envs)
    np.testing.assert_array_equal(worker.env_timesteps, rows_per_env)
    assert worker.timesteps == len(agent.rows) == agent.timesteps
    assert episodes["timesteps_total"].is_monotonic_increasing
    assert episodes["episode"].tolist() == list(range(len(episodes)))


@pytest.mark.parametrize("autoreset_mode", MODES)
def test_dict_observations_keep_their_final_observation(autoreset_mode):
    seed, num_envs = 100, 4
    env = make_vector_env(DictCountEnv, num_envs, seed=seed, autoreset_mode=autoreset_mode, max_episode_steps=4)
    worker, agent = _run(env, seed=2, timesteps=200)
    env.close()
    reference = hand_step(lambda: gym.wrappers.TimeLimit(DictCountEnv(), 4), seed, num_envs, agent.rows)
    pd.testing.assert_frame_equal(_by_env(worker.episodes), reference, check_dtype=False)
    finals = [row for row in agent.rows if row[5]["t"][0] == 4 or row[4]]
    assert finals, "episode ends were seen"
    for env_id, _, action, _, _, next_state in agent.rows:
        assert next_state["t"][1] == seed + env_id and next_state["t"][2] == action  # s' is the row's own env


def test_next_step_reader_masks_reset_rows_only_after_an_episode_end():
    env = make_vector_env(DictCountEnv, 2, seed=0, autoreset_mode="NextStep")
    reader = StepReader(env)
    reader.reset()
    masks = []
    for _ in range(8):
        step = reader.step(np.zeros(2, np.int64))
        masks.append(step.valid)
        if step.valid is not None:  # a reset row: no reward, not done, and its observation is a fresh start
            assert np.all(step.rewards[~step.valid] == 0) and not step.done[~step.valid].any()
            assert np.all(step.observations["t"][~step.valid, 0] == 0)
    env.close()
    assert masks[0] is None and any(mask is not None for mask in masks)
