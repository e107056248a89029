"""Graphs legible at first sight, in JupyterLab + headless Chromium at 1600x1000, measured on screen
(drive_graph_views.mjs): a notebook builds the dueling DQN, shows it with nothing imported but ``rlworkbench.agents``
(the drawing at its natural size in a scrolling box, its caption saying "100 %") and opens a GraphExplorer on it
(the pane opens at a scale where node labels read, on one of the agent's own API methods, and says its zoom;
"100 %" shows one of them, "fit" the whole width, a click on the zoom opens again). Node labels' bounding boxes must
be at least 9 px high. The cell → graph times land in the result JSON. Screenshots: test-artifacts/browser/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHECKS = Path(__file__).with_name("checks.json")
LEGIBLE_PX = 9
CELLS = {"build": 0, "inline": 1, "explorer": 2}
SOURCES = [
    "from rlworkbench.agents import Agent\n\n"
    "agent = Agent.from_env('CartPole-v1', 'dqn_dueling_per_cartpole', backend='torch', seed=0).build()",
    "agent  # draws itself: no rlworkbench.visualize import",
    "from rlworkbench.workbench import GraphExplorer\n\nexplorer = GraphExplorer(agent)\nexplorer",
]


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_inline_drawings_and_the_explorer_open_legible_and_say_their_zoom(jupyter_lab, run_driver):
    jupyter_lab.write_notebook("graph_views_check.ipynb", SOURCES)
    checks = json.loads(CHECKS.read_text())
    config = {"url": jupyter_lab.lab_url("graph_views_check.ipynb", "graph_views"),
              "screenshot": str(ARTIFACTS / "graph_views.png"), "chromium_args": checks["chromium_args"],
              "viewport": {"width": 1600, "height": 1000}, "cells": CELLS,
              "timeouts_ms": {"load": 60000, "kernel": 90000, "execute": 180000, "interaction": 15000}}
    result = run_driver("drive_graph_views.mjs", "graph_views", config, 480)
    report = json.dumps({k: v for k, v in result.items() if k != "driver_log"}, indent=1)[-6000:] \
        + f"\n{result.get('driver_log', '')[-1500:]}\n(screenshots and result JSON in {ARTIFACTS})"
    assert not result["problems"] and not result.get("errors"), report
    steps = result["steps"]

    inline = steps["inline"]  # drawn with no visualize import, at natural size, scrolling, labels legible
    assert inline["ok"] and inline["clusters"] >= 20, report
    assert inline["zoom"].startswith("100 % · ") and inline["drawn_over_natural"] == pytest.approx(1, abs=0.01), report
    assert inline["min_label_px"] >= LEGIBLE_PX and inline["visible_labels"] >= 10, report
    assert inline["home_in_view"] >= 1, report  # the box opens on the agent's own API methods

    opened = steps["explorer_opened"]  # legible where it opens, on the agent's API methods, saying its zoom
    assert opened["ok"] and re.fullmatch(r"(fit · )?\d+ %", opened["zoom"]), report
    assert opened["visible_labels"] >= 10 and opened["visible_min_label_px"] >= LEGIBLE_PX, report
    assert opened["home_in_view"] >= 1, report
    assert float(opened["data"]["scale"]) >= float(opened["data"]["legibleScale"]) - 1e-3, report

    natural = steps["explorer_natural"]  # "100 %": natural size on the agent's API methods, not an empty corner
    assert natural["zoom"] == "100 %" and natural["home_in_view"] >= 1 and natural["visible_labels"] >= 5, report
    assert natural["visible_min_label_px"] >= LEGIBLE_PX, report
    fitted = steps["explorer_fit"]  # "fit": the whole width, and it says so
    assert re.fullmatch(r"fit · \d+ %", fitted["zoom"]), report
    assert float(fitted["data"]["scale"]) == pytest.approx(float(fitted["data"]["fitScale"]), abs=1e-3), report
    assert steps["explorer_reopened"]["zoom"] == opened["zoom"], report  # a click on the zoom: the opening view

    for name in ("build_cell", "inline_cell_to_graph", "explorer_cell_to_graph"):
        assert result["timings_s"][name] > 0, report
    assert Path(result["screenshot"]).stat().st_size > 10_000, report
