"""The numerical guard: an update whose loss or gradient is not finite changes no variable — weights, optimizer
moments and step count stay bit for bit — and says so in its metrics, counted in ``update/refused``; the next
finite update learns as usual."""

from __future__ import annotations

import numpy as np
import pytest

from rlworkbench.agents import Agent
from rlworkbench.agents.config import builtin_config
from rlworkbench.execution.envs import make_vector_env


@pytest.mark.parametrize("backend", ["torch", "tf"])
def test_a_non_finite_update_is_skipped_without_touching_a_variable(backend):
    config = builtin_config("dqn_cartpole")
    config["policy"]["network"] = [{"type": "dense", "units": 8, "activation": "linear"}]
    config["memory"]["capacity"] = 64
    config["update"]["batch_size"] = 4
    env = make_vector_env("CartPole-v1", 1)
    agent = Agent.from_env(env, config, backend=backend, seed=0).build()
    env.close()
    rng = np.random.default_rng(0)
    batch = {"states": rng.normal(size=(4, 4)).astype(np.float32), "actions": np.array([0, 1, 0, 1]),
             "rewards": np.ones(4, np.float32), "terminals": np.zeros(4, bool),
             "next_states": rng.normal(size=(4, 4)).astype(np.float32)}
    healthy = agent.get_weights()
    huge = dict(healthy)
    name = next(name for name in healthy if name.startswith("policy/") and name.endswith("kernel"))
    huge[name] = np.full_like(healthy[name], 3e38)  # finite, but Q-values overflow to inf: so do loss and grads
    agent.set_weights(huge)
    before = agent.get_weights()
    metrics = agent.update(batch)
    assert not np.isfinite(metrics["loss"]) or not np.isfinite(metrics["grad_norm"])
    assert metrics["update/refused"] == 1.0 and agent.guard_counts.refused_steps == 1
    after = agent.get_weights()
    for key, value in before.items():
        if not key.startswith("memory/"):
            np.testing.assert_array_equal(after[key], value, err_msg=key)  # optimizer/steps included
    agent.set_weights(healthy)
    steps = agent.get_weights()["optimizer/steps"]
    metrics = agent.update(batch)
    assert np.isfinite(metrics["loss"]) and agent.get_weights()["optimizer/steps"] == steps + 1
    assert metrics["update/refused"] == 1.0  # cumulative: a finite update adds none
    assert not np.array_equal(agent.get_weights()[name], healthy[name])  # a finite update learns


def _sequences(envs: int = 2, length: int = 4) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    chain = rng.normal(size=(envs, length + 1, 4)).astype(np.float32)
    return {"states": chain[:, :-1].copy(), "actions": rng.integers(0, 2, (envs, length)),
            "rewards": np.ones((envs, length), np.float32), "terminals": np.zeros((envs, length), bool),
            "next_states": chain[:, 1:].copy()}


def _sac_batch() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {"states": rng.normal(size=(4, 3)).astype(np.float32), "actions": rng.uniform(-1, 1, (4, 1)),
            "rewards": np.ones(4, np.float32), "terminals": np.zeros(4, bool),
            "next_states": rng.normal(size=(4, 3)).astype(np.float32)}


SMALL = [{"type": "dense", "units": 8, "activation": "tanh"}]
COUNTED = {  # agent type -> (config, env, batch, refused optimizer steps per non-finite update)
    "ppo": ({"type": "ppo", "policy": {"network": SMALL, "value_network": SMALL},
             "update": {"rollout_length": 4, "num_epochs": 2, "num_minibatches": 2}}, "CartPole-v1", _sequences, 4),
    "impala": ({"type": "impala", "policy": {"network": SMALL, "value_network": SMALL}}, "CartPole-v1", _sequences, 1),
    "sac": ({**builtin_config("sac_pendulum"), "policy": {"network": SMALL}, "critic": {"network": SMALL}},
            "Pendulum-v1", _sac_batch, 3),
}


@pytest.mark.parametrize("kind", sorted(COUNTED))
def test_every_refused_optimizer_step_is_counted(kind):
    config, env_id, batch, refused = COUNTED[kind]
    agent = Agent.from_env(env_id, config, backend="torch", seed=0).build()
    weights = agent.get_weights()
    kernels = [name for name in weights if name.endswith("kernel") and "target" not in name]
    agent.set_weights({**weights, **{name: np.full_like(weights[name], 3e38) for name in kernels}})
    metrics = agent.update(batch())
    assert metrics["update/refused"] == refused and agent.guard_counts.refused_steps == refused
    agent.set_weights(weights)
    assert agent.update(batch())["update/refused"] == refused  # finite steps add none


@pytest.mark.parametrize("values, refused", [
    ((np.float32(1.5), 2.0), 0),
    ((np.array(1.5, np.float32), np.float64(3e300)), 0),
    ((np.float32("nan"), 2.0), 1),
    ((1.0, float("inf")), 1),
    ((np.array([1.0, 2.0], np.float32), 1.0), 0),  # per-replica values: refused when any of them is not finite
    ((np.array([1.0, np.nan], np.float32), 1.0), 1),
    ((np.array([[1.0], [-np.inf]]), 1.0), 1),
])
def test_a_step_is_counted_as_refused_when_any_of_its_values_is_not_finite(values, refused):
    from rlworkbench.agents.guard_counts import GuardCounts

    counts = GuardCounts()
    counts.step(*values)
    assert counts.refused_steps == refused
