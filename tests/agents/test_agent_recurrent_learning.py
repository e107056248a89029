"""Proof that the recurrent state carries information: on CartPole with its velocities masked
(``rlworkbench/MaskedCartPole-v1``), LSTM-PPO (the shipped ``ppo_lstm_cartpole``, 8 envs) reaches a last-20 mean
return of 450 within 300,000 env steps on both backends; the same config with the LSTM replaced by a dense layer
does not within the same budget. Measured on this 2-core machine (torch, seed 0): the LSTM reached 450 at about
170k steps; the MLP stayed below 200."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from rlworkbench.agents import Agent, builtin_config
from rlworkbench.execution import MASKED_CARTPOLE_ID, Worker, make_vector_env

BUDGET, THRESHOLD, WINDOW, CHECK_EVERY = 300_000, 450.0, 20, 5_000


def best_recent_mean(config: dict, backend: str, seed: int = 0) -> tuple[float, int]:
    """Trains until the last-20 mean return reaches the threshold or the budget is spent; returns the best last-20
    mean seen at the checks and the steps taken."""
    env = make_vector_env(MASKED_CARTPOLE_ID, num_envs=8, seed=seed)
    agent = Agent.from_env(env, config, backend=backend, seed=seed).build()
    worker = Worker(agent, env, seed=seed, progress=False, recent_window=WINDOW)
    best = -np.inf
    try:
        while worker.timesteps < BUDGET and best < THRESHOLD:
            worker.run(timesteps=CHECK_EVERY)
            returns = worker.episodes["return"].to_numpy()
            if len(returns) >= WINDOW:
                best = max(best, float(returns[-WINDOW:].mean()))
    finally:
        env.close()
    return best, worker.timesteps


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_lstm_ppo_solves_masked_cartpole(backend, one_torch_thread):
    best, steps = best_recent_mean(builtin_config("ppo_lstm_cartpole"), backend)
    assert best >= THRESHOLD, (best, steps)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_the_same_ppo_without_the_lstm_does_not(one_torch_thread):
    config = copy.deepcopy(builtin_config("ppo_lstm_cartpole"))
    config["policy"]["network"][0] = {"type": "dense", "units": 64, "activation": "relu"}
    config["update"]["sequence_length"] = None
    best, steps = best_recent_mean(config, "torch")
    assert steps >= BUDGET and best < THRESHOLD, (best, steps)
