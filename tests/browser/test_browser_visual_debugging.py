"""The visual-debugging notebook, run for real in JupyterLab + headless Chromium: the component graph's SVG and the
widgets render, Run All leaves no tracebacks, and clicking a widget changes the page.

The notebook is notebooks/visual_debugging.ipynb (RLWORKBENCH_BROWSER_NOTEBOOK points elsewhere); its folder is
copied to the server's temp root, so outputs never land in the repo. Artefacts: test-artifacts/browser/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
NOTEBOOK = Path(os.environ.get("RLWORKBENCH_BROWSER_NOTEBOOK") or ROOT / "notebooks" / "visual_debugging.ipynb")


@pytest.fixture(scope="session")
def notebook_under_test() -> Path:
    """The notebook to drive; a missing one fails (listed first, so no server starts for nothing)."""
    if not NOTEBOOK.is_file():
        pytest.fail(f"notebook under test is missing: {NOTEBOOK} (RLWORKBENCH_BROWSER_NOTEBOOK points elsewhere)",
                    pytrace=False)
    return NOTEBOOK


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_visual_debugging_notebook_renders_in_jupyterlab(notebook_under_test, jupyter_lab, drive_notebook):
    served = jupyter_lab.root_dir / "notebooks"
    shutil.copytree(notebook_under_test.parent, served, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))

    result = drive_notebook(f"notebooks/{notebook_under_test.name}", notebook_under_test.stem)

    report = "\n".join(result["problems"] + [f"console: {line}" for line in result["console_errors"][-10:]]) \
        + f"\n(screenshot and result JSON in {ARTIFACTS})"
    assert not result["problems"], report
    cells = result["cells"]
    assert cells["total"] > 0 and cells["executed"] == cells["total"] and not cells["errors"], report
    assert result["svg"]["matches"] >= 1, report
    assert all(count > 0 for count in result["widgets"]["required"].values()), report
    assert result["interactions"] and all(step["changed"] for step in result["interactions"]), report
    assert Path(result["screenshot"]).stat().st_size > 10_000, report
