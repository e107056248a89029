"""MaskedCartPole: CartPole's position and angle only, registered by id (also for a fresh process), vectorised."""

from __future__ import annotations

import json
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from rlworkbench.execution import MASKED_CARTPOLE_ID, MaskedCartPole, make_vector_env


def test_spaces_are_cartpoles_position_and_angle():
    cartpole, masked = gym.make("CartPole-v1"), gym.make(MASKED_CARTPOLE_ID)
    full = cartpole.observation_space
    assert masked.observation_space == gym.spaces.Box(full.low[[0, 2]], full.high[[0, 2]], (2,), np.float32)
    assert masked.action_space == cartpole.action_space
    assert masked.spec.max_episode_steps == cartpole.spec.max_episode_steps == 500
    assert isinstance(masked.unwrapped, gym.envs.classic_control.CartPoleEnv)
    with pytest.raises(ValueError, match="shape"):
        MaskedCartPole(gym.make("MountainCar-v0"))


def test_observations_are_cartpoles_indices_0_and_2_for_the_same_seed_and_actions():
    cartpole, masked = gym.make("CartPole-v1"), gym.make(MASKED_CARTPOLE_ID)
    rng = np.random.default_rng(0)
    for seed in (3, 4):
        full, _ = cartpole.reset(seed=seed)
        obs, _ = masked.reset(seed=seed)
        np.testing.assert_array_equal(obs, full[[0, 2]])
        done = False
        while not done:
            action = int(rng.integers(2))
            full, reward, terminated, truncated, _ = cartpole.step(action)
            obs, masked_reward, masked_terminated, masked_truncated, _ = masked.step(action)
            assert obs.shape == (2,) and obs.dtype == np.float32 and masked.observation_space.contains(obs)
            np.testing.assert_array_equal(obs, full[[0, 2]])
            assert (masked_reward, masked_terminated, masked_truncated) == (reward, terminated, truncated)
            done = terminated or truncated


def test_episodes_are_truncated_at_500_steps():
    env = gym.make(MASKED_CARTPOLE_ID)
    env.reset(seed=0)
    cart = env.unwrapped
    for step in range(1, 501):
        cart.state = np.zeros(4)  # keep the pole upright: only the time limit can end the episode
        _, _, terminated, truncated, _ = env.step(step % 2)
        assert not terminated and truncated == (step == 500)
    shorter = gym.make(MASKED_CARTPOLE_ID, max_episode_steps=7)
    shorter.reset(seed=0)
    shorter.unwrapped.state = np.zeros(4)
    assert [shorter.step(0)[3] for _ in range(7)] == [False] * 6 + [True]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_env_by_id(mode):
    env = make_vector_env(MASKED_CARTPOLE_ID, num_envs=2, mode=mode, seed=1)
    try:
        assert env.single_observation_space.shape == (2,) and env.observation_space.shape == (2, 2)
        obs, _ = env.reset()
        assert obs.shape == (2, 2)
        for _ in range(30):
            obs, reward, terminated, truncated, _ = env.step(np.array([0, 1]))
            assert obs.shape == (2, 2) and reward.shape == terminated.shape == truncated.shape == (2,)
    finally:
        env.close()
    reference = gym.make("CartPole-v1")
    reference.reset(seed=2)  # sub-env 1 is seeded with seed + 1 when made; the vector reset is its second
    full, _ = reference.reset()
    vector = make_vector_env(MASKED_CARTPOLE_ID, num_envs=2, seed=1)
    np.testing.assert_array_equal(vector.reset()[0][1], full[[0, 2]])
    vector.close()


FRESH = """
import gymnasium, json
before = set(gymnasium.registry)
import rlworkbench.execution
added = sorted(set(gymnasium.registry) - before)
env = gymnasium.make("rlworkbench/MaskedCartPole-v1")
vector = rlworkbench.execution.make_vector_env("rlworkbench/MaskedCartPole-v1", num_envs=2, mode="async", seed=0)
print(json.dumps({"added": added, "shape": list(env.reset(seed=0)[0].shape),
                  "vector": list(vector.reset()[0].shape)}))
vector.close()
"""


def test_a_fresh_process_makes_it_by_id_after_importing_the_execution_package():
    """What a Ray sampler does; the import adds this one id to Gymnasium's registry and nothing else there."""
    done = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"added": [MASKED_CARTPOLE_ID], "shape": [2],
                                                                "vector": [2, 2]}


def test_the_module_path_form_needs_no_import():
    code = ("import gymnasium; print(gymnasium.make('rlworkbench.execution.masked_cartpole:"
            "rlworkbench/MaskedCartPole-v1').observation_space.shape)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip().splitlines()[-1] == "(2,)"
