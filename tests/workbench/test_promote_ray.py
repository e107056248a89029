"""``promote(..., to="ray")`` on a real local Ray: Ape-X for DQN and synchronous PPO behind the same Run as a local
run — live per-worker and shard tables, the run directory with health columns and TensorBoard scalars, a final
checkpoint that loads, stop() that frees the actors' CPUs, faults that the run survives or reports."""

from __future__ import annotations

import functools
import time

import numpy as np
import pytest
import ray

from rlworkbench.errors import ConfigError
from rlworkbench.execution.dataflow import EDGE_COLUMNS, read_dataflow
from rlworkbench.execution.ray import ActorHung
from rlworkbench.testing.faulty_env import EnvCrashed, FaultyEnv
from rlworkbench.workbench import promote
from tests.visualize.tb_helpers import read_events
from tests.workbench.run_helpers import small_dqn

FAST = {"workers": 2, "envs_per_worker": 2, "fragment_length": 25, "sampler_cpus": 0, "broadcast_every": 5,
        "weight_sync_steps": 100}


def dqn_run(tmp_path, timesteps: int = 2500, **settings):
    config = small_dqn(learning_starts=200)
    config["memory"] = {"type": "prioritized_replay", "capacity": 4000}
    return promote(config, to="ray", timesteps=timesteps, seed=0, logdir=tmp_path, **{**FAST, **settings})


def wait_until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_apex_run_trains_and_lays_out_its_run_directory(ray_session, tmp_path):
    run = dqn_run(tmp_path).wait(300)
    assert run.state == "finished" and run.timesteps >= 2500 and run.target == "ray"
    workers, shards = run.workers, run.shards
    assert workers.columns.tolist() == ["worker", "env_steps", "env_steps_per_s", "episodes", "recent_return",
                                        "restarts", "weights_behind", "last_error"]
    assert workers["env_steps"].sum() == run.timesteps and (workers["restarts"] == 0).all()
    assert shards["capacity"].tolist() == [2000, 2000] and (shards["fill"] > 0).all()
    learner = run.execution.agent.config  # replay lives in the shards: the learner's own memory is one batch
    assert learner["memory"]["capacity"] == 16 and learner["execution"]["ray"]["replay_capacity"] == 4000
    assert len(run.metrics) == workers["episodes"].sum() > 0
    updates = run.updates
    assert len(updates) > 50 and {"loss", "weights_behind", "replay_records", "replay_lost", "sampler_restarts",
                                  "shard_restarts"} <= set(updates.columns)
    assert (run.logdir / "updates.csv").read_text().splitlines()[0].count("replay_lost") == 1
    scalars = set(read_events(run.logdir).Tags()["scalars"])
    assert {"episode/return", "update/loss", "update/weights_behind", "update/replay_lost"} <= scalars
    agent = run.load_agent()
    assert agent.type_name == "dqn" and agent.updates == len(updates) and agent.timesteps == run.timesteps
    assert "target='ray'" in repr(run)
    written = read_dataflow(run.logdir)  # the plan's dataflow, for the runs panel: every actor, what flowed
    assert written.plan == "apex" and {"sampler 0", "sampler 1", "shard 0", "shard 1", "learner"} == {
        node.id for node in written.nodes}
    edges = run.dataflow()
    assert edges.columns.tolist() == list(EDGE_COLUMNS) and edges["bottleneck"].sum() == 1
    assert set(run.dataflow(nodes=True)["node"]) == {node.id for node in written.nodes}
    run.widget()
    run.view.refresh()  # the live view shows both tables
    assert "weights_behind" in run.view.tables.value and "capacity" in run.view.tables.value
    run.close()


def test_stop_ends_the_run_with_a_checkpoint_and_frees_the_actors(ray_session, tmp_path):
    total = ray.cluster_resources()["CPU"]
    run = dqn_run(tmp_path, timesteps=10**7, workers=1, sampler_cpus=1)
    wait_until(lambda: run.timesteps > 500)
    assert ray.available_resources().get("CPU", 0) <= total - 1  # the sampler holds its CPU
    run.stop()
    assert run.state == "stopped" and run.load_agent().timesteps == run.timesteps
    wait_until(lambda: ray.available_resources().get("CPU", 0) == total, timeout=30)
    second = promote("ppo_cartpole", to="ray", timesteps=1000, seed=0, logdir=tmp_path, **FAST).wait(300)
    assert second.state == "finished" and second.updates["rollout_steps"].eq(128.0).all()  # 2 x 2 envs x 32


def test_a_run_survives_killed_actors_and_counts_what_was_lost(ray_session, tmp_path):
    # room after the kills for updates that count them; a request that hangs after a kill is replaced in a minute
    run = dqn_run(tmp_path, timesteps=8000, hung_after=60)
    wait_until(lambda: run.shards is not None and run.shards["records"].min() > 300)
    apex = run.execution.algorithm
    ray.kill(apex.samplers.actor(1), no_restart=True)
    ray.kill(apex.replay.actor(0), no_restart=True)
    run.wait(300)
    assert run.state == "finished"
    hangs = [r.index for r in apex.samplers.manager.errors + apex.replay.manager.errors
             if isinstance(r.error, ActorHung)]  # none, unless Ray left a request unanswered: then replaced
    expected_restarts = 2 + len(hangs)
    assert run.workers["restarts"][1] >= 1 and run.shards["restarts"][0] >= 1
    assert run.workers["restarts"].sum() + run.shards["restarts"].sum() == expected_restarts, hangs
    lost = run.shards["lost"].sum()
    assert run.shards["lost"][0] > 300 and run.updates["replay_lost"].iloc[-1] == lost
    assert (run.updates["sampler_restarts"].iloc[-1] + run.updates["shard_restarts"].iloc[-1]) == expected_restarts
    assert run.workers["last_error"][1].startswith("ActorDiedError" if not hangs else ("ActorDiedError", "ActorHung"))
    gaps = run.updates["wall_time"].diff().dropna()
    assert gaps.max() < 5.0, gaps.max()  # the learner never stalled for more than a few seconds


