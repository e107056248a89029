"""Run folders wherever the run was started: a run promoted from a subfolder of the server's root (as a notebook in
``notebooks/`` is) or from outside it, and records written by an older rlworkbench with relative paths — the
server maps each into its root (or says the folder is outside it) and TensorBoard opens the right folder."""

from __future__ import annotations

import json
import time

import requests

from rlworkbench.testing import wait_until
from rlworkbench.workbench import promote
from tests.workbench.run_helpers import small_dqn


def listed(lab_server, run_id: str) -> dict | None:
    return next((r for r in lab_server.get("runs").json()["runs"] if r["id"] == run_id), None)


def test_a_run_started_in_a_subfolder_opens_its_folder_and_tensorboard(lab_server, runs_here, monkeypatch):
    notebooks = lab_server.root / "notebooks"
    notebooks.mkdir(exist_ok=True)
    monkeypatch.chdir(notebooks)  # the kernel of notebooks/x.ipynb runs there
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebooks / "x.ipynb"))
    run = promote(small_dqn(), timesteps=200, logdir="runs", seed=0).wait(120)
    assert run.logdir == notebooks / "runs" / run.logdir.name  # absolute from the start
    record = wait_until(lambda: (r := listed(lab_server, run.id)) and r["state"] == "finished" and r, 10, "listed")
    assert record["logdir"] == str(run.logdir) and record["logdir_in_root"] == f"notebooks/runs/{run.logdir.name}"
    assert record["source_in_root"] == "notebooks/x.ipynb" and record["config_label"].startswith("dqn #")
    board = lab_server.post(f"runs/{run.id}/tensorboard")
    assert board.status_code == 200 and board.json()["logdir"] == str(run.logdir), board.text
    runs = requests.get(board.json()["url"] + "data/runs", timeout=30).json()
    assert runs, "TensorBoard found no event files: it is not looking at the run's folder"


def test_a_folder_outside_the_root_is_said_to_be_outside(lab_server, runs_here, tmp_path):
    run = promote(small_dqn(), timesteps=100, logdir=tmp_path / "elsewhere", seed=0).wait(120)
    record = wait_until(lambda: (r := listed(lab_server, run.id)) and r["state"] == "finished" and r, 10, "listed")
    assert record["logdir"] == str(run.logdir) and record["logdir_in_root"] is None


def test_records_with_relative_paths_are_read_against_their_own_folder(lab_server, runs_here):
    """Records of an older rlworkbench: ``runs/<name>`` relative to the kernel's folder (given as ``cwd`` where the
    record says it, else taken as the server's root); a folder that is gone is a 404 naming it."""
    sub = lab_server.root / "deep" / "er"
    (sub / "runs" / "old-run").mkdir(parents=True)
    now = time.time()
    base = {"name": "dqn", "env": "CartPole-v1", "backend": "torch", "target": "local", "state": "finished",
            "timesteps": 1, "total_timesteps": 1, "started": now, "updated": now, "host": "elsewhere", "pid": 1,
            "config": {}, "labels": {}}
    records = {"0123456789a1": {**base, "logdir": "runs/old-run", "cwd": str(sub)},
               "0123456789a2": {**base, "logdir": "runs/old-run"},
               "0123456789a3": {**base, "logdir": "runs/gone", "cwd": str(sub)}}
    for run_id, record in records.items():
        (lab_server.runs / f"{run_id}.json").write_text(json.dumps({**record, "id": run_id}))
    try:
        assert listed(lab_server, "0123456789a1")["logdir_in_root"] == "deep/er/runs/old-run"
        assert listed(lab_server, "0123456789a2")["logdir"] == str(lab_server.root / "runs" / "old-run")
        missing = lab_server.post("runs/0123456789a3/tensorboard")
        assert missing.status_code == 404 and str(sub / "runs" / "gone") in missing.reason
    finally:
        for run_id in records:
            (lab_server.runs / f"{run_id}.json").unlink()
