"""The browser driver's own failure modes: a notebook that raises, has no graph and an inert button must be reported
as such (so a green visual-debugging test means the page really rendered)."""

from __future__ import annotations

import pytest

CELLS = [
    "import ipywidgets as w\nw.Button(description='inert')",
    "raise ValueError('deliberate failure for the driver test')",
    "print('never runs')",
]


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_driver_reports_what_is_missing(jupyter_lab, drive_notebook):
    jupyter_lab.write_notebook("driver_failures/broken.ipynb", CELLS)

    timeouts = {"execute": 60000, "render": 2000, "interaction": 3000}
    inert_click = [{"action": "click", "selector": ".jp-OutputArea-output .widget-button"}]
    result = drive_notebook("driver_failures/broken.ipynb", "driver_failures", timeouts_ms=timeouts,
                            interactions=inert_click)

    problems = "\n".join(result["problems"])
    assert result["cells"]["executed"] == 2 and result["cells"]["total"] == 3, problems
    assert "execution stopped: 2 of 3 code cells executed" in problems
    assert "ValueError: deliberate failure" in problems
    assert "g.graph g.cluster" in problems
    assert "no 'dropdown' widget view rendered" in problems
    assert "no 'button' widget view" not in problems
    assert "did not change the outputs" in problems


# A Playwright click timeout as the graph viewer's driver got it in CI, its tab hidden behind the editor's (\u00d7 is
# Playwright's sign for a count of retries)
CLICK_TIMEOUT = (
    "locator.click: Timeout 30000ms exceeded.\nCall log:\n"
    "\x1b[2m  - waiting for locator('.rlwb-graph g.cluster[id=\"component-dqn/policy\"] > text').first()\x1b[22m\n"
    "\x1b[2m    - locator resolved to <text x=\"1072.5\" y=\"-983.32\">policy (Policy)</text>\x1b[22m\n"
    "\x1b[2m  - attempting click action\x1b[22m\n"
    "\x1b[2m    2 \u00d7 waiting for element to be visible, enabled and stable\x1b[22m\n"
    "\x1b[2m      - element is not visible\x1b[22m\n\x1b[2m    - retrying click action\x1b[22m\n"
    "\x1b[2m    - waiting 20ms\x1b[22m\n"
    "\x1b[2m    56 \u00d7 waiting for element to be visible, enabled and stable\x1b[22m\n"
    "\x1b[2m       - element is not visible\x1b[22m\n\x1b[2m     - retrying click action\x1b[22m\n"
    "\x1b[2m       - waiting 500ms\x1b[22m\n")


@pytest.mark.browser
def test_a_stopped_driver_says_what_playwright_was_waiting_on(browser_tools):
    import json
    import subprocess
    from pathlib import Path

    session = Path(__file__).with_name("browser_session.mjs").as_uri()
    script = (f"import {{ stoppedAt }} from '{session}';\n"
              "const messages = JSON.parse(process.argv[1]);\n"
              "process.stdout.write(JSON.stringify(messages.map(stoppedAt)));\n")
    messages = [CLICK_TIMEOUT, "the graph viewer did not draw: {}", "two lines\nno call log", None]
    done = subprocess.run([browser_tools.node, "--input-type=module", "-e", script, json.dumps(messages)],
                          capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == [
        "locator.click: Timeout 30000ms exceeded. (56 \u00d7 waiting for element to be visible, enabled and stable: "
        "element is not visible)", "the graph viewer did not draw: {}", "two lines", ""]
