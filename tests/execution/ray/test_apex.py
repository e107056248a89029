"""Ape-X on a real local Ray: samplers with the paper's epsilons prioritise their own n-step transitions and send
them to replay shards; the learner keeps the config's replay ratio and broadcasts weights. (Killed samplers and
shards, envs that raise: tests/workbench/test_promote_ray.py, on whole runs.)"""

from __future__ import annotations

import json
import re
import time

import numpy as np
import pandas as pd
import pytest
import ray

from rlworkbench.agents import Agent
from rlworkbench.errors import ConfigError
from rlworkbench.execution.ray import PlanRun
from rlworkbench.execution.ray.apex_sampler import ApexSampler
from rlworkbench.execution.ray.plans.apex import APEX, apex_epsilon
from rlworkbench.execution.ray.replay_shard import ReplayShard, transition_space
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox

CONFIG = {"type": "dqn", "policy": {"network": [{"type": "dense", "units": 32, "activation": "relu"}]},
          "loss": {"n_step": 3}, "discount": 0.9,
          "memory": {"type": "prioritized_replay", "capacity": 4000, "alpha": 0.6, "beta": 0.4},
          "update": {"batch_size": 32, "learning_starts": 200, "update_interval": 4, "gradient_steps": 1},
          "target": {"sync_interval": 20, "tau": 1.0}}
SETTINGS = {"workers": 2, "envs_per_worker": 2, "fragment_length": 25, "shards": 2, "broadcast_every": 5,
            "weight_sync_steps": 100, "sampler_cpus": 0}


def make_apex(backend: str = "torch", **settings) -> PlanRun:
    agent = Agent.from_env("CartPole-v1", CONFIG, backend=backend, seed=0)
    return PlanRun(APEX, agent, "CartPole-v1", {**SETTINGS, **settings}, seed=0)


def test_the_papers_epsilons_per_sampler_and_samplers_store_nothing():
    assert apex_epsilon(0, 1) == 0.4
    assert [apex_epsilon(i, 8) for i in (0, 7)] == pytest.approx([0.4, 0.4 ** 8])
    assert apex_epsilon(1, 3) == pytest.approx(0.4 ** 4.5)


@pytest.mark.parametrize("backend", ["torch", "tf"])
def test_a_sampler_sends_n_step_transitions_with_its_own_priorities(ray_session, backend):
    """In-process sampler, real shard actor: rewards are n-step sums, and the shard draws by exactly the
    priorities the sampler's agent gives these transitions (alpha = beta = 1: weight_i = p_min / p_i)."""
    agent = Agent.from_env("CartPole-v1", CONFIG, backend=backend, seed=0).build()
    space = agent.preprocessed_space.strip_ranks()
    records = Dict(states=space, actions=IntBox(2), rewards=FloatBox(), terminals=BoolBox(), next_states=space,
                   add_batch_rank=True)
    shard = ray.remote(num_cpus=0)(ReplayShard).remote(records, 1000, alpha=1.0, beta=1.0, backend=backend, seed=0)
    try:
        config = {**CONFIG, "exploration": {"epsilon": 0.4}}
        sampler = ApexSampler(0, config, "CartPole-v1", 2, backend, seed=3,
                              weights=agent.get_weights(trainable_only=True), shards=[shard])
        report = sampler.sample(40)
        assert report.timesteps == 80 and report.shard == 0 and 0 < report.records <= 80
        assert report.bytes > report.records * 4 * 4 * 2  # states and next states of 4 floats, and more
        assert ray.get(shard.size.remote()) == report.records
        batch, _, weights = ray.get(shard.sample.remote(300))
        n_step_sums = {1.0, 1.9, 2.71}  # 1, 1 + 0.9, 1 + 0.9 + 0.81: n = 3 or shorter at a terminal
        assert {round(float(r), 4) for r in batch["rewards"]} <= n_step_sums
        assert np.isclose(batch["rewards"], 2.71, atol=1e-4).mean() > 0.5  # most are full 3-step returns
        priorities = sampler.agent.priorities({k: batch[k] for k in ("states", "actions", "rewards", "terminals",
                                                                      "next_states")})
        products = priorities * weights
        np.testing.assert_allclose(products, products.max(), rtol=1e-4)
    finally:
        ray.kill(shard)


