"""The runs panel's Dataflow tab in a real JupyterLab + headless Chromium: a Ray run's record (kept fresh by the real
heartbeat publisher) whose run directory holds a dataflow.json written by ``DataflowSnapshot.write`` (2 samplers,
2 shards, queue, learner, one bottleneck, one restarted sampler) has a Dataflow button on its card (a local run beside
it has none); the tab draws every actor, the bottleneck thick and orange and the restart in red; when the run
rewrites dataflow.json the drawing shows the new figures by itself.
Screenshots: test-artifacts/browser/lab-dataflow*.png.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from rlworkbench.visualize.dataflow_drawing import BOTTLENECK_COLOR, RESTART_COLOR
from rlworkbench.workbench.run_record_schema import record_validator
from rlworkbench.workbench.run_records import Publisher
from tests.visualize.dataflow_helpers import ERROR, apex_snapshot

HERE = Path(__file__).resolve().parent
ARTIFACTS = HERE.parents[1] / "test-artifacts" / "browser"
ACTORS = ("sampler 0", "sampler 1", "shard 0", "shard 1", "queue", "learner")
NEW_FIGURE = "3.6k/s · 1.4 MB/s"  # sampler 0's Transitions edge after the rewrite (scale 3)


def record_of(run_id: str, logdir: Path, target: str, state: str, started: float,
              name: str = "apex_cartpole") -> dict[str, Any]:
    """A run record as a run on ``target`` publishes it (checked against the record schema)."""
    record = {
        "id": run_id, "name": name, "config_label": name, "source": None, "env": "CartPole-v1",
        "backend": "torch", "target": target, "devices": None, "state": state, "phase": None, "error": None,
        "timesteps": 12000, "total_timesteps": 100000, "updates": 300, "steps_per_second": 960.0, "episodes": 40,
        "recent_return": 21.5, "returns": [20.0, 23.0], "return_points": [[11000, 20.0], [12000, 23.0]],
        "logdir": str(logdir), "cwd": str(logdir.parent), "checkpoint": None, "config": {"type": "apex"},
        "submission_id": None, "address": None, "host": socket.gethostname(), "pid": os.getpid(),
        "started": started, "updated": time.time(), "labels": {}, "experiment": None}
    problems = [error.message for error in record_validator("RunRecord").iter_errors(record)]
    assert not problems, problems
    return record


class RayRunRecord(Publisher):
    """The heartbeat of a Ray run that is not there: its record, fresh every beat, until :attr:`done`."""

    def __init__(self, run_id: str, logdir: Path, directory: Path):
        super().__init__(run_id, directory, interval=1.0)
        self.logdir, self.done = logdir, False

    def record(self) -> dict[str, Any]:
        return record_of(self.record_id, self.logdir, "ray", "finished" if self.done else "running", self.started)

    def stop_requested(self) -> None:
        self.done = True

    def subject_done(self) -> bool:
        return self.done


def rewrite_when_asked(signal: Path, logdir: Path, stop: threading.Event) -> None:
    """Rewrites dataflow.json with new figures once the driver writes ``signal`` (the drawing is on screen)."""
    while not stop.is_set() and not signal.exists():
        time.sleep(0.1)
    if signal.exists():
        apex_snapshot(scale=3.0, restarts=3, wall_time=20.0).write(logdir)


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_the_dataflow_tab_draws_and_follows_a_run(jupyter_lab, run_driver, installed_extension, tmp_path):
    logdir = jupyter_lab.root_dir / "runs" / "apex_cartpole-dataflow"
    logdir.mkdir(parents=True)
    apex_snapshot().write(logdir)
    plain_dir = jupyter_lab.root_dir / "runs" / "dqn_cartpole-plain"
    plain_dir.mkdir(parents=True)
    plain = record_of("d0d0d0d0d0d0", plain_dir, "local", "finished", time.time() - 30, name="dqn_cartpole")
    jupyter_lab.runs_dir.mkdir(parents=True, exist_ok=True)
    (jupyter_lab.runs_dir / f"{plain['id']}.json").write_text(json.dumps(plain))  # a finished local run's record
    heartbeat = RayRunRecord("da7af10da7af", logdir, jupyter_lab.runs_dir).start()
    signal, stop = tmp_path / "rewrite-now", threading.Event()
    rewriter = threading.Thread(target=rewrite_when_asked, args=(signal, logdir, stop), daemon=True)
    rewriter.start()
    config = {
        "url": f"{jupyter_lab.base_url}/lab/workspaces/lab-dataflow?token={jupyter_lab.token}",
        "run": heartbeat.record_id, "plain_run": plain["id"], "rewrite_signal": str(signal), "new_figure": NEW_FIGURE,
        "viewport": {"width": 1600, "height": 1000},
        "chromium_args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        "screenshots": {"first": str(ARTIFACTS / "lab-dataflow.png"),
                        "refreshed": str(ARTIFACTS / "lab-dataflow-refreshed.png"),
                        "failure": str(ARTIFACTS / "lab-dataflow-failure.png")},
        "timeouts_ms": {"load": 60000, "render": 30000, "refresh": 15000},
    }
    try:
        result = run_driver("drive_lab_dataflow.mjs", "lab-dataflow", config, 240)
    finally:
        stop.set()
        heartbeat.done = True
        heartbeat.close()
    report = f"{result['problems']}\n{result['driver_log']}\n(result JSON and screenshots in {ARTIFACTS})"
    assert not result["problems"] and not result["console_errors"], report
    assert result["cards"] == {"run": True, "plain": True, "run_button": True, "plain_button": False}, report
    assert result["tab_label"] == "dataflow: apex_cartpole · run da7af1", report

    first = result["first"]
    named = {node["texts"][0] for node in first["nodes"]}
    assert set(ACTORS) <= named, report  # every actor, by its id
    assert "12 / 16" in " ".join(first["texts"]) and "busy 90 %" in first["texts"], report
    (limit,) = first["bottleneck"]
    assert "queue → learner" in limit["tooltip"] and "bottleneck" in limit["tooltip"], report
    assert limit["stroke"] == BOTTLENECK_COLOR and limit["width"] >= 3, report
    (restarted,) = [node for node in first["nodes"] if "dataflow-restarted" in node["classes"]]
    assert restarted["id"] == "dataflow-sampler-1" and "↻ 2" in restarted["texts"], report
    assert restarted["restart_fill"] == RESTART_COLOR and ERROR in restarted["tooltip"], report
    assert "bottleneck: Batch queue → learner" in first["message"] and first["wall_time"] == "12.5", report
    assert first["size"][0] > 500, report  # drawn at a size that reads, not squeezed

    assert result["refresh_ok"], report  # the new figures, with no click, within the refresh timeout
    fresh = result["refreshed"]
    assert fresh["wall_time"] == "20" and "↻ 3" in fresh["texts"] and result["refresh_seconds"] < 10, report
    for name in ("screenshot_first", "screenshot_refreshed"):
        assert Path(result[name]).stat().st_size > 10_000, report
