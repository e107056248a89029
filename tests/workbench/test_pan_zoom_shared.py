"""Pan/zoom is written once (rlworkbench/workbench/pan_zoom.js) for the notebook's graph pane and the JupyterLab
viewer: the pane serves the file's text verbatim, the lab's source imports that very file, neither view defines the
shared functions again, and the installed lab bundle carries the file's string literals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rlworkbench.workbench.graph_pane import GraphPane

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "rlworkbench" / "workbench" / "pan_zoom.js"
PANE = ROOT / "rlworkbench" / "workbench" / "graph_pane.js"
LAB_SRC = ROOT / "extensions" / "rlworkbench-lab" / "src"
BUNDLE = ROOT / ".venv" / "share" / "jupyter" / "labextensions" / "rlworkbench-lab" / "static"


def shared_names() -> list[str]:
    return re.findall(r"^export (?:const|function) (\w+)", SHARED.read_text(), re.M)


def defines(text: str, name: str) -> bool:
    return re.search(rf"\bfunction {name}\b|\b(?:const|let|var) {name}\s*=", text) is not None


def test_the_notebook_pane_serves_the_shared_module_and_defines_none_of_it_again():
    names = shared_names()
    assert {"legibleScale", "naturalSize", "zoomText", "panAndZoom", "LEGIBLE_PX"} <= set(names)
    served = GraphPane()._esm
    assert SHARED.read_text() in served and PANE.read_text() in served
    assert [name for name in names if defines(PANE.read_text(), name)] == []
    assert all(re.search(rf"\b{name}\(", PANE.read_text()) for name in ("legibleScale", "panAndZoom", "zoomText"))


def test_the_lab_viewer_imports_the_same_file_and_defines_none_of_it_again():
    source = (LAB_SRC / "graphZoom.ts").read_text()
    imported = set(re.findall(r"from '([^']+pan_zoom)';", source))
    assert [(LAB_SRC / path).with_suffix(".js").resolve() for path in imported] == [SHARED.resolve()]
    redefined = [(file.name, name) for file in LAB_SRC.glob("*.ts") for name in shared_names()
                 if defines(file.read_text(), name)]
    assert redefined == []


def test_the_installed_lab_bundle_carries_the_shared_module():
    bundles = list(BUNDLE.glob("*.js"))
    if not bundles:
        pytest.skip("the lab extension is not installed in .venv (scripts/lab_extension.sh installs it)")
    text = "\n".join(path.read_text() for path in bundles)
    code = re.sub(r"(^|\s)//.*$", "", SHARED.read_text(), flags=re.M)  # its comments quote examples
    literals = set(re.findall(r'"([^"\\\n]{4,})"', code))
    missing = [literal for literal in sorted(literals)
               if literal not in text and literal.encode("ascii", "backslashreplace").decode() not in text]
    assert "g.node text" in literals and missing == [], f"rebuild the extension (scripts/lab_extension.sh): {missing}"