def test_a_shard_refuses_indices_and_priorities_that_would_spoil_it_and_keeps_what_it_held():
    """In-process shard: what the learner or a sampler sends is checked before anything is written (a diverged
    learner's NaN priority, an index from another shard's sample)."""
    from rlworkbench.errors import SpaceError
    from rlworkbench.execution.ray.flow_types import Transitions

    space = Dict(states=FloatBox(shape=(4,)), actions=IntBox(2), rewards=FloatBox(), terminals=BoolBox(),
                 next_states=FloatBox(shape=(4,)), add_batch_rank=True)
    shard = ReplayShard(space, 100, seed=0)
    shard.add(Transitions(space.sample(10, seed=0), np.ones(10, np.float32)))
    before = shard.state()[0]
    for indices, priorities in (([3, 100], [1.0, 1.0]), ([-1], [1.0]), ([1, 2], [0.5, np.nan]), ([4], [np.inf]),
                                ([5], [0.0])):
        with pytest.raises(SpaceError):
            shard.update_priorities(np.asarray(indices), np.asarray(priorities, np.float32))
    with pytest.raises(SpaceError) as refused:
        shard.add(Transitions(space.sample(2, seed=1), np.asarray([1.0, -2.0], np.float32)))
    assert (refused.value.api_method, refused.value.argument) == ("insert_records_with_priorities", "priorities")
    after, added = shard.state()
    assert added == 10 and shard.size() == 10
    assert all(np.array_equal(after[name], value) for name, value in before.items())


def test_a_sampler_preprocesses_each_observation_once(ray_session):
    """Acting and recording share the preprocessed form: one preprocessor call per step (the next states), plus
    one per step after a reset (where the acting states are new), not three."""
    config = {**CONFIG, "preprocessing": [{"type": "multiply", "factor": 2.0}], "exploration": {"epsilon": 0.4}}
    sampler = ApexSampler(0, config, "CartPole-v1", 2, "torch", seed=3, shards=[])
    calls, preprocess = [], sampler.agent.api.preprocess

    def counted(states):
        calls.append(len(np.asarray(states)))
        return preprocess(states)

    sampler.agent.api.preprocess = counted
    steps = 40
    sampler.run_steps(steps)
    assert steps <= len(calls) < 1.5 * steps, len(calls)  # three per step before
    batch = sampler.recorder.take()
    angles = batch["next_states"][:, 2]  # recorded next states are the preprocessed (doubled) ones
    assert np.abs(angles).max() > 0.21 and np.all(np.abs(angles / 2.0) < 0.25)  # beyond the limit only doubled


def test_apex_learns_at_the_configs_replay_ratio_and_broadcasts(ray_session):
    apex = make_apex()
    try:
        epsilons = [apex.sampler_config(i)["exploration"]["epsilon"] for i in range(2)]
        assert epsilons == pytest.approx([0.4, 0.4 ** 8])
        assert apex.sampler_config(0)["memory"] == {"type": "replay_memory", "capacity": 32, "priority_epsilon": 1e-6}
        apex.train(3000)
        updates = apex.updates
        owed = (apex.timesteps - 200) // 4 + 1
        assert 0 < apex.agent.updates <= owed and len(updates) == apex.agent.updates
        assert np.isfinite(updates["loss"]).all()
        assert apex.version > 0 and apex.version % 5 == 0  # broadcast every 5 updates
        workers = apex.workers()
        assert workers["env_steps"].sum() == apex.timesteps >= 3000
        assert (workers["restarts"] == 0).all() and (workers["episodes"] > 0).all()
        assert apex.book.num_episodes == workers["episodes"].sum()
        shards = apex.shards()
        assert shards["capacity"].tolist() == [2000, 2000] and (shards["records"] > 0).all()
        held = sum(ray.get([apex.replay.manager.actor(i).size.remote() for i in range(2)]))
        # fragments under way: 2 envs x (25 steps + up to 2 pending n-step transitions completed in them)
        reported, unreported = shards["records"].sum(), apex.samplers.in_flight() * 2 * (25 + 2)
        assert reported <= held <= reported + unreported  # the shards hold what the samplers reported (and sent)
        assert apex.agent.timesteps == apex.timesteps
    finally:
        apex.close()


