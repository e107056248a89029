"""rlworkbench's component-graph viewer in a real JupyterLab + headless Chromium (1600x1000), on a config in a
subfolder, open in the editor too: *Open With → Component graph* opens it legible — every node label at least
9 px tall on screen (bounding boxes), the zoom % shown — and its clusters clickable; a save in the editor redraws it
within seconds with its filters and zoom as they were; an invalid save keeps the last good graph greyed under
"last good graph — <the ConfigError>" (no "Error: 400"); a fix written behind the lab's back shows after Reload;
+ and Fit zoom. Screenshots: test-artifacts/browser/lab-graph-viewer*.png."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rlworkbench.agents.config import builtin_config

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
LEGIBLE_PX = 9
REDRAW_S = 5  # a save shows in the viewer within this


def config_text(capacity: int = 100_000, batch_size: int = 64) -> str:
    config = builtin_config("dqn_cartpole")
    config["memory"]["capacity"] = capacity  # the memory's get_size edge reads "∈[0,capacity+1)"
    config["update"]["batch_size"] = batch_size
    return json.dumps(config, indent=1)


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_graph_viewer(jupyter_lab, run_driver, installed_extension):
    config_file = "graph_viewer/dqn_cartpole.json"
    on_disk = jupyter_lab.root_dir / config_file
    on_disk.parent.mkdir(exist_ok=True)
    on_disk.write_text(config_text())
    config = {
        "url": jupyter_lab.workspace_url("lab-graph-viewer"), "config_file": config_file,
        "config_on_disk": str(on_disk), "edited_text": config_text(capacity=777),
        "invalid_text": config_text(capacity=777, batch_size=0), "fixed_text": config_text(capacity=555),
        "markers": {"edited": "[0,778)", "fixed": "[0,556)"},
        "viewport": {"width": 1600, "height": 1000},
        "chromium_args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        "screenshots": {"opened": str(ARTIFACTS / "lab-graph-viewer-opened.png"),
                        "graph": str(ARTIFACTS / "lab-graph-viewer.png"),
                        "stale": str(ARTIFACTS / "lab-graph-viewer-stale.png"),
                        "failure": str(ARTIFACTS / "lab-graph-viewer-failure.png")},
        "timeouts_ms": {"load": 60000, "render": 30000, "graph": 90000, "redraw": 15000},
    }
    result = run_driver("drive_lab_graph_viewer.mjs", "lab-graph-viewer", config, 240)
    report = f"{result['problems']}\n{result['driver_log']}\n(result JSON and screenshots in {ARTIFACTS})"
    assert not result["problems"], report
    assert "Component graph" in result["factories"], report  # offered under Open With for .json

    opened = result["opened"]  # legible at first sight: labels >= 9 px on screen, the zoom % shown
    assert opened["in_front"], report  # measured on screen: a hidden tab's labels have no size
    assert opened["label_height_min"] >= LEGIBLE_PX and opened["label_font_min_px"] >= LEGIBLE_PX - 0.01, report
    assert opened["labels_in_view"] >= 5, report
    assert opened["zoom_text"] == f"{math.floor(opened['scale'] * 100 + 0.5)} %", report  # as Math.round does
    assert opened["depth"] == "1", report  # opened folded: the root's children, their insides as boxes

    assert "Policy" in result["graph_details"], report
    assert "get_deterministic_action" in result["graph_details"] and "i64[B]" in result["graph_details"], report

    edited = result["edited"]  # a save redraws, with no filter changed and the zoom kept
    assert edited["ok"] and edited["seconds"] < REDRAW_S, report
    seen = edited["seen"]
    assert (seen["depth"], seen["api"], seen["scale"]) == (opened["depth"], opened["api"], opened["scale"]), report
    assert "dqn/policy" in seen["details"], report  # the selection outlives the redraw

    invalid = result["invalid"]  # an invalid save: the last good graph greyed, the reason above it
    assert invalid["ok"] and invalid["seconds"] < REDRAW_S and invalid["still_edited"], report
    stale = invalid["seen"]
    assert stale["message"].startswith("last good graph — ") and "batch_size" in stale["message"], report
    assert "Error: 400" not in stale["message"] and "400" not in stale["message"], report
    assert stale["stale_body"] and stale["clusters"] >= 3, report
    for pane in ("canvas_style", "details_style"):
        assert stale[pane]["opacity"] < 0.6 and "grayscale" in stale[pane]["filter"], report

    assert result["before_reload"]["state"] == "stale", report  # a change behind the lab's back needs Reload
    reloaded = result["reloaded"]
    assert reloaded["ok"] and reloaded["seconds"] < REDRAW_S and not reloaded["seen"]["stale_body"], report
    assert "last good graph" not in reloaded["seen"]["message"], report

    assert result["zoomed_in"]["scale"] == pytest.approx(opened["scale"] * 1.25, rel=0.01), report
    fitted = result["fitted"]
    assert fitted["drawing"]["width"] <= fitted["viewport"]["width"], report
    assert fitted["drawing"]["height"] <= fitted["viewport"]["height"], report
    assert result["back"]["scale"] == pytest.approx(opened["scale"]), report
    for name in ("screenshot_opened", "screenshot_graph", "screenshot_stale"):
        assert Path(result[name]).stat().st_size > 10_000, report
