"""The GraphBuilder in JupyterLab + headless Chromium: a notebook opens GraphBuilder("dqn_cartpole"), the form and
the navigable graph pane render, ticking *dueling* in the form rebuilds the agent, and the value and advantage
streams appear as new clusters in the page's SVG, marked as added; selecting the policy in the component tree
zooms the pane to it; in the sweep tab, a tick on a field shows in the tab's count of ticked fields (then back to
the component tab for the screenshot). Screenshot: test-artifacts/browser/."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"

VALUE_STREAM = "component-dqn/policy/action_adapter/value_stream"
POLICY_OPTION = "\u00a0\u00a0\u00a0policy <DuelingPolicy>"  # the component tree's entry (indented one level)
TAB = ".rlw-graph-builder .lm-TabBar-tab:has(.lm-TabBar-tabLabel:text-is('{}'))"


def builder_notebook() -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("from rlworkbench.workbench import GraphBuilder\n\n"
                                                "builder = GraphBuilder('dqn_cartpole', backend='torch')\nbuilder")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_toggling_dueling_in_the_builder_draws_the_new_streams(jupyter_lab, drive_notebook):
    nbformat.write(builder_notebook(), jupyter_lab.root_dir / "graph_builder_check.ipynb")
    result = drive_notebook(
        "graph_builder_check.ipynb", "graph_builder",
        svg={"within": ".rlw-graph-builder", "inner": "g.cluster", "min": 8},
        widgets={"require": {"builder": ".rlw-graph-builder", "form": ".rlw-graph-builder .rlw-config-form",
                             "checkboxes": ".rlw-config-form .widget-checkbox input",
                             "graph pane": ".rlw-graph-builder .rlw-graph-pane[data-scale] svg g.cluster"}},
        interaction_watch=".rlw-graph-builder",
        interactions=[{"action": "click", "selector": ".rlw-config-form .widget-checkbox:has-text('dueling') input",
                       "expect_text": "added"},
                      {"action": "select", "selector": ".rlw-graph-builder .widget-select select",
                       "value": POLICY_OPTION, "expect_text": "DuelingPolicy dqn/policy"},
                      {"action": "click", "selector": TAB.format("sweep"), "expect_text": "0 ticked of"},
                      {"action": "click", "selector": ".rlw-sweep-tab .widget-checkbox:has-text('target/tau') input",
                       "expect_text": "1 ticked of"},
                      {"action": "click", "selector": TAB.format("component"), "expect_text": "DuelingPolicy"}],
        svg_after={"within": ".rlw-graph-builder .rlw-graph-pane[data-focused='dqn/policy']",  # waits for the zoom
                   "inner": f"g.cluster[id='{VALUE_STREAM}']", "min": 1},
        collect_data={"pane": ".rlw-graph-builder .rlw-graph-pane"})

    report = "\n".join(result["problems"] + [f"console: {line}" for line in result["console_errors"][-10:]]) \
        + f"\n(screenshot and result JSON in {ARTIFACTS})"
    assert not result["problems"], report
    assert result["cells"]["executed"] == result["cells"]["total"] == 1, report
    assert result["interactions"][0]["changed"] and "added" in result["interactions"][0]["after"], report
    assert result["svg_after"]["matches"] >= 1, report
    assert all(step["changed"] and step["expect_ok"] for step in result["interactions"][2:]), report  # the sweep tab
    pane = result["data"]["pane"][0]
    assert pane["width"] > 300 and pane.get("focused") == "dqn/policy", report  # the selection brought into view
    assert float(pane["fitScale"]) < 1.0 < float(pane["scale"]) / float(pane["fitScale"]), report  # opened fitted
    # to the pane's width (the whole agent is wider), then zoomed in on the policy