def test_a_shard_that_stops_answering_does_not_hold_the_samplers(ray_session):
    """Samplers wait while the learner owes more than ``max_updates_owed`` updates — but only while the shards
    answer: a shard whose requests hang (until ``hung_after`` replaces it) must not stop sampling."""

    class StuckShard(ReplayShard):  # (local: the actor's class travels by value)
        """A shard whose sampling never answers (it stores what it is sent)."""

        def sample(self, num_records: int):
            time.sleep(600)

    apex = make_apex(workers=1, shards=1, max_updates_owed=5)
    stuck = ray.remote(num_cpus=0, max_restarts=0)(StuckShard).remote(
        transition_space(apex.agent), apex.replay.capacity, backend="torch", seed=1)
    try:
        apex.train(600)
        assert apex.agent.updates > 0
        answering = apex.replay.actor(0)
        apex.replay.manager.slots[0].actor = stuck  # its requests under way still come back from the old one
        apex.samplers.each(ApexSampler.set_shards, apex.replay.handles())
        hung_at, started = apex.timesteps, time.monotonic()
        while apex.timesteps < hung_at + 1000 and time.monotonic() - started < 60:
            apex.step()
        assert apex.timesteps >= hung_at + 1000, (apex.timesteps, hung_at)  # sampling went on
        assert apex.replay.manager.waiting(0) >= 10.0 and apex.replay.manager.restarts == [0], apex.replay.errors
        assert re.search(r"shard requests under way \(the oldest for \d+ s\)", apex.under_way())
        ray.kill(answering)
    finally:
        apex.close()


def test_priorities_a_shard_would_refuse_are_not_sent_and_are_counted(ray_session):
    """An update the guard refused has NaN TD errors: those priorities stay home (the records keep their old ones),
    the rest of the batch's reach the shard's tree, and the updates table counts what was dropped."""
    apex = make_apex(workers=1, shards=1)
    learn, spoiled = apex.agent.update_with_priorities, []

    def diverging(batch):
        metrics, priorities = learn(batch)
        if not spoiled:  # one update's priorities: a NaN, an infinity and a zero among finite ones
            priorities = priorities.copy()
            priorities[:3] = [np.nan, np.inf, 0.0]
            spoiled.append(batch)
        return metrics, priorities

    apex.agent.update_with_priorities = diverging
    try:
        apex.train(1500)
        assert spoiled and apex.agent.updates > 5
        assert apex.updates["priorities_dropped"].iloc[-1] == 3.0
        tree = _sum_tree(apex.replay.actor(0))
        assert np.isfinite(tree).all() and tree[1] > 0
        # a batch drawn now, with three priorities the shard would refuse: the others reach its tree
        apex.replay.request(1)
        deadline, batches = time.monotonic() + 60, []
        while not batches and time.monotonic() < deadline:
            batches = apex.replay.ready(timeout=1.0)
        drawn = batches[0]
        priorities = np.full(len(drawn.indices), 0.37, np.float32)
        priorities[:3] = [np.nan, np.inf, 0.0]
        before = _sum_tree(drawn.actor)
        apex.replay.send_priorities(drawn, priorities)
        after, leaves = _sum_tree(drawn.actor), len(before) // 2  # (calls from here to a shard arrive in order)
        np.testing.assert_allclose(after[leaves + drawn.indices[3:]], 0.37 ** 0.6, rtol=1e-5)
        refused_only = sorted(set(drawn.indices[:3].tolist()) - set(drawn.indices[3:].tolist()))
        np.testing.assert_array_equal(after[leaves + np.array(refused_only, int)],
                                      before[leaves + np.array(refused_only, int)])
        assert apex.replay.priorities_dropped == 6
    finally:
        apex.close()


def _sum_tree(shard) -> np.ndarray:
    variables, _ = ray.get(shard.state.remote())
    return next(value for name, value in variables.items() if name.endswith("sum_tree/tree"))


