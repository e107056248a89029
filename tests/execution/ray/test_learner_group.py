"""Data-parallel learner groups on a real local Ray: two ranks (gloo / MultiWorkerMirroredStrategy on CPU), each on
half of a batch, equal one learner on the whole batch — weights, optimizer state, losses and priorities — for DQN
with prioritised replay, PPO and IMPALA on both backends; every rank holds the same state; checkpoints cross
between a group and a single learner; the plans train with a group, a killed rank restarts the group (counted) and
the run goes on; a group that cannot form or be placed is a typed error, never a hang. (Learning with two ranks to
475 on CartPole: the slow tests of test_sync_ppo.py and test_impala.py, parametrized.)"""

from __future__ import annotations

import time

import numpy as np
import pytest
import ray

from rlworkbench.agents import Agent
from rlworkbench.errors import ConfigError
from rlworkbench.execution.ray import PlanRun
from rlworkbench.execution.ray.learner_group import LearnerGroup, split_rows
from rlworkbench.execution.ray.learner_rank import LearnerGroupError, LearnerRank
from rlworkbench.execution.ray.plans.apex import APEX
from rlworkbench.execution.ray.plans.impala import IMPALA
from rlworkbench.execution.ray.plans.sync_ppo import SYNC_PPO
from tests.strategies.multi_device_helpers import CONFIGS, NETWORK, largest_difference
from tests.strategies.multi_device_helpers import batch as replay_batch

PARITY_CONFIGS = {
    "dqn_per": CONFIGS["dqn_per"][1],
    # one minibatch per epoch: each rank's minibatch is its half of the single learner's (shuffled rows differ)
    "ppo": {"type": "ppo", "policy": {"network": NETWORK},
            "update": {"rollout_length": 8, "num_epochs": 2, "num_minibatches": 1}},
    "impala": {"type": "impala", "policy": {"network": NETWORK}, "update": {"rollout_length": 8}},
}


def sequences(seed: int, envs: int = 4, length: int = 8, behaviour: bool = False) -> dict[str, np.ndarray]:
    """An outside batch of CartPole-shaped sequences (PPO's and IMPALA's ``update(batch)``)."""
    rng = np.random.default_rng(seed)
    batch = {"states": rng.normal(size=(envs, length, 4)).astype(np.float32),
             "actions": rng.integers(0, 2, (envs, length)), "rewards": rng.normal(size=(envs, length)).astype(
                 np.float32), "terminals": rng.random((envs, length)) < 0.1,
             "next_states": rng.normal(size=(envs, length, 4)).astype(np.float32)}
    if behaviour:
        batch["behaviour_log_probs"] = np.log(0.5) + rng.normal(0, 0.1, (envs, length)).astype(np.float32)
    return batch


def make_agent(kind: str, backend: str, devices: list[str] | None = None) -> Agent:
    return Agent.from_env("CartPole-v1", PARITY_CONFIGS[kind], backend=backend, seed=3).build(devices=devices)


def one_update(learner, kind: str, seed: int):
    if kind == "dqn_per":
        return learner.update_with_priorities(replay_batch(64, seed=seed))
    return learner.update(sequences(seed, behaviour=kind == "impala")), None


@pytest.mark.parametrize("backend", ["torch", "tf"])
@pytest.mark.parametrize("kind", ["dqn_per", "ppo", "impala"])
def test_two_ranks_on_half_batches_equal_one_learner_on_the_whole_batch(ray_session, backend, kind):
    check_parity(kind, backend)


def test_towers_inside_ranks_make_four_replicas_of_one_learner(ray_session):
    """``learners=2, devices_per_learner=[d, d]``: each rank splits its half over 2 towers — still one learner."""
    check_parity("dqn_per", "torch", devices=["cpu", "cpu"])


