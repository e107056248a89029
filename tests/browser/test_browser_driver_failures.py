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
