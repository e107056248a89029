"""A recurrent agent's sampler (the Ray actor's body, run here in-process): fragments carry the state each env's
sequence starts from, carried on from the fragment before; the learner learns from them as they come."""

from __future__ import annotations

import numpy as np

from rlworkbench.agents import Agent
from rlworkbench.execution.ray.sampler import ImpalaSampler

UNITS = 8
NETWORK = [{"type": "dense", "units": 16, "activation": "tanh"}, {"type": "lstm", "units": UNITS}]
CONFIG = {"type": "impala", "policy": {"network": NETWORK, "shared_value_function": True, "value_units": []},
          "update": {"rollout_length": 10}}


def test_fragments_carry_their_start_state_and_the_learner_takes_them():
    sampler = ImpalaSampler(0, CONFIG, "CartPole-v1", 3, "torch", seed=0)
    first, second = sampler.sample(10), sampler.sample(10)
    for fragment in (first, second):
        h, c = fragment.batch["internal_states"]
        assert h.shape == c.shape == (3, UNITS)
        assert fragment.batch["behaviour_log_probs"].shape == (3, 10)
    assert not np.any(first.batch["internal_states"][0])  # the first steps begin episodes
    assert np.any(second.batch["internal_states"][0])  # then the state goes on across fragments
    # the behaviour log-probs are those of the weights that acted, from the fragment's start state
    learner = Agent.from_env("CartPole-v1", CONFIG, backend="torch", seed=1).build()
    learner.set_weights(sampler.weights(), strict=False)
    np.testing.assert_allclose(learner.behaviour_log_probs(second.batch), second.batch["behaviour_log_probs"],
                               atol=1e-5)
    zero_start = {**second.batch, "internal_states": learner.initial_state(3)}
    assert np.abs(learner.behaviour_log_probs(zero_start) - second.batch["behaviour_log_probs"]).max() > 1e-5
    metrics = learner.update(second.batch)
    assert np.isfinite(metrics["loss"]) and metrics["rollout_steps"] == 30