def test_an_env_error_restarts_its_sampler_and_max_restarts_fails_the_run(ray_session, tmp_path):
    once = functools.partial(FaultyEnv, "CartPole-v1", fail_after=100, once_file=str(tmp_path / "crashed"))
    run = dqn_run(tmp_path, env=once).wait(300)
    assert run.state == "finished" and run.workers["restarts"].sum() == 1
    assert "EnvCrashed: injected crash at step 100" in "".join(run.workers["last_error"])
    always = functools.partial(FaultyEnv, "CartPole-v1", fail_after=100)
    failing = dqn_run(tmp_path, env=always, timesteps=10**6, max_restarts=1)
    with pytest.raises(EnvCrashed, match="injected crash at step 100"):
        failing.wait(300)
    assert failing.state == "failed" and "after 1 restarts" in "".join(failing.error.__notes__)


def test_types_without_a_distributed_algorithm_and_bad_settings_are_config_errors(ray_session, tmp_path):
    with pytest.raises(ConfigError, match="no distributed algorithm") as error:
        promote("sac_pendulum", to="ray", env="Pendulum-v1", logdir=tmp_path)
    assert error.value.key_path == "type" and "dqn (apex)" in str(error.value)
    with pytest.raises(ConfigError) as error:
        promote("dqn_cartpole", to="ray", workers=0, logdir=tmp_path)
    assert error.value.key_path == "execution/ray/workers"
    with pytest.raises(ConfigError) as error:  # 2 workers x 2 CPUs on a 2-CPU session would never start
        dqn_run(tmp_path, sampler_cpus=2).wait(60)  # (the session's CPUs are known once the run joined it)
    assert error.value.key_path == "execution/ray/sampler_cpus"
    with pytest.raises(ConfigError, match="unknown settings for the ray target"):
        promote("dqn_cartpole", to="ray", shardz=2, logdir=tmp_path)
    config = {**small_dqn(), "execution": {"ray": {"envs_per_worker": "four"}}}
    with pytest.raises(ConfigError) as error:
        promote(config, to="ray", logdir=tmp_path)
    assert error.value.key_path == "execution/ray/envs_per_worker"
    with pytest.raises(ConfigError) as error:  # a plan for another agent type, named in the call
        promote("dqn_cartpole", to="ray", plan="appo", logdir=tmp_path)
    assert error.value.key_path == "execution/ray/plan" and "impala agents" in str(error.value)


@pytest.mark.timeout(600)
def test_the_shipped_pong_config_runs_as_apex_on_atari_frames(ray_session, tmp_path):
    """``apex_pong`` shrunk to a smoke (its own sizes are for a big host): ALE Pong frames stacked by the env,
    grayscale / resize / uint8 in the agent's preprocessing, replay shards of preprocessed 84x84x4 uint8 states (a
    quarter of float32's bytes), the division by 255 in the network, convolutions."""
    from rlworkbench.agents.config import builtin_config
    from rlworkbench.execution.atari import atari_env

    config = builtin_config("apex_pong")
    config["memory"]["capacity"] = 400
    config["update"].update(batch_size=8, learning_starts=100)
    run = promote(config, to="ray", env=atari_env("Pong"), timesteps=400, seed=0, logdir=tmp_path, workers=1,
                  envs_per_worker=1, fragment_length=20, shards=1, sampler_cpus=0, max_updates_owed=20)
    run.wait(500)
    assert run.state == "finished" and run.timesteps >= 400 and len(run.updates) > 0
    assert run.shards["records"][0] > 100
    agent = run.execution.agent
    stored = agent.preprocessed_space.strip_ranks()
    assert stored.shape == (84, 84, 4) and stored.dtype == np.uint8
    assert agent.state_space.strip_ranks().shape == (210, 160, 4, 3)
    assert agent.get_weights()["memory/records/states"].dtype == np.uint8


def test_apex_on_tensorflow_and_with_the_learner_on_two_towers(ray_session, tmp_path):
    tf_run = dqn_run(tmp_path, timesteps=1500, backend="tf").wait(300)
    assert tf_run.state == "finished" and len(tf_run.updates) > 0 and tf_run.execution.agent.backend == "tf"
    assert (tf_run.shards["records"] > 0).all() and tf_run.load_agent().backend == "tf"
    towers = dqn_run(tmp_path, timesteps=1500, devices=["cpu", "cpu"]).wait(300)
    assert towers.state == "finished" and towers.devices == ["cpu", "cpu"] and len(towers.updates) > 0
    assert towers.execution.agent.devices == ["cpu", "cpu"]  # the learner updates on replica towers
