"""rlworkbench's component-graph viewer in a real JupyterLab + headless Chromium: a shipped config opens with
*Open With → Component graph*, whose clusters are clickable. Screenshot: test-artifacts/browser/lab-graph-viewer.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlworkbench.agents.config import builtin_config

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
INSTALLED = ROOT / ".venv" / "share" / "jupyter" / "labextensions" / "rlworkbench-lab" / "package.json"


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_graph_viewer(jupyter_lab, run_driver):
    if not INSTALLED.is_file():
        pytest.fail("the extension is not installed in .venv: run scripts/lab_extension.sh (the bootstrap does)",
                    pytrace=False)
    config_file = "graph_viewer/dqn_cartpole.json"
    (jupyter_lab.root_dir / "graph_viewer").mkdir(exist_ok=True)
    (jupyter_lab.root_dir / config_file).write_text(json.dumps(builtin_config("dqn_cartpole"), indent=1))
    config = {
        "url": jupyter_lab.lab_url(config_file, "lab-graph-viewer"), "config_file": config_file,
        "viewport": {"width": 1600, "height": 1000},
        "chromium_args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        "screenshots": {"graph": str(ARTIFACTS / "lab-graph-viewer.png"),
                        "failure": str(ARTIFACTS / "lab-graph-viewer-failure.png")},
        "timeouts_ms": {"load": 60000, "render": 30000, "graph": 90000},
    }
    result = run_driver("drive_lab_graph_viewer.mjs", "lab-graph-viewer", config, 240)
    report = f"{result['problems']}\n{result['driver_log']}\n(result JSON and screenshots in {ARTIFACTS})"
    assert not result["problems"], report
    assert "Component graph" in result["factories"], report  # offered under Open With for .json
    assert result["graph_clusters"] >= 3 and "Policy" in result["graph_details"], report
    assert "get_deterministic_action" in result["graph_details"] and "i64[B]" in result["graph_details"], report
    assert Path(result["screenshot_graph"]).stat().st_size > 10_000, report
