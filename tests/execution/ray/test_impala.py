"""IMPALA on a real local Ray, both backends: fragments carry the log-probs of the weights that acted, the
learner's queue stays bounded, every fragment is one update, weights go out every K updates."""

from __future__ import annotations

import numpy as np
import pytest
import ray

from rlworkbench.agents import Agent, builtin_config
from rlworkbench.errors import ConfigError
from rlworkbench.execution import MASKED_CARTPOLE_ID
from rlworkbench.execution.ray import ImpalaSampler, PlanRun
from rlworkbench.execution.ray.plans.impala import IMPALA

CONFIG = {"type": "impala", "policy": {"network": [{"type": "dense", "units": 16, "activation": "tanh"}],
                                        "value_network": [{"type": "dense", "units": 16, "activation": "tanh"}]},
          "update": {"rollout_length": 10}}
SETTINGS = {"workers": 3, "envs_per_worker": 2, "sampler_cpus": 0, "queue_size": 2, "broadcast_every": 3,
            "weight_sync_steps": 40}


@pytest.mark.parametrize("backend", ["torch", "tf"])
def test_fragments_carry_the_behaviour_log_probs_of_the_weights_that_acted(backend):
    learner = Agent.from_env("CartPole-v1", CONFIG, backend=backend, seed=0).build()
    sampler = ImpalaSampler(0, CONFIG, "CartPole-v1", 3, backend, seed=1,
                            weights=learner.get_weights(trainable_only=True), version=7)
    fragment = sampler.sample(10)
    batch = fragment.batch
    assert fragment.report.version == 7 and batch["rewards"].shape == (3, 10)
    assert not hasattr(sampler.agent.api, "update_sequences")  # an acting-only graph
    np.testing.assert_allclose(batch["behaviour_log_probs"], learner.behaviour_log_probs(batch), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("backend", ["torch", "tf"])
def test_impala_learns_one_fragment_per_update_from_a_bounded_queue(ray_session, backend):
    agent = Agent.from_env("CartPole-v1", CONFIG, backend=backend, seed=0)
    impala = PlanRun(IMPALA, agent, "CartPole-v1", SETTINGS, seed=0)
    try:
        impala.train(2000)
        updates = impala.updates
        assert len(updates) == impala.agent.updates > 0
        assert (updates["rollout_steps"] == 20.0).all()  # one fragment: 2 envs x 10 steps
        assert updates["queue"].max() < 2 and np.isfinite(updates["loss"]).all()
        consumed = 20 * impala.agent.updates
        queued = impala.dataflow().node("queue").depth
        assert consumed + 20 * (queued + impala.samplers.in_flight()) >= impala.timesteps >= consumed
        assert impala.version % 3 == 0 and impala.version > 0
        workers = impala.workers()
        # a sampler acts with the weights handed to it as its last fragment came in, but its first two fragments can
        # come from its start-up (asked for when it was made; imports, the first calls) while its twins feed ~100
        # updates on this 2-core machine: from its third fragment on (> 40 env steps) it samples at their pace
        settled = workers["env_steps"] > 40
        assert workers["episodes"].sum() > 0 and workers["weights_behind"][settled].max() < 20
        asked = [steps > 0 or impala.samplers.in_flight(index) for index, steps in enumerate(workers["env_steps"])]
        assert all(asked)  # 3 samplers, a queue of 2: all are asked in turn (the last may still be starting)
    finally:
        impala.close()


RECURRENT = {**CONFIG, "policy": {"network": [{"type": "dense", "units": 16, "activation": "tanh"},
                                              {"type": "lstm", "units": 8}], "shared_value_function": True}}


def test_recurrent_impala_learns_on_ray_from_fragments_with_their_start_state(ray_session):
    agent = Agent.from_env("CartPole-v1", RECURRENT, backend="torch", seed=0)
    impala = PlanRun(IMPALA, agent, "CartPole-v1", {**SETTINGS, "workers": 2}, seed=0)
    try:
        impala.train(1500)
        updates = impala.updates
        assert impala.agent.recurrent and len(updates) == impala.agent.updates > 0
        assert (updates["rollout_steps"] == 20.0).all() and np.isfinite(updates["loss"]).all()
        fragment = ray.get(impala.samplers.actor(0).sample.remote(10), timeout=120)
        h, c = fragment.batch["internal_states"]
        assert h.shape == c.shape == (2, 8) and np.any(h)  # the state the envs went on with
    finally:
        impala.close()


def test_impala_trains_impala_agents_only(ray_session):
    with pytest.raises(ConfigError, match="the impala plan trains a impala agent"):
        PlanRun(IMPALA, Agent.from_env("CartPole-v1", {"type": "ppo"}), "CartPole-v1")


@pytest.mark.slow
@pytest.mark.parametrize("learners, budget", [
    pytest.param({}, 300_000, marks=pytest.mark.timeout(900), id="one_learner"),
    pytest.param({"learners": 2, "learner_cpus": 0.5}, 400_000, marks=pytest.mark.timeout(1800),
                 id="two_learner_ranks")])
def test_impala_on_two_workers_solves_cartpole(ray_session, learners, budget):
    """The shipped config (2 workers x 4 envs): a last-20 mean of 475 (about 50k steps, 15 s here); with 2 learner
    ranks, each learning from its own fragment of every pair taken from the queue, within 400,000 steps."""
    agent = Agent.from_env("CartPole-v1", "impala_cartpole", backend="torch", seed=0)
    impala = PlanRun(IMPALA, agent, "CartPole-v1", {"sampler_cpus": 0, **learners}, seed=0)
    try:
        recent = 0.0
        while impala.timesteps < budget and recent < 475:
            impala.train(impala.timesteps + 5000)
            recent = float(impala.episodes["return"].tail(20).mean())
        assert recent >= 475, (impala.timesteps, recent)
        assert builtin_config("impala_cartpole")["execution"]["ray"]["workers"] == 2
    finally:
        impala.close()


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_recurrent_impala_on_two_samplers_solves_masked_cartpole(ray_session):
    """The shipped impala_lstm_cartpole (2 samplers x 4 envs) on CartPole without velocities: a last-20 mean of 400
    within 1,000,000 env steps (measured here: about 200k-400k)."""
    agent = Agent.from_env(MASKED_CARTPOLE_ID, "impala_lstm_cartpole", backend="torch", seed=0)
    impala = PlanRun(IMPALA, agent, MASKED_CARTPOLE_ID, {"sampler_cpus": 0}, seed=0)
    try:
        best = 0.0
        while impala.timesteps < 1_000_000 and best < 400:
            impala.train(impala.timesteps + 10_000)
            best = max(best, float(impala.episodes["return"].tail(20).mean()))
        assert impala.agent.recurrent and best >= 400, (impala.timesteps, best)
    finally:
        impala.close()
