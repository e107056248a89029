"""Synchronous PPO on a real local Ray: two sampler actors of two envs each feed one learner; every update sees
both workers' rollouts, sampled with the newest weights; a sampler killed between iterations is replaced, handed
the weights and sampled again, and the run goes on."""

from __future__ import annotations

import numpy as np
import pytest
import ray

from rlworkbench.agents import Agent
from rlworkbench.errors import ConfigError
from rlworkbench.execution.ray import PlanRun
from rlworkbench.execution.ray.plans.sync_ppo import SYNC_PPO

CONFIG = {"type": "ppo", "policy": {"network": [{"type": "dense", "units": 16, "activation": "tanh"}]},
          "update": {"rollout_length": 16, "num_epochs": 2, "num_minibatches": 2}}
SETTINGS = {"workers": 2, "envs_per_worker": 2, "sampler_cpus": 0}


@pytest.fixture
def run(ray_session):
    agent = Agent.from_env("CartPole-v1", CONFIG, backend="torch", seed=0).build()
    ppo = PlanRun(SYNC_PPO, agent, "CartPole-v1", SETTINGS, seed=0)
    yield ppo
    ppo.close()


def assert_samplers_hold_the_learner_weights(ppo: PlanRun) -> None:
    learner = ppo.agent.get_weights(trainable_only=True)
    for index in range(2):
        held = ray.get(ppo.samplers.manager.actor(index).weights.remote())
        # an acting-only copy: the policy's weights, not the value network's (PPO's acting does not need it)
        assert held.keys() == {name for name in learner if not name.startswith("value_network/")}
        for name in held:
            np.testing.assert_array_equal(held[name], learner[name])


def test_iterations_gather_every_worker_and_broadcast_the_new_weights(run):
    before = run.agent.get_weights(trainable_only=True)
    for _ in range(3):
        run.step()
    assert run.agent.updates == 3 and run.version == 3
    history = run.updates
    assert history["timesteps_total"].tolist() == [64, 128, 192]  # 2 workers x 2 envs x 16 steps
    assert (history["rollout_steps"] == 64.0).all()  # one update on every worker's envs
    assert np.isfinite(history["loss"]).all() and run.book.num_episodes > 0
    assert (run.workers()["env_steps"] == 96).all() and (run.workers()["weights_behind"] == 0).all()
    after = run.agent.get_weights(trainable_only=True)
    assert any(not np.array_equal(after[name], before[name]) for name in before)
    assert_samplers_hold_the_learner_weights(run)


def test_a_killed_sampler_is_replaced_with_the_current_weights(run):
    run.step()
    ray.kill(run.samplers.manager.actor(1), no_restart=True)
    run.step()
    assert run.restarts == [0, 1]
    (failed,) = run.samplers.manager.errors
    assert failed.index == 1 and isinstance(failed.error, ray.exceptions.RayActorError)
    assert run.updates["rollout_steps"].tolist() == [64.0, 64.0]  # the replaced worker's rollout sampled again
    assert "spares_adopted" not in run.updates.columns  # no spare samplers: no spare columns
    assert run.workers()["last_error"][1] == "ActorDiedError: The actor died unexpectedly before finishing this task."
    assert_samplers_hold_the_learner_weights(run)


def test_a_spare_sampler_takes_a_killed_ones_place_with_its_index_and_the_current_weights(ray_session):
    agent = Agent.from_env("CartPole-v1", CONFIG, backend="torch", seed=0).build()
    ppo = PlanRun(SYNC_PPO, agent, "CartPole-v1", {**SETTINGS, "spare_samplers": 1}, seed=0)
    try:
        manager = ppo.samplers.manager
        (spare,) = manager.spares
        assert ray.get(spare.become.remote(*ppo.samplers._sampler_arguments(1))) == 1  # built; it can become one
        ppo.step()
        ray.kill(manager.actor(1), no_restart=True)
        ppo.step()
        assert ppo.restarts == [0, 1] and manager.adopted == 1
        assert manager.actor(1)._actor_id == spare._actor_id and len(manager.spares) == 1
        assert ppo.updates["rollout_steps"].tolist() == [64.0, 64.0]
        assert ppo.updates["spares_adopted"].tolist() == [0.0, 1.0]  # the run's counts, in the updates table
        assert ppo.updates["spares_lost"].tolist() == [0.0, 0.0]
        ppo.step()
        assert (ppo.workers()["env_steps"] == [96, 96]).all()  # the spare reports as sampler 1
        assert_samplers_hold_the_learner_weights(ppo)
    finally:
        ppo.close()
    with pytest.raises(ConfigError) as caught:  # a spare reserves its CPUs like a sampler
        PlanRun(SYNC_PPO, agent, "CartPole-v1", {**SETTINGS, "sampler_cpus": 1, "spare_samplers": 1}, seed=0)
    assert caught.value.key_path == "execution/ray/sampler_cpus" and "(2 + 1) x 1 = 3" in str(caught.value)


def test_only_ppo_agents_and_sane_worker_counts(ray_session):
    dqn = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch")
    with pytest.raises(ConfigError, match="the sync_ppo plan trains a ppo agent"):
        PlanRun(SYNC_PPO, dqn, "CartPole-v1")
    ppo = Agent.from_env("CartPole-v1", CONFIG, backend="torch")
    with pytest.raises(ConfigError, match="execution/ray/workers"):
        PlanRun(SYNC_PPO, ppo, "CartPole-v1", {"workers": 0})


LEARNER_GROUP = {"learners": 2, "learner_cpus": 0.5}  #: two ranks, each learning on half of the envs' rollouts


@pytest.mark.slow
@pytest.mark.parametrize("learners, budget", [
    pytest.param({}, 100_000, marks=pytest.mark.timeout(600), id="one_learner"),
    pytest.param(LEARNER_GROUP, 150_000, marks=pytest.mark.timeout(1200), id="two_learner_ranks")])
def test_sync_ppo_on_two_workers_solves_cartpole(ray_session, learners, budget):
    """The shipped PPO config on 2 workers x 4 envs: a last-20 mean return of 475 within 100,000 steps (about 35k
    steps and 20 s on this machine); with 2 learner ranks (each on 4 envs' rollouts) within 150,000 (~75 s)."""
    agent = Agent.from_env("CartPole-v1", "ppo_cartpole", backend="torch", seed=0).build()
    ppo = PlanRun(SYNC_PPO, agent, "CartPole-v1", {**SETTINGS, "envs_per_worker": 4, **learners}, seed=0)
    try:
        while ppo.timesteps < budget and not last_20_mean(ppo) >= 475.0:
            ppo.step()
        assert last_20_mean(ppo) >= 475.0, (ppo.timesteps, ppo.episodes.tail(20))
    finally:
        ppo.close()


def last_20_mean(algorithm) -> float:
    returns = algorithm.episodes["return"]
    return float(returns.tail(20).mean()) if len(returns) >= 20 else float("nan")
