"""Resuming Ray runs on a real local Ray: a replay shard and then the driver of an Ape-X run are SIGKILLed mid-run
(the driver a process of its own, joined to this test run's Ray session) — its actors go with it, its record says
orphaned, and ``promote(resume=...)`` finishes it from its newest checkpoint, losing at most one checkpoint interval,
its shards holding the replay that checkpoint saved; IMPALA and synchronous PPO (also with a learner group of two
ranks) stopped and resumed from the Run go on with the same tables, step axis and record."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
import ray
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rlworkbench.execution.resume_points import newest_resume_point, resume_points
from rlworkbench.workbench import promote
from rlworkbench.workbench.run_records import read_records
from tests.workbench.run_helpers import small_dqn

FAST = {"workers": 1, "envs_per_worker": 2, "fragment_length": 25, "sampler_cpus": 1, "shards": 1,
        "broadcast_every": 5, "weight_sync_steps": 100}
IMPALA = {"type": "impala", "policy": {"network": [{"type": "dense", "units": 16, "activation": "tanh"}],
                                       "value_network": [{"type": "dense", "units": 16, "activation": "tanh"}]},
          "update": {"rollout_length": 10}}
EVERY_UPDATES = 50

DRIVER = """
import sys, time
from rlworkbench.workbench import promote
config, settings = {config!r}, {settings!r}
run = promote(config, to="ray", **settings)
while not run.done:
    time.sleep(0.5)
