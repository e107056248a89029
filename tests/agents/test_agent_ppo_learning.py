"""PPO learns CartPole-v1 with the shipped config on both backends, driven by the :class:`Worker`; a loss with the
wrong sign does not.

The criterion: after 30,000 env steps (8 envs, same-step autoreset) the mean return of the last 20 episodes is above
150. A random policy scores ~22; the shipped config passes 150 after ~10-20k steps and reaches 300-500 by 30k over
seeds (6-10 s on 2 CPU cores per backend); the ``slow`` test asks for CartPole-v1's threshold of 475.
"""

from __future__ import annotations

import copy
from typing import Any

import pandas as pd
import pytest

import rlworkbench.agents.ppo  # noqa: F401  (registers "ppo")
from rlworkbench.agents import Agent, builtin_config
from rlworkbench.components import PPOLoss
from rlworkbench.core.decorators import api, graph_fn
from rlworkbench.execution import Worker, make_vector_env

TARGET, BUDGET, WINDOW = 150.0, 30_000, 20


def train(backend: str, timesteps: int, seed: int = 0, stop_at: float | None = None,
          **sections: dict[str, Any]) -> tuple[Agent, pd.DataFrame]:
    """Runs the shipped config (``sections`` updated) on 8 CartPole envs for ``timesteps`` (or until the last-20
    mean reaches ``stop_at``); returns the agent and the worker's episodes."""
    config = copy.deepcopy(builtin_config("ppo_cartpole"))
    for key, value in sections.items():
        config[key].update(value)
    env = make_vector_env("CartPole-v1", 8, seed=seed)
    agent = Agent.from_env(env, config, backend=backend, seed=seed).build()
    worker = Worker(agent, env, progress=False)
    try:
        while worker.timesteps < timesteps:
            worker.run(timesteps=min(2048, timesteps - worker.timesteps))
            if stop_at is not None and recent(worker.episodes) >= stop_at:
                break
    finally:
        env.close()
    return agent, worker.episodes


def recent(episodes: pd.DataFrame) -> float:
    return float(episodes["return"].tail(WINDOW).mean()) if len(episodes) >= WINDOW else 0.0


@pytest.mark.timeout(120)
def test_ppo_learns_cartpole(backend, one_torch_thread):
    agent, episodes = train(backend, BUDGET)
    assert recent(episodes) > TARGET, (f"mean return of the last {WINDOW} episodes {recent(episodes):.1f} after "
                                       f"{agent.timesteps} steps, {len(episodes)} episodes")
    assert agent.updates == BUDGET // 256 and agent.get_weights()["optimizer/steps"] > 0


@pytest.mark.timeout(120)
def test_a_shared_value_head_with_value_clipping_learns_too(backend, one_torch_thread):
    """The other switches: one body for policy and value (a value head on it), and a clipped value loss."""
    agent, episodes = train(backend, BUDGET, policy={"shared_value_function": True, "value_units": [64]},
                            loss={"value_clip": 0.2})
    assert "policy/value_head/dense_0/kernel" in agent.get_weights()
    assert recent(episodes) > TARGET, (recent(episodes), agent.timesteps)


class AscendingPPOLoss(PPOLoss):
    """PPOLoss with the sign of the loss flipped: gradient steps make the surrogate (and the value error) worse."""

    @api
    @graph_fn(returns=3)
    def loss(self, log_probs: Any, *, prev_log_probs: Any, advantages: Any, entropies: Any, values: Any,
             value_targets: Any, prev_values: Any = None) -> Any:
        loss, per_item, parts = PPOLoss.graph_fns["loss"].fn(
            self, log_probs, prev_log_probs=prev_log_probs, advantages=advantages, entropies=entropies,
            values=values, value_targets=value_targets, prev_values=prev_values)
        return -loss, per_item, parts


@pytest.mark.timeout(120)
def test_a_loss_with_the_wrong_sign_does_not_learn(backend, monkeypatch, one_torch_thread):
    """Guards the criterion above: it must fail for a broken loss (the same run, only the sign flipped)."""
    monkeypatch.setattr("rlworkbench.agents.ppo.PPOLoss", AscendingPPOLoss)
    agent, episodes = train(backend, BUDGET)
    assert isinstance(agent.root.loss, AscendingPPOLoss)
    assert recent(episodes) < 60.0, recent(episodes)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_ppo_solves_cartpole(backend, one_torch_thread):
    """The shipped config all the way: a last-20 mean return of 475 (CartPole-v1's threshold) within 60,000 steps."""
    agent, episodes = train(backend, 60_000, stop_at=475.0)
    assert recent(episodes) >= 475.0, (recent(episodes), agent.timesteps)