def check_parity(kind: str, backend: str, devices: list[str] | None = None) -> None:
    single, mirror = make_agent(kind, backend), make_agent(kind, backend, devices)
    group = LearnerGroup(mirror, 2, devices=devices, cpus=0.5, timeout=60)
    try:
        assert ray.get([rank.devices.remote() for rank in group.ranks]) == [devices, devices]
        for seed in range(5):
            expected, expected_priorities = one_update(single, kind, seed)
            got, priorities = one_update(group, kind, seed)
            for name in ("loss", "grad_norm"):
                assert got[name] == pytest.approx(expected[name], abs=1e-5), (seed, name)
            if priorities is not None:
                np.testing.assert_allclose(priorities, expected_priorities, atol=1e-5)
        (first, first_counters), (second, second_counters) = group.rank_states()
        assert largest_difference(first, single.get_weights()) < 1e-5  # networks, optimizer slots and steps
        assert largest_difference(second, first) == 0.0  # the ranks agree exactly
        assert first_counters == second_counters and first_counters["updates"] == 5 == mirror.updates
        table = group.table()
        assert table["rank"].tolist() == [0, 1] and (table["updates"] == 5).all() and table["pid"].nunique() == 2
        assert (table["update_s"] > 0).all() and table["allreduce_s"].notna().all() == (backend == "torch")
    finally:
        group.close()


def test_checkpoints_cross_between_a_group_and_a_single_learner(ray_session, tmp_path):
    mirror = make_agent("ppo", "torch")
    group = LearnerGroup(mirror, 2, cpus=0.5, timeout=60)
    try:
        for seed in range(3):
            group.update(sequences(seed))
        group.sync_agent()
        mirror.save(tmp_path / "group")
        single = make_agent("ppo", "torch").load(tmp_path / "group")  # a group's checkpoint in a single learner
        assert single.updates == 3 and largest_difference(single.get_weights(), group.rank_states()[0][0]) == 0.0
        single.update(sequences(7))
        single.save(tmp_path / "single")
    finally:
        group.close()
    resumed = make_agent("ppo", "torch").load(tmp_path / "single")  # and a single learner's in a group
    group = LearnerGroup(resumed, 2, cpus=0.5, timeout=60)
    try:
        for (weights, counters) in group.rank_states():
            assert counters["updates"] == 4 and largest_difference(weights, single.get_weights()) == 0.0
        expected = single.update(sequences(8))
        assert group.update(sequences(8))["loss"] == pytest.approx(expected["loss"], abs=1e-5)
    finally:
        group.close()


def test_batches_split_into_equal_shares_or_a_config_error():
    parts = split_rows({"x": np.arange(8).reshape(4, 2), "nested": (np.arange(4), np.zeros((4, 3)))}, 2)
    np.testing.assert_array_equal(parts[1]["x"], [[4, 5], [6, 7]])
    np.testing.assert_array_equal(parts[0]["nested"][0], [0, 1])
    with pytest.raises(ConfigError, match="equal shares") as caught:
        split_rows({"x": np.arange(5)}, 2)
    assert caught.value.key_path == "execution/ray/learners"


SMALL_PPO = {"type": "ppo", "policy": {"network": [{"type": "dense", "units": 16, "activation": "tanh"}]},
             "update": {"rollout_length": 16, "num_epochs": 2, "num_minibatches": 2}}
GROUP = {"workers": 2, "envs_per_worker": 2, "sampler_cpus": 0, "learners": 2, "learner_cpus": 0.5}


