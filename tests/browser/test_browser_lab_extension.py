"""rlworkbench's JupyterLab extension in a real JupyterLab + headless Chromium: the runs panel opens from its
sidebar tab, a short run promoted from a notebook appears, progresses and finishes there, Stop on a long one
stops it (the notebook's ``run.state`` says ``stopped``). Screenshot: test-artifacts/browser/lab-runs-panel.png.
(The component-graph viewer has its own test, test_browser_lab_graph_viewer.py.)"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
INSTALLED = ROOT / ".venv" / "share" / "jupyter" / "labextensions" / "rlworkbench-lab" / "package.json"
CELLS = [
    "from rlworkbench.workbench import promote\n"
    "short = promote('dqn_cartpole', timesteps=8000, seed=0, logdir='runs')\n"
    "short.wait()\nprint('SHORT STATE', short.state)",
    "long = promote('dqn_cartpole', timesteps=10**7, seed=1, logdir='runs')",
    "import time\nstarted = time.monotonic()\n"
    "while long.state not in ('stopped', 'failed', 'finished') and time.monotonic() - started < 240:\n"
    "    time.sleep(0.5)\nprint('LONG STATE', long.state)",
]


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_runs_panel(jupyter_lab, run_driver):
    if not INSTALLED.is_file():
        pytest.fail("the extension is not installed in .venv: run scripts/lab_extension.sh (the bootstrap does)",
                    pytrace=False)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS],
                                        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                 "language": "python"}})
    nbformat.write(notebook, jupyter_lab.root_dir / "lab_runs.ipynb")
    config = {
        "url": jupyter_lab.lab_url("lab_runs.ipynb", "lab-extension"),
        "viewport": {"width": 1400, "height": 900},
        "chromium_args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        "screenshots": {"panel": str(ARTIFACTS / "lab-runs-panel.png"),
                        "failure": str(ARTIFACTS / "lab-extension-failure.png")},
        "timeouts_ms": {"load": 60000, "kernel": 90000, "render": 30000, "short_run": 120000, "long_run": 120000},
    }
    result = run_driver("drive_lab_extension.mjs", "lab-extension", config, 540)
    report = f"{result['problems']}\n{result['driver_log']}\n(result JSON and screenshots in {ARTIFACTS})"
    assert not result["problems"] and result["panel_opened"], report
    short = result["short_run"]
    assert short and short[-1]["state"] == "finished" and short[-1]["value"] == short[-1]["max"] == 8000, report
    assert any(seen["state"] == "running" and 0 < seen["value"] < 8000 for seen in short), report  # it progressed
    assert result["long_run"][-1]["state"] == "stopped" and result["notebook_saw_stopped"], report
    assert "LONG STATE stopped" in result["notebook_text"], report
    assert Path(result["screenshot_panel"]).stat().st_size > 10_000, report
