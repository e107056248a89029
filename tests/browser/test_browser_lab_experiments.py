"""The runs panel's experiments and the compare view in a real JupyterLab + headless Chromium, on real records: a
2-trial sweep (a learning-rate grid, 1 seed, 1 000 steps) published where the lab's server reads, and the same
experiment's record under another name, so that no run records match it (what a sweep on a cluster leaves here).
The group expands to its trials' run cards, or to a row per trial; two ticked runs open the compare view with two
curves and the learning rate in the config diff. Screenshots: test-artifacts/browser/lab-experiment*.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ray import tune

from rlworkbench.workbench.experiments import sweep
from rlworkbench.workbench.run_records import read_records
from tests.experiments.experiment_helpers import small_dqn, wait_until

HERE = Path(__file__).resolve().parent
ARTIFACTS = HERE.parents[1] / "test-artifacts" / "browser"
RATES = [1e-3, 3e-3]


def published_sweep(runs_dir: Path, logdir: Path) -> tuple[dict, list[dict]]:
    """Runs the sweep to its end; its experiment record and its runs' records, trial by trial."""
    experiment = sweep(small_dqn(), space={"optimizer/learning_rate": tune.grid_search(RATES)}, seeds=1, trials=1,
                       budget=1000, env="CartPole-v1", logdir=logdir, name="lr-sweep").wait(240)
    record = wait_until(lambda: next((r for r in read_records(runs_dir) if r.get("kind") == "experiment"
                                      and r["name"] == "lr-sweep" and r["state"] == "finished"), None),
                        10, "the experiment's last record")
    records = read_records(runs_dir)
    runs = sorted((r for r in records if r.get("experiment") == "lr-sweep"), key=lambda r: r["labels"]["trial"])
    assert experiment.state == "finished" and len(runs) == 2, (experiment.state, runs)
    return record, runs


def without_run_records(record: dict, runs_dir: Path) -> dict:
    """The experiment's record again under a name no run record carries, as a sweep on a cluster publishes it."""
    alone = {**record, "id": "c1c1c1c1c1c1", "name": "lr-sweep-on-a-cluster", "started": record["started"] - 60}
    (runs_dir / f"{alone['id']}.json").write_text(json.dumps(alone))
    return alone


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_experiment_groups_and_the_compare_view(jupyter_lab, run_driver, ray_session, monkeypatch,
                                                 installed_extension):
    monkeypatch.setenv("RLWORKBENCH_RUNS_DIR", str(jupyter_lab.runs_dir))  # the sweep publishes where the lab reads
    record, runs = published_sweep(jupyter_lab.runs_dir, jupyter_lab.root_dir / "experiments")
    alone = without_run_records(record, jupyter_lab.runs_dir)
    config = {
        "url": f"{jupyter_lab.base_url}/lab/workspaces/lab-experiments?token={jupyter_lab.token}",
        "experiment": record["id"], "cluster_experiment": alone["id"], "runs": [run["id"] for run in runs],
        "viewport": {"width": 1600, "height": 1000},
        "chromium_args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        "screenshots": {"panel": str(ARTIFACTS / "lab-experiment-group.png"),
                        "compare": str(ARTIFACTS / "lab-compare-view.png"),
                        "failure": str(ARTIFACTS / "lab-experiments-failure.png")},
        "timeouts_ms": {"load": 60000, "render": 30000, "compare": 30000},
    }
    result = run_driver("drive_lab_experiments.mjs", "lab-experiments", config, 300)
    report = f"{result['problems']}\n{result['driver_log']}\n(result JSON and screenshots in {ARTIFACTS})"
    assert not result["problems"] and not result["console_errors"], report
    collapsed, expanded = result["collapsed"], result["expanded"]
    assert not collapsed["open"] and "lr-sweep" in collapsed["header"] and "finished" in collapsed["header"], report
    assert collapsed["summary"].startswith("2 finished") and f"best {record['best_trial']}" in collapsed["summary"]
    assert expanded["open"] and len(expanded["trials"]) == 2, report
    shown = {trial["trial"]: trial for trial in expanded["trials"]}
    for run in runs:
        trial = shown[run["labels"]["trial"]]
        assert trial["runs"] == [run["id"]] and "finished" in trial["card_titles"][0]
        assert "seed 0 · dqn" in trial["card_titles"][0]
        assert f"optimizer/learning_rate={run['labels']['params']['optimizer/learning_rate']}" in trial["params"]
    assert shown[record["best_trial"]]["title"].startswith("★"), report
    rows = result["cluster_expanded"]["rows"]
    assert len(rows) == 2 and all("finished" in row and "optimizer/learning_rate=" in row for row in rows), report

    assert result["compare_disabled_before"] and result["selection"] == "2 run(s) selected", report
    compared = result["compare"]
    curves = {curve["id"]: curve for curve in compared["curves"]}
    assert set(curves) == {run["id"] for run in runs} and len({c["stroke"] for c in curves.values()}) == 2, report
    for run in runs:
        assert curves[run["id"]]["points"] == run["episodes"], report  # every episode, from episodes.csv
    assert [row[0] for row in compared["diff"]] == ["optimizer/learning_rate"], report
    assert sorted(float(value) for value in compared["diff"][0][1:]) == RATES, report
    assert all("episodes.csv" in entry for entry in compared["legend"]) and compared["chart_width"] > 800, report
    for name in ("screenshot_panel", "screenshot_compare"):
        assert Path(result[name]).stat().st_size > 10_000, report
