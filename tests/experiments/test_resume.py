"""An experiment outlives the notebook that started it: its driver's process is killed mid-sweep, a new process
attaches to it by name (``orphaned``), and ``resume()`` goes on from the trials' checkpoints into the same run
directories — tables continued without duplicates or gaps, every trial to its budget."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
from experiment_helpers import wait_until

from rlworkbench.workbench.experiments import Experiment

BUDGET = 6000
DRIVER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {helpers!r})
    from experiment_helpers import small_dqn
    from ray import tune
    from rlworkbench.workbench.experiments import sweep
    sweep(small_dqn(), space={{"optimizer/learning_rate": tune.loguniform(3e-4, 3e-3)}}, seeds=1, trials=2,
          budget={budget}, report_every=300, env="CartPole-v1", logdir={logdir!r}, name="outlives",
          address={address!r})
    time.sleep(600)  # the notebook goes on with other cells; it is killed meanwhile
""")


def _results(records_path):
    if not records_path.exists():
        return []
    return [record for record in map(json.loads, records_path.read_text().splitlines())
            if record["kind"] == "result"]


def test_an_orphaned_experiment_is_attached_and_resumed_from_its_checkpoints(ray_session, tmp_path):
    import ray

    script = DRIVER.format(helpers=os.path.dirname(__file__), budget=BUDGET, logdir=str(tmp_path),
                           address=ray.get_runtime_context().gcs_address)
    notebook = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    records = tmp_path / "outlives" / "records.jsonl"
    try:
        wait_until(lambda: len({r["trial"] for r in _results(records) if r["timesteps"] >= 900}) == 2, 240,
                   "three results of both trials")
        time.sleep(3.0)  # Tune notes the newest trial checkpoints in its state every 2 s
    finally:
        notebook.send_signal(signal.SIGKILL)  # the kernel dies: no stop, no final checkpoint
        notebook.wait(30)
    reached = {r["trial"]: r["timesteps"] for r in _results(records)}
    assert all(timesteps < BUDGET for timesteps in reached.values())

    experiment = Experiment.attach("outlives", logdir=tmp_path)
    wait_until(lambda: experiment.state == "orphaned", 30, "the experiment to be seen orphaned")
    assert set(experiment.trials["trial"]) == set(reached)
    experiment.resume()
    experiment.wait(timeout=400)
    assert experiment.state == "finished" and set(experiment.trials["state"]) == {"finished"}
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert [r["state"] for r in lines if r["kind"] == "experiment"] == ["running", "running", "finished"]
    for trial in reached:
        run_dir = experiment.run_dir(trial, 0)
        resumed = sorted(run_dir.glob("checkpoints/resume-*"))
        assert resumed and 0 < int(resumed[-1].name.split("-")[1]) <= reached[trial]  # from a checkpoint, not 0
        episodes = pd.read_csv(run_dir / "episodes.csv")
        assert episodes["episode"].tolist() == list(range(len(episodes)))  # no duplicate, no gap
        assert episodes["timesteps_total"].is_monotonic_increasing
        assert episodes["wall_time"].is_monotonic_increasing
        assert episodes["timesteps_total"].max() > BUDGET - 500
        config = json.loads((run_dir / "run.json").read_text())
        assert config["labels"]["trial"] == trial


def test_a_trial_checkpoint_half_deleted_gives_way_to_the_newest_whole_one_before_it(tmp_path):
    """What a resume restores when Tune was deleting the checkpoint its lagging state names as the driver died:
    the newest whole checkpoint before it (never a newer one: Tune's counts stand at the named one)."""
    import pytest

    from rlworkbench.errors import CheckpointError
    from rlworkbench.execution.resume_points import save_resume_point
    from rlworkbench.workbench.experiments.trial import TRIAL_FILE, whole_checkpoint
    from tests.execution.test_resume_points import TinyAgent, progress_at

    def checkpoint(number: int):
        folder = tmp_path / f"checkpoint_{number:06d}"
        for seed in (0, 1):
            save_resume_point(TinyAgent(), folder / f"seed_{seed}", progress_at(100 * number))
        (folder / TRIAL_FILE).write_text(json.dumps({"trial": "t0", "params": {}, "timesteps": 100 * number}))
        return folder

    first, second, named, newer = (checkpoint(number) for number in (1, 2, 3, 4))
    assert whole_checkpoint(named, seeds=[0, 1]) == (named, "t0", {}, 300)  # the folder and its trial.json
    (named / TRIAL_FILE).unlink()  # Tune's rmtree got that far
    assert whole_checkpoint(named, seeds=[0, 1]).folder == second
    (second / "seed_1" / "agent.json").unlink()  # a seed's checkpoint half gone
    assert whole_checkpoint(named, seeds=[0, 1]).folder == first
    assert whole_checkpoint(second, seeds=[0]).folder == second  # (seed 1 is not this plan's)
    for written in ('{"trial": "t0", "params": {}}', '{"trial": "t0", "params": {}, "timesteps": "300"}', "[]",
                    '{"trial": 0, "params": {}, "timesteps": 300}', '{"trial": "t0", "params": {}, "timesteps": -1}',
                    '{"trial": "t0", "params": [], "timesteps": 300}',
                    '{"trial": "t0", "params": {}, "timesteps": true}',
                    '{"trial": "t0", "params": {}, "timesteps": 300.5}'):
        (second / TRIAL_FILE).write_text(written)  # parses, but says no checkpoint: the one before it
        assert whole_checkpoint(second, seeds=[0]).folder == first, written
    for weights in (first / "seed_0").glob("*.npz"):
        weights.write_bytes(weights.read_bytes()[:20])  # a corrupted one verifies no more
    with pytest.raises(CheckpointError) as error:
        whole_checkpoint(named, seeds=[0, 1])
    assert error.value.argument == "checkpoint" and str(named) in str(error.value) and newer.is_dir()
