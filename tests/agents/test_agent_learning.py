"""DQN learns CartPole-v1 with the shipped config on both backends, and a loss with the wrong sign does not.

The criterion: the mean return of the last 10 episodes reaches 150 within 15,000 env steps (4 envs). A random
policy scores ~22; the shipped config gets there in ~4-9k steps (3-8 s on 2 CPU cores) and reaches 500 by ~40k
(the ``slow`` test).
"""

from __future__ import annotations

import copy
import importlib.util
from typing import Any

import pytest
from agent_helpers import train_cartpole

from rlworkbench.agents import Agent, builtin_config
from rlworkbench.components import DQNLoss
from rlworkbench.core.decorators import api, graph_fn

TARGET, BUDGET = 150.0, 15_000


def cartpole_agent(backend: str, seed: int = 0, **sections: Any) -> Agent:
    config = copy.deepcopy(builtin_config("dqn_cartpole"))
    for key, value in sections.items():
        config[key] = {**config[key], **value} if isinstance(value, dict) else value
    return Agent.from_env("CartPole-v1", config, backend=backend, seed=seed).build()


def test_dqn_learns_cartpole(backend, one_torch_thread):
    run = train_cartpole(cartpole_agent(backend), BUDGET, TARGET)
    assert run.recent() >= TARGET, (f"mean return of the last 10 episodes {run.recent():.1f} after "
                                    f"{run.timesteps} steps, {len(run.returns)} episodes")
    assert run.updates > 0


class AscendingDQNLoss(DQNLoss):
    """DQNLoss with the sign of the loss flipped: gradient steps push the TD error up instead of down."""

    @api
    @graph_fn(returns=3)
    def loss(self, q_values_s: Any, actions: Any, rewards: Any, terminals: Any, *, q_values_sp: Any,
             target_q_values_sp: Any, importance_weights: Any = None) -> Any:
        loss, per_item, td_errors = DQNLoss.graph_fns["loss"].fn(
            self, q_values_s, actions, rewards, terminals, q_values_sp=q_values_sp,
            target_q_values_sp=target_q_values_sp, importance_weights=importance_weights)
        return -loss, per_item, td_errors


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_a_loss_with_the_wrong_sign_does_not_learn(monkeypatch, one_torch_thread):
    """Guards the criterion above: it must fail for a broken loss (the same run, only the sign flipped)."""
    monkeypatch.setattr("rlworkbench.agents.dqn.DQNLoss", AscendingDQNLoss)
    agent = cartpole_agent("torch")
    assert isinstance(agent.root.loss, AscendingDQNLoss)
    run = train_cartpole(agent, BUDGET, TARGET)
    assert run.timesteps >= BUDGET and run.recent() < 60.0, run.recent()


@pytest.mark.parametrize("variant", ["dueling_prioritized", "polyak_1step"])
def test_dqn_variants_learn_cartpole(backend, one_torch_thread, variant):
    """The switches learn too: dueling heads with prioritized replay, 1-step returns with Polyak averaging."""
    sections = {
        "dueling_prioritized": {"policy": {"dueling": True, "value_units": [64], "advantage_units": [64]},
                                "memory": {"type": "prioritized_replay", "capacity": 100000, "alpha": 0.6,
                                           "beta": 0.4}},
        "polyak_1step": {"loss": {"n_step": 1}, "target": {"sync_interval": 1, "tau": 0.01}},
    }[variant]
    run = train_cartpole(cartpole_agent(backend, **sections), 20_000, TARGET)
    assert run.recent() >= TARGET, (variant, run.recent(), run.timesteps)


@pytest.mark.slow
def test_dqn_solves_cartpole(backend, one_torch_thread):
    """The shipped config all the way: a mean return of 475 (CartPole-v1's threshold) within 60,000 steps."""
    run = train_cartpole(cartpole_agent(backend), 60_000, 475.0)
    assert run.recent() >= 475.0, (run.recent(), run.timesteps)