def test_apex_trains_dqn_agents_only(ray_session):
    ppo = Agent.from_env("CartPole-v1", {"type": "ppo"}, backend="torch")
    with pytest.raises(ConfigError, match="the apex plan trains a dqn agent"):
        PlanRun(APEX, ppo, "CartPole-v1")
    with pytest.raises(ConfigError) as bad:
        make_apex(shards=0)
    assert bad.value.key_path == "execution/ray/shards"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_apex_on_two_workers_solves_cartpole(ray_session):
    """The shipped DQN config as Ape-X (2 workers x 4 envs): the learner's greedy policy scores 475 over 5
    evaluation episodes within 100,000 steps (about 15k steps and 25 s here). The samplers' own returns stay
    lower: one of them explores with epsilon 0.4."""
    agent = Agent.from_env("CartPole-v1", "dqn_cartpole", backend="torch", seed=0)
    apex = PlanRun(APEX, agent, "CartPole-v1", {"workers": 2, "envs_per_worker": 4, "sampler_cpus": 0}, seed=0)
    try:
        score = 0.0
        while apex.timesteps < 100_000 and score < 475:
            apex.train(apex.timesteps + 5000)
            score = float(apex.evaluate(5)["return"].mean())
        assert score >= 475, (apex.timesteps, score)
    finally:
        apex.close()


def test_records_sent_to_a_replaced_shard_count_as_lost_and_hold_back_no_checkpoint(ray_session, tmp_path):
    """A sampler hears of a replaced shard's successor only after its fragment under way went to the dead one: the
    report names the shard's generation, so those records count as lost, and a checkpoint does not wait for them."""
    import warnings

    from rlworkbench.execution.ray.flow_types import EpisodeEnds, SampleReport

    run = make_apex(save_replay=True, workers=1)
    try:
        run.train(600)
        ray.kill(run.replay.actor(0), no_restart=True)
        run.train(run.timesteps + 1200)  # the learner's next request to it fails: replaced, samplers told
        assert run.replay.manager.restarts == [1, 0] and run.replay.generations() == [1, 0]
        lost, sent = run.replay.lost[0], run.replay.sent[0]
        run.replay.stored(SampleReport(0, 0, 0, EpisodeEnds(), records=50, shard=0, shard_generation=0))
        assert (run.replay.lost[0], run.replay.sent[0]) == (lost + 50, sent)
        run.replay.stored(SampleReport(0, 0, 0, EpisodeEnds(), records=0, shard=0, shard_generation=1))
        assert run.replay.sent[0] == sent  # the successor's own reports count as sent
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # nothing is missing: no wait, no warning
            run.save_state(tmp_path)
        assert json.loads((tmp_path / "replay" / "shards.json").read_text())["missing"] == [0, 0]
    finally:
        run.close()


def saved_shard(folder, index: int) -> dict[str, np.ndarray]:
    with np.load(folder / "replay" / f"shard_{index}.npz", allow_pickle=False) as arrays:
        return {name: arrays[name] for name in arrays.files}


def memory_size(variables: dict[str, np.ndarray]) -> int:
    return int(next(value for name, value in variables.items() if name.rsplit("/", 1)[-1] == "size"))


