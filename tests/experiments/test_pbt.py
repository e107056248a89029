"""PBT on rlworkbench's own checkpoints: the exploiting trial's run goes on from the donor's ``.npz`` checkpoint
(the very weights the donor had at that step, and its history), in its own run directory, with perturbed values
that stay inside the space and the schema."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from experiment_helpers import small_dqn
from ray import tune

from rlworkbench.agents.checkpoint import read_checkpoint
from rlworkbench.workbench.experiments import sweep

LOW, HIGH = 1e-4, 1e-2


def test_an_exploit_copies_the_donors_weights_through_our_checkpoints(ray_session, tmp_path):
    experiment = sweep(small_dqn(), space={"optimizer/learning_rate": tune.loguniform(LOW, HIGH)}, seeds=1,
                       trials=2, scheduler="pbt", budget=1500, report_every=250, checkpoint_every=250,
                       scheduler_options={"perturbation_interval": 500, "quantile_fraction": 0.5, "synch": True,
                                          "resample_probability": 0.0},
                       env="CartPole-v1", logdir=tmp_path, name="pbt")
    experiment.wait(timeout=400)
    assert experiment.state == "finished" and set(experiment.trials["state"]) == {"finished"}
    lineages = sorted((experiment.directory / "trials").glob("*/lineage.jsonl"))
    assert lineages, "PBT exploited no trial"
    recipient = lineages[0].parent.name
    exploit = json.loads(lineages[0].read_text().splitlines()[0])
    donor, at = exploit["weights_from"], exploit["timesteps"]
    assert donor != recipient and at % 500 == 0
    kept = experiment.run_dir(recipient, 0) / "checkpoints" / f"exploit-{donor}-{at}"
    assert (kept / "agent.json").exists() and list(kept.glob("weights-*.npz"))
    assert not list(kept.rglob("*.pkl")) and not list(kept.rglob("*.pickle"))  # ours: JSON and NumPy only
    donor_weights, donor_state = read_checkpoint(experiment.run_dir(donor, 0) / "checkpoints" / f"step_{at}")
    kept_weights, kept_state = read_checkpoint(kept)
    assert kept_state["counters"] == donor_state["counters"]
    for name, value in donor_weights.items():
        np.testing.assert_array_equal(kept_weights[name], value, err_msg=name)
    # the recipient's run carries the donor's history up to the exploit, then goes on in its own directory
    donor_episodes = pd.read_csv(experiment.run_dir(donor, 0) / "episodes.csv")
    recipient_episodes = pd.read_csv(experiment.run_dir(recipient, 0) / "episodes.csv")
    before = recipient_episodes[recipient_episodes["timesteps_total"] <= at]
    pd.testing.assert_frame_equal(before, donor_episodes[donor_episodes["timesteps_total"] <= at])
    assert read_checkpoint(experiment.run_dir(recipient, 0) / "checkpoints" / "final")[1]["counters"][
        "timesteps"] >= 1500
    curve = experiment.curves[experiment.curves["trial"] == recipient]["timesteps"].tolist()
    assert curve == sorted(curve) and len(curve) == len(set(curve))  # one history, however often it was rewound
    assert recipient_episodes["episode"].tolist() == list(range(len(recipient_episodes)))
    # the perturbed value stays in the space (and so in the schema), and the run trained with it
    records = [json.loads(line) for line in (experiment.directory / "records.jsonl").read_text().splitlines()]
    values = [r["params"]["optimizer/learning_rate"] for r in records
              if r["kind"] == "trial" and r["trial"] == recipient]
    assert len(values) >= 2 and all(LOW <= value <= HIGH for value in values)
    config = json.loads((experiment.run_dir(recipient, 0) / "config.json").read_text())
    assert config["optimizer"]["learning_rate"] == values[-1]