def test_sync_ppo_with_a_learner_group_survives_a_killed_rank(ray_session):
    agent = Agent.from_env("CartPole-v1", SMALL_PPO, backend="torch", seed=0).build()
    run = PlanRun(SYNC_PPO, agent, "CartPole-v1", {**GROUP, "learner_checkpoint_every": 2}, seed=0)
    try:
        for _ in range(3):
            run.step()
        assert agent.updates == 3 and run.learners()["updates"].tolist() == [3, 3]
        assert (run.updates["rollout_steps"] == 32.0).all()  # each rank: half of 2 workers x 2 envs x 16 steps
        assert run.updates["allreduce_s"].gt(0).all()
        nodes = run.dataflow().nodes_frame()
        assert {"learner rank 0", "learner rank 1"} <= set(nodes["node"])
        ray.kill(run.learner.ranks[1], no_restart=True)
        run.step()  # the update is lost, the group restarts from the snapshot at update 2
        assert run.learner.restarts == 1 and run.learner.updates_lost == 1 and agent.updates == 2
        run.train(run.timesteps + 3 * 64)
        assert agent.updates == 5
        last = run.updates.iloc[-1]
        assert last["learner_restarts"] == 1.0 and last["learner_updates_lost"] == 1.0
        states = run.learner.rank_states()
        assert largest_difference(states[0][0], states[1][0]) == 0.0
        run.sync_agent()  # the samplers act with rank 0's weights
        held = ray.get(run.samplers.manager.actor(0).weights.remote())
        mine = agent.get_weights(trainable_only=True)
        assert all(np.array_equal(held[name], mine[name]) for name in held)
    finally:
        run.close()


def test_impala_and_apex_train_with_a_learner_group(ray_session):
    impala = Agent.from_env("CartPole-v1", {"type": "impala", "policy": {"network": NETWORK},
                                            "update": {"rollout_length": 8}}, backend="torch", seed=0).build()
    run = PlanRun(IMPALA, impala, "CartPole-v1", GROUP, seed=0)
    try:
        run.train(200)
        assert impala.updates > 0 and (run.updates["rollout_steps"] == 16.0).all()  # one fragment per rank
    finally:
        run.close()
    dqn_config = {**CONFIGS["dqn_per"][1], "update": {"batch_size": 16, "learning_starts": 64, "update_interval": 4,
                                                       "gradient_steps": 1}}
    dqn = Agent.from_env("CartPole-v1", dqn_config, backend="torch", seed=0).build()
    run = PlanRun(APEX, dqn, "CartPole-v1", {**GROUP, "shards": 1, "fragment_length": 16}, seed=0)
    try:
        run.train(500)
        for _ in range(20):  # the shard's first request loads its compiled sum tree (~1 s): 500 steps may pass first
            if dqn.updates > 0:
                break
            run.train(run.timesteps + 250)
        assert dqn.updates > 0 and np.isfinite(run.updates["loss"]).all()
        assert run.dataflow().edges_frame().query("carries == 'Priorities'")["items"].sum() == 32 * dqn.updates
    finally:
        run.close()


def test_a_rank_whose_group_cannot_form_is_a_typed_error_naming_it(ray_session):
    lonely = ray.remote(LearnerRank).options(num_cpus=0).remote(0, 2, "torch")
    try:
        address = ray.get(lonely.where.remote())["address"]
        started = time.perf_counter()
        with pytest.raises(LearnerGroupError) as caught:
            try:
                ray.get(lonely.join.remote([address, "127.0.0.1:9"], 3.0), timeout=60)
            except ray.exceptions.RayTaskError as error:
                raise error.as_instanceof_cause() from None
        assert time.perf_counter() - started < 45
        assert "rank 0" in str(caught.value) and address in str(caught.value)
    finally:
        ray.kill(lonely)


def test_ranks_that_cannot_be_placed_are_a_typed_error(ray_session):
    agent = make_agent("ppo", "torch")
    with pytest.raises(LearnerGroupError, match="could not be placed") as caught:
        LearnerGroup(agent, 2, cpus=0.5, placement="strict_spread", timeout=3)  # one node here
    assert caught.value.key_path == "execution/ray/learner_placement"
    with pytest.raises(ConfigError) as caught:
        PlanRun(SYNC_PPO, agent, "CartPole-v1", {**GROUP, "learner_cpus": 2}, seed=0)
    assert caught.value.key_path == "execution/ray/learner_cpus"
    with pytest.raises(ConfigError) as caught:
        PlanRun(SYNC_PPO, agent, "CartPole-v1", {**GROUP, "learners": 0}, seed=0)
    assert "learners" in str(caught.value)