def test_a_checkpoint_with_save_replay_puts_every_shards_records_and_priorities_back(ray_session, tmp_path,
                                                                                     monkeypatch):
    """What the checkpoint wrote is what a new run's shards hold after restore_state. The checkpoint holds every
    record the samplers reported: a report reaches the learner before its shard adds the records (here 20 of them
    arrive 2 s late), and the save waits for them; records that never come are saved without, and said."""
    import threading

    from rlworkbench.errors import CheckpointError
    from rlworkbench.execution.ray.flow_types import EpisodeEnds, SampleReport, Transitions
    from rlworkbench.execution.ray.ops import replay as replay_module

    def reported(records: int, shard: int) -> SampleReport:
        return SampleReport(0, 0, 0, EpisodeEnds(), records=records, shard=shard)

    run = make_apex(save_replay=True, workers=1)
    try:
        run.train(800)
        assert run.replay.await_reported(60) == [0, 0]  # a shard can start late: its records queue until it is up
        shard = run.replay.actor(1)
        records, _, _ = ray.get(shard.sample.remote(20))
        late = threading.Timer(2.0, lambda: shard.add.remote(Transitions(records, np.ones(20, np.float32))))
        late.start()
        run.replay.stored(reported(20, shard=1))  # the report came first
        run.save_state(tmp_path)
        late.join()
        with pytest.raises(ray.exceptions.RayTaskError, match="priorit"):  # refused: it arrived, and is not held
            ray.get(shard.add.remote(Transitions(records, np.full(20, np.nan, np.float32))))
        run.replay.stored(reported(20, shard=1))
        assert run.replay.await_reported(5.0) == [0, 0]
        run.replay.stored(reported(1000, shard=0))  # lost with its sampler: saved without, and said
        monkeypatch.setattr(replay_module, "RECEIVE_WAIT_S", 0.5)
        with pytest.warns(RuntimeWarning, match="still lack records"):
            run.save_state(tmp_path / "short")
        short = json.loads((tmp_path / "short" / "replay" / "shards.json").read_text())["missing"]
        assert short[0] > 900 and short[1] == 0, short  # (a fragment still under way when train() returned may come)
    finally:
        run.close()
    about = json.loads((tmp_path / "replay" / "shards.json").read_text())
    written = sum((tmp_path / "replay" / f"shard_{index}.npz").stat().st_size for index in range(2))
    assert about["bytes"] == written and about["shards"] == 2  # its size, stated
    assert about["missing"] == [0, 0] and all(a >= s for a, s in zip(about["added"], about["sent"])), about
    saved = [saved_shard(tmp_path, index) for index in range(2)]
    sizes = [memory_size(variables) for variables in saved]
    assert min(sizes) > 0, sizes
    again = make_apex(workers=1)  # a new run: its shards start empty until the checkpoint's replay is put back
    try:
        assert [ray.get(again.replay.actor(i).size.remote()) for i in range(2)] == [0, 0]
        again.restore_state(tmp_path)
        assert [ray.get(again.replay.actor(i).size.remote()) for i in range(2)] == sizes
        for index in range(2):
            restored = ray.get(again.replay.actor(index).state.remote())[0]
            assert all(np.array_equal(restored[name], value) for name, value in saved[index].items())  # priorities too
        assert again.replay.sent == about["added"] and again.shards()["records"].tolist() == sizes
        assert again.replay.await_reported(5.0) == [0, 0]  # the restored records count as received
        about["capacity"] //= 2  # saved by shards of another size (a run resumed with other settings)
        (tmp_path / "replay" / "shards.json").write_text(json.dumps(about))
        with pytest.raises(CheckpointError) as mismatch:
            again.restore_state(tmp_path)
        assert mismatch.value.key_path == "replay" and "2 shards of 1000 records" in str(mismatch.value)
    finally:
        again.close()


def test_a_resumed_run_counts_restarts_and_losses_on_from_its_earlier_part(ray_session):
    """Restarts and records lost are the run's, not its driver's: a resumed part adds to the counts its checkpoint
    ended with (they read zero again after a driver was killed and resumed). A count an earlier part did not keep
    (it ran without spare samplers) goes on from the last part that did."""
    from rlworkbench.execution.metrics import EPISODE_COLUMNS
    from rlworkbench.execution.progress import Progress

    apex = make_apex(workers=1, shards=1, spare_samplers=1)
    try:
        counts = {"sampler_restarts": 3.0, "shard_restarts": 1.0, "replay_lost": 120.0}
        earlier = pd.DataFrame([{"update": 0, "timesteps_total": 300, "wall_time": 2.0, "loss": 0.5, **counts,
                                 "spares_adopted": 2.0},  # a part with a spare sampler
                                {"update": 1, "timesteps_total": 400, "wall_time": 3.0, "loss": 0.4, **counts,
                                 "spares_adopted": np.nan}])  # then one without
        apex.restore_progress(Progress(400, 3.0, pd.DataFrame(columns=list(EPISODE_COLUMNS)), earlier))
        apex.train(1000)
        later = apex.updates.iloc[2:]
        assert len(later) > 0 and later["update"].tolist() == list(range(2, len(later) + 2))
        assert (later["sampler_restarts"] == 3.0).all() and (later["shard_restarts"] == 1.0).all()
        assert (later["replay_lost"] == 120.0).all() and (later["spares_adopted"] == 2.0).all()
        assert (later["spares_lost"] == 0.0).all()  # never counted before: from zero
    finally:
        apex.close()
