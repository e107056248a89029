"""rlworkbench's JupyterLab extension in a real JupyterLab + headless Chromium: the runs panel opens from its
sidebar tab; a notebook in a subfolder (``notebooks/``, as the repository ships them) promotes a short run, whose
live widget (heading with the run's short id, Stop, Save figure) shows in the notebook, and which appears,
progresses and finishes in the panel; its TensorBoard shows the run's scalars and its Folder lists the run
directory; a long run of another config reads differently and Stop on it stops it (the notebook's ``run.state``
says ``stopped``); Resume on the stopped run goes on with it in a process of its own, under the same card, and Stop
stops that part too. Screenshots: test-artifacts/browser/lab-runs-panel.png, lab-runs-tensorboard.png.
(The component-graph viewer has its own test, test_browser_lab_graph_viewer.py.)"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CELLS = [
    "import time\nfrom rlworkbench.workbench import promote",
    "print('PROMOTE AT', time.time())\n"
    "short = promote('dqn_cartpole', timesteps=8000, seed=0, logdir='runs')\nshort",
    "short.wait()\nprint('SHORT STATE', short.state)",
    "long = promote('dqn_dueling_per_cartpole', timesteps=10**7, seed=1, logdir='runs')",
    "import time\nstarted = time.monotonic()\n"
    "while long.state not in ('stopped', 'failed', 'finished') and time.monotonic() - started < 240:\n"
    "    time.sleep(0.5)\nprint('LONG STATE', long.state)",
]


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_runs_panel(jupyter_lab, run_driver, installed_extension):
    jupyter_lab.write_notebook("notebooks/lab_runs.ipynb", CELLS)
    config = {
        "url": jupyter_lab.lab_url("notebooks/lab_runs.ipynb", "lab-extension"),
        "viewport": {"width": 1600, "height": 1000},
        "chromium_args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        "screenshots": {"panel": str(ARTIFACTS / "lab-runs-panel.png"),
                        "tensorboard": str(ARTIFACTS / "lab-runs-tensorboard.png"),
                        "failure": str(ARTIFACTS / "lab-extension-failure.png")},
        "timeouts_ms": {"load": 60000, "kernel": 90000, "render": 30000, "short_run": 120000, "long_run": 120000,
                        "tensorboard": 90000},
    }
    try:
        result = run_driver("drive_lab_extension.mjs", "lab-extension", config, 540)
    finally:
        end_resumed_runs(jupyter_lab.root_dir)
    report = f"{result['problems']}\n{result['driver_log']}\n(result JSON and screenshots in {ARTIFACTS})"
    assert not result["problems"] and result["panel_opened"], report
    short = result["short_run"]
    assert short and short[-1]["state"] == "finished" and short[-1]["value"] == short[-1]["max"] == 8000, report
    assert any(seen["state"] == "running" and 0 < seen["value"] < 8000 for seen in short), report  # it progressed
    live, card, long_card = result["live_widget"], result["short_card"], result["long_card"]
    assert f"run {card['id'][:6]}" in live["heading"] and {"Stop", "Save figure"} <= set(live["buttons"]), report
    assert card["title"].endswith("dqn_cartpole · CartPole-v1 · local"), report  # which config, told apart
    assert "dqn_dueling_per_cartpole · CartPole-v1 · local" in long_card["title"], report
    assert card["identity"] == f"run {card['id'][:6]} · lab_runs.ipynb" and all(card["tooltips"]), report
    board = result["tensorboard"]  # the run's scalars, from the notebook's subfolder
    assert board["scalar_cards"] > 0 and not board["no_dashboards"], report
    folder = result["folder"]  # the run directory under notebooks/runs/, listed (no 404)
    run_dir = Path(card["folder"])  # absolute, under the notebook's folder
    assert run_dir.parent == jupyter_lab.root_dir / "notebooks" / "runs", report
    assert folder["path"] == f"notebooks/runs/{run_dir.name}" and "checkpoints" in folder["items"], report
    assert not [error for error in result["console_errors"] if "api/contents" in error], report
    assert result["long_run"][-1]["state"] == "stopped" and result["notebook_saw_stopped"], report
    assert "LONG STATE stopped" in result["notebook_text"], report
    stopped, resumed, again = result["long_run"][-1], result["resumed_run"], result["stopped_again"]
    assert stopped["resume"] == "Resume" and resumed and resumed["value"] > stopped["value"], report
    assert again and again["state"] == "stopped" and again["resume"] == "Resume", report  # the resumed part stops
    long_dir = Path(result["long_card"]["folder"])
    resumes = json.loads((long_dir / "run.json").read_text())["resumes"]
    assert [r["state_before"] for r in resumes] == ["stopped"] and resumes[0]["checkpoint"] == "final", report
    assert "resuming run" in (long_dir / "resume.log").read_text(), report
    assert Path(result["screenshot_panel"]).stat().st_size > 10_000, report


def end_resumed_runs(root: Path) -> None:
    """The resumed run's own process (started by the server, in a session of its own) outlives a failed drive:
    ended here so it does not load the machine for the tests after this one."""
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "rlworkbench.cli" in command and "resume" in command and any(str(root) in part for part in command):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(proc.name), signal.SIGTERM)