sys.exit(f"the run ended before it was killed: {{run.state}} {{run.error!r}}")
"""


def wait_until(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
    return value


def record_of(runs_dir: Path, name: str) -> dict | None:
    return next((r for r in read_records(runs_dir) if Path(r["logdir"]).name == name), None)


def others_alive() -> list[dict]:
    """Alive actors of other drivers than this test's, from the GCS's actor table (ray.util.state's list_actors
    reads the same through the dashboard, which this session runs without)."""
    mine = ray.get_runtime_context().get_job_id()
    table = ray._private.state.actors(actor_state_name="ALIVE")
    return [actor for actor in table.values() if actor["JobID"] != mine]


def saved_updates(checkpoint: Path) -> int:
    return json.loads((checkpoint / "agent.json").read_text())["counters"]["updates"]


def check_one_axis(run, resumed_at: int) -> None:
    """The tables of a resumed run: updates numbered without a gap or a repeat, env steps never going back, and
    rows on both sides of the resume."""
    updates, episodes = run.updates, run.metrics
    assert updates["update"].tolist() == list(range(len(updates)))
    assert updates["timesteps_total"].is_monotonic_increasing and episodes["timesteps_total"].is_monotonic_increasing
    assert (updates["timesteps_total"] <= resumed_at).any() and (updates["timesteps_total"] > resumed_at).any()
    written = pd.read_csv(run.logdir / "updates.csv")
    assert written["update"].tolist() == updates["update"].tolist()


@pytest.mark.timeout(400)
def test_a_killed_driver_leaves_no_actors_and_its_run_resumes(ray_session, tmp_path, monkeypatch):
    runs_dir, logdir = tmp_path / "records", tmp_path / "runs"
    config = small_dqn(learning_starts=200)
    config["memory"] = {"type": "prioritized_replay", "capacity": 4000}
    settings = {"env": "CartPole-v1", "timesteps": 10**7, "seed": 0, "logdir": str(logdir), "run_name": "killed",
                "checkpoint_every": f"{EVERY_UPDATES} updates", "address": ray.get_runtime_context().gcs_address,
                "save_replay": True, **FAST}
    script = tmp_path / "driver.py"
    script.write_text(textwrap.dedent(DRIVER.format(config=config, settings=settings)))
    total_cpus = ray.cluster_resources()["CPU"]
    env = {**os.environ, "RLWORKBENCH_RUNS_DIR": str(runs_dir)}
    driver = subprocess.Popen([sys.executable, str(script)], env=env, cwd=Path(__file__).parents[2],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        run_dir = logdir / "killed"
        # killed mid-interval: two checkpoints written, and updates made since the newest
        wait_until(lambda: len(resume_points(run_dir)) >= 2 or driver.poll() is not None, 240, "two checkpoints")
        assert driver.poll() is None, driver.stdout.read().decode()[-3000:]
        wait_until(lambda: (r := record_of(runs_dir, "killed")) and r["updates"] >= 5 + saved_updates(
            newest_resume_point(run_dir)), 60, "a record of updates past the newest checkpoint")
        assert ray.available_resources().get("CPU", 0) <= total_cpus - 1  # its sampler holds a CPU
        shard = next(actor for actor in others_alive() if actor["ActorClassName"].endswith("ReplayShard"))
        os.kill(int(shard["Pid"]), signal.SIGKILL)  # a shard dies right after a checkpoint that saved the replay
        driver.send_signal(signal.SIGKILL)  # and then the driver
        driver.wait(10)
    finally:
        if driver.poll() is None:
            driver.kill()
    seen = record_of(runs_dir, "killed")
    # its actors go with it (Ray's owner fate-sharing): none left alive, its CPUs free again
    wait_until(lambda: not others_alive(), 60, "the killed driver's actors to end")
    wait_until(lambda: ray.available_resources().get("CPU", 0) == total_cpus, 30, "the CPUs to be free")
    assert record_of(runs_dir, "killed")["state"] == "orphaned"

    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(runs_dir))
    checkpoint = newest_resume_point(run_dir)
    saved = json.loads((checkpoint / "progress.json").read_text())["timesteps"]
    run = promote(resume=str(run_dir), timesteps=saved + 1500, address=None)
    wait_until(lambda: run.state != "starting", 120, "the resumed run to train")
    replay = json.loads((checkpoint / "replay" / "shards.json").read_text())
    held = [ray.get(run.execution.algorithm.replay.actor(index).size.remote()) for index in range(replay["shards"])]
    assert all(now >= min(added, replay["capacity"]) > 0 for now, added in zip(held, replay["added"])), (held, replay)
    run.wait(300)
    assert run.state == "finished" and run.id == seen["id"] and run.logdir == run_dir and run.target == "ray"
    resumed = json.loads((run_dir / "run.json").read_text())["resumes"][-1]
    assert resumed["checkpoint"] == checkpoint.name and resumed["state_before"] == "orphaned"
    # what the crash cost, as far as the last record saw (it lags the driver by up to a beat, so the checkpoint
    # may even be newer than it): never more than one checkpoint interval
    assert resumed["timesteps_lost"] == max(0, seen["timesteps"] - saved)
    assert seen["updates"] - saved_updates(checkpoint) <= EVERY_UPDATES, (seen["updates"], saved_updates(checkpoint))
    check_one_axis(run, saved)
    # TensorBoard goes on as one line too: what the killed driver wrote past the checkpoint is dropped
    events = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    events.Reload()
    steps = [point.step for point in events.Scalars("update/loss")]
    assert steps == sorted(steps)
    assert [step for step in steps if step > saved] == [t for t in run.updates["timesteps_total"] if t > saved]
    # the replay ratio goes on over the whole run: the resumed learner does not owe the earlier part's updates again
    # (it did: it replayed a nearly empty replay for minutes while its samplers waited)
    plan_run, schedule = run.execution.algorithm, config["update"]
    assert plan_run.agent.updates - plan_run.first_update == len(run.updates)
    allowed = (plan_run.timesteps - schedule["learning_starts"]) // schedule["update_interval"] + 1
    assert len(run.updates) <= allowed * schedule["gradient_steps"], (len(run.updates), allowed)
    wait_until(lambda: record_of(runs_dir, "killed")["state"] == "finished", 10, "the final record")


LEARNER_GROUP = {"learners": 2, "learner_cpus": 0.5}


@pytest.mark.parametrize("prototype, settings", [("impala", {}), ("ppo", {}), ("ppo", LEARNER_GROUP)],
                         ids=["impala", "ppo", "ppo-learner-group"])
def test_impala_and_sync_ppo_stop_and_resume_from_the_run(ray_session, tmp_path, monkeypatch, prototype, settings):
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(tmp_path / "records"))
    config = IMPALA if prototype == "impala" else "ppo_cartpole"
    first = promote(config, to="ray", timesteps=10**6, seed=0, logdir=tmp_path, checkpoint_every=200,
                    workers=1, envs_per_worker=2, sampler_cpus=0, **settings)
    wait_until(lambda: first.timesteps > 400 or first.done, 120, "400 env steps")
    first.stop()
    assert first.state == "stopped", first.error
    stopped_at = first.timesteps
    second = first.resume(timesteps=stopped_at + 500)
    second.wait(300)
    assert second.state == "finished" and second.id == first.id and second.logdir == first.logdir
    assert second.timesteps >= stopped_at + 500
    check_one_axis(second, stopped_at)
    assert second.load_agent().updates == len(second.updates)


def test_a_live_run_or_a_folder_without_a_run_is_not_resumed(tmp_path):
    from rlworkbench.errors import CheckpointError, ConfigError

    with pytest.raises(ConfigError) as no_run:
        promote(resume=tmp_path)
    assert no_run.value.argument == "resume" and "run.json" in str(no_run.value)
    run = promote(small_dqn(), timesteps=10**6, logdir=tmp_path, seed=0)
    try:
        with pytest.raises(ConfigError, match="still going"):
            run.resume()
    finally:
        run.stop()
    (run.logdir / "checkpoints" / "final" / "progress.json").unlink()  # no checkpoint with progress left
    with pytest.raises(CheckpointError) as nothing:
        run.resume()
    assert nothing.value.argument == "resume" and "checkpoints" in str(nothing.value)
