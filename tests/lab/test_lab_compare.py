"""The lab's compare route on a real server: runs side by side — each run's curve (its ``episodes.csv`` once it has
one, else its record's last episodes), label and config, and the config key paths that differ — for run directories
and records written here and for real tiny runs; unknown ids and experiments' ids are refused with the reason."""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest

from rlworkbench.workbench import promote
from tests.experiments.experiment_helpers import write_run_dir
from tests.workbench.run_helpers import small_dqn


def write_record(lab_server, record_id: str, logdir, **fields) -> None:
    """A finished run's record as a Run publishes it, with only what the compare view reads."""
    now = time.time()
    record = {"id": record_id, "name": "dqn_cartpole", "env": "CartPole-v1", "state": "finished", "logdir": str(logdir),
              "config": json.loads((logdir / "config.json").read_text()), "started": now, "updated": now,
              "return_points": [], "labels": {}, "experiment": None, **fields}
    lab_server.runs.mkdir(exist_ok=True)
    (lab_server.runs / f"{record_id}.json").write_text(json.dumps(record))


def test_curves_labels_and_the_config_diff_of_written_runs(lab_server, tmp_path):
    fast, slow = small_dqn(), small_dqn()
    slow["optimizer"]["learning_rate"] = 1e-4
    del slow["memory"]["capacity"]  # a key one config lacks differs too, with no value on that side
    ended = write_run_dir(tmp_path / "ended", [10.0, 20.0, 30.0], fast)
    going = write_run_dir(tmp_path / "going", [], slow)
    (going / "episodes.csv").unlink()  # still going: no episodes.csv yet
    write_record(lab_server, "c0ffee000001", ended)
    write_record(lab_server, "c0ffee000002", going, state="running", return_points=[[40, 9.0], [90, None], [120, 12.5]],
                 labels={"experiment": "sweep-a", "trial": "t_00001", "seed": 2}, experiment="sweep-a")
    reply = lab_server.get("compare", runs="c0ffee000001,c0ffee000002")
    assert reply.status_code == 200, reply.text
    first, second = reply.json()["runs"]
    assert (first["label"], first["source"]) == ("ended", "episodes.csv")
    assert first["curve"] == [[20, 10.0], [40, 20.0], [60, 30.0]]
    assert (second["label"], second["source"]) == ("sweep-a/t_00001 seed 2", "record")
    assert second["curve"] == [[40, 9.0], [120, 12.5]] and (second["trial"], second["seed"]) == ("t_00001", 2)
    assert first["config"] == fast and second["state"] == "running"
    diff = {row["path"]: row["values"] for row in reply.json()["diff"]}
    assert diff == {"memory/capacity": {"c0ffee000001": fast["memory"]["capacity"]},
                    "optimizer/learning_rate": {"c0ffee000001": fast["optimizer"]["learning_rate"],
                                                "c0ffee000002": 1e-4}}


@pytest.mark.parametrize(("runs", "status", "says"), [
    ("c0ffee000001,0123456789ab", 404, "no run 0123456789ab"),
    ("c0ffee000001,e0e0e0e0e0e0", 404, "e0e0e0e0e0e0 (an experiment: compare its trials' runs)"),
    (",", 400, "give runs="),
])
def test_bad_compare_requests_say_why(lab_server, tmp_path, runs, status, says):
    write_record(lab_server, "c0ffee000001", write_run_dir(tmp_path / "run", [1.0], small_dqn()))
    (lab_server.runs / "e0e0e0e0e0e0.json").write_text(json.dumps({"kind": "experiment", "id": "e0e0e0e0e0e0",
                                                                    "name": "sweep", "state": "finished"}))
    reply = lab_server.get("compare", runs=runs)
    assert reply.status_code == status and says in reply.reason


def test_two_real_runs_side_by_side(lab_server, runs_here):
    configs = [small_dqn(), small_dqn()]
    configs[1]["optimizer"]["learning_rate"] = 3e-3
    runs = [promote(config, timesteps=400, seed=seed, logdir=lab_server.root / "runs").wait(60)
            for seed, config in enumerate(configs)]
    reply = lab_server.get("compare", runs=",".join(run.id for run in runs))
    assert reply.status_code == 200, reply.text
    for shown, run in zip(reply.json()["runs"], runs, strict=True):
        episodes = pd.read_csv(run.logdir / "episodes.csv")
        assert shown["source"] == "episodes.csv" and shown["label"] == run.logdir.name
        assert shown["curve"] == episodes[["timesteps_total", "return"]].values.tolist()
    assert [row["path"] for row in reply.json()["diff"]] == ["optimizer/learning_rate"]
