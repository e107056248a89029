"""SAC learns Pendulum-v1 with the shipped config on both backends; the same run with a broken critic target does
not; discrete SAC runs on CartPole-v1 with finite losses and a temperature that adapts.

The criterion: the mean return of the last 5 episodes (200 steps each) is above -700 after 8,000 env steps
(1 env, learning from step 1,000, one update per step). A random policy scores about -1,200 to -1,500; the
shipped config passes -300 after ~4-5k steps (on 2 CPU cores: ~32 s on PyTorch with one thread, ~20 s on
TensorFlow, for the whole 8,000 steps).
"""

from __future__ import annotations

import copy
import importlib.util
import time
from typing import Any

import numpy as np
import pandas as pd
import pytest
from agent_sac_helpers import STATES  # noqa: F401  (registers the "sac" agent type)

from rlworkbench.agents import Agent, builtin_config
from rlworkbench.components import SACLoss
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.execution import Worker, make_vector_env

TARGET, BUDGET = -700.0, 8_000


def run(env_id: str, backend: str, timesteps: int, config: dict[str, Any], seed: int = 0) -> tuple[Agent, Worker]:
    env = make_vector_env(env_id, 1, seed=seed)
    try:
        agent = Agent.from_env(env, config, backend=backend, seed=seed).build()
        worker = Worker(agent, env, progress=False)
        worker.run(timesteps=timesteps)
    finally:
        env.close()
    return agent, worker


def describe(worker: Worker, seconds: float) -> str:
    returns = worker.episodes["return"].to_numpy()
    return (f"last 5 episodes {returns[-5:].mean():.0f} after {worker.timesteps} steps in {seconds:.0f} s; "
            f"returns {np.round(returns).astype(int).tolist()}")


# TensorFlow's run (~55 s on CI) goes with the slow runs: the parity suite holds its maths to torch's
@pytest.mark.parametrize("backend", ["torch", pytest.param("tf", marks=pytest.mark.slow)], indirect=True)
@pytest.mark.timeout(180)
def test_sac_learns_pendulum(backend, one_torch_thread):
    start = time.perf_counter()
    _, worker = run("Pendulum-v1", backend, BUDGET, builtin_config("sac_pendulum"))
    returns = worker.episodes["return"].to_numpy()
    assert len(returns) == BUDGET // 200 and returns[:5].mean() < -900  # it starts out as bad as random
    assert returns[-5:].mean() > TARGET, describe(worker, time.perf_counter() - start)


class FlippedTerminalsSACLoss(SACLoss):
    """SACLoss with the terminal mask inverted: it bootstraps only where episodes end. Pendulum never terminates
    (it is truncated), so the critics learn one-step rewards and the policy stays myopic."""

    @api
    @graph_fn(returns=2)
    def critic_loss(self, q_values: Any, rewards: Any, terminals: Any, *, next_target_q_values: Any,
                    next_log_probs: Any, log_alpha: Any) -> Any:
        flipped = 1.0 - self.ops.cast(terminals, self.dtype)
        return SACLoss.graph_fns["critic_loss"].fn(self, q_values, rewards, flipped,
                                                    next_target_q_values=next_target_q_values,
                                                    next_log_probs=next_log_probs, log_alpha=log_alpha)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
@pytest.mark.slow  # a guard of the criterion (the full budget, ~100 s on CI): run with the slow runs
@pytest.mark.timeout(180)
def test_a_broken_critic_target_does_not_learn(monkeypatch, one_torch_thread):
    """Guards the criterion above: it must fail for a broken target (the same run, only the mask flipped)."""
    monkeypatch.setattr("rlworkbench.agents.sac.SACLoss", FlippedTerminalsSACLoss)
    start = time.perf_counter()
    agent, worker = run("Pendulum-v1", "torch", BUDGET, builtin_config("sac_pendulum"))
    assert isinstance(agent.root.loss, FlippedTerminalsSACLoss)
    assert worker.episodes["return"].to_numpy()[-5:].mean() < TARGET - 200, describe(
        worker, time.perf_counter() - start)


@pytest.mark.timeout(120)
def test_discrete_sac_smoke_on_cartpole(backend, one_torch_thread):
    """Finite losses, and a temperature that falls while the policy's entropy (log 2 at first) is above the
    target ``0.5 log 2``, as the policy becomes less random."""
    config = copy.deepcopy(builtin_config("sac_pendulum"))
    config["update"].update(batch_size=64, learning_starts=500)
    agent, worker = run("CartPole-v1", backend, 2_500, config)
    updates: pd.DataFrame = worker.updates
    assert len(updates) == agent.updates == 2_001
    assert np.isfinite(updates[["critic_loss", "actor_loss", "alpha_loss", "alpha", "entropy"]].to_numpy()).all()
    assert updates["entropy"].iloc[0] > 0.68 and updates["entropy"].iloc[-200:].mean() < 0.6
    alphas = updates["alpha"].to_numpy()
    assert alphas[0] > 0.99 and alphas[-1] < 0.6 and np.all(np.diff(alphas[:200]) < 0), alphas[::200]
