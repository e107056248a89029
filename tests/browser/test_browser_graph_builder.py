"""The GraphBuilder in JupyterLab + headless Chromium at 1600 x 1000 px, measured on screen (drive_graph_builder.mjs):
the first switch to TF shows the ticking busy line; a long error stays in the status row (the header's buttons on
one line); back on torch, ticking *dueling* redraws with the streams marked as added; scrolling the form with the
wheel to the layers and the optimizer leaves the graph pane inside the viewport; node labels in the pane are at
least 9 px high and the pane shows its zoom; the tabs sit above the form; selecting the policy zooms the pane to it;
a tick in the sweep tab counts. Screenshot (docs/images/graph-builder.png is refreshed from it):
test-artifacts/browser/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHECKS = Path(__file__).with_name("checks.json")
POLICY_OPTION = "\u00a0\u00a0\u00a0policy <DuelingPolicy>"  # the component tree's entry (indented one level)
VIEWPORT = {"width": 1600, "height": 1000}
LEGIBLE_PX = 9


BUILDER_CELL = ("from rlworkbench.workbench import GraphBuilder\n\n"
                "builder = GraphBuilder('dqn_cartpole', backend='torch')\nbuilder")


def inside(box: dict, viewport: dict) -> bool:
    return box["top"] >= 0 and box["left"] >= 0 and box["bottom"] <= viewport["height"] \
        and box["right"] <= viewport["width"]


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_the_builder_keeps_its_graph_in_view_and_legible(jupyter_lab, run_driver):
    jupyter_lab.write_notebook("graph_builder_check.ipynb", [BUILDER_CELL])
    checks = json.loads(CHECKS.read_text())
    config = {"url": jupyter_lab.lab_url("graph_builder_check.ipynb", "graph_builder"),
              "screenshot": str(ARTIFACTS / "graph_builder.png"), "chromium_args": checks["chromium_args"],
              "viewport": VIEWPORT, "policy_option": POLICY_OPTION,
              "timeouts_ms": {"load": 60000, "kernel": 90000, "execute": 180000, "switch": 90000,
                              "interaction": 30000}}
    result = run_driver("drive_graph_builder.mjs", "graph_builder", config, 480)
    report = json.dumps({k: v for k, v in result.items() if k != "driver_log"}, indent=1)[-6000:] \
        + f"\n{result.get('driver_log', '')[-1500:]}\n(screenshot and result JSON in {ARTIFACTS})"
    assert not result["problems"], report
    steps = result["steps"]

    opened = steps["opened"]  # the status row apart; the tabs above the form; the graph beside, whole, in view
    assert opened["status_row"]["top"] >= opened["header"]["bottom"] - 1, report
    assert opened["tab_bar"]["bottom"] <= opened["form"]["top"] + 1, report
    assert opened["pane"]["left"] >= opened["form"]["right"] and inside(opened["pane"], opened["viewport"]), report
    assert opened["horizontal_scrollbars"] == 0 and opened["config_panel_overflow"] <= 1, report
    assert re.search(r"\d+ %", opened["zoom"]), report  # the pane says its zoom
    assert opened["label_heights"] and min(opened["label_heights"]) >= LEGIBLE_PX, report

    switch = steps["tf_switch"]  # the first TF switch: "building on tf… n s", ticking
    assert switch["ok"] and any(re.fullmatch(r"⏳ building on tf… \d+ s", text) for text in switch["busy_texts"]), \
        report

    error = steps["long_error"]  # the error in the status row; the header's toggle buttons on one line
    assert "config error" in error["status"] and len({round(top) for top in error["toggle_tops"]}) == 1, report
    assert error["header"]["height"] < 60 and error["status_row"]["top"] >= error["header"]["bottom"] - 1, report

    assert steps["back_to_torch"] and steps["dueling"]["ok"] and "on torch" in steps["dueling"]["status"], report
    for name in ("optimizer", "layers"):  # scrolled to in the form: the graph pane still wholly in view
        scrolled = steps["scrolled"][name]
        assert scrolled["visible"] and scrolled["panel_scroll"] > 0, (name, report)  # the panel scrolled
        assert inside(scrolled["layout"]["pane"], scrolled["layout"]["viewport"]), (name, report)
        assert scrolled["layout"]["horizontal_scrollbars"] == 0 and scrolled["layout"]["config_panel_overflow"] <= 1, \
            (name, report)

    assert steps["focused"]["ok"] and min(steps["focused"]["label_heights"]) >= LEGIBLE_PX, report
    assert steps["sweep_tick"], report
    assert Path(result["screenshot"]).stat().st_size > 10_000, report
