"""The builder's core works without widgets: in a process where ipywidgets and anywidget cannot be imported, a
BuilderCore opens a shipped config, takes edits, marks what changed, keeps a bad value's error at its field,
rebuilds on another device map and exports — and the explorer's core draws the same tree."""

from __future__ import annotations

import json
import subprocess
import sys

DRIVE = r"""
import importlib.abc, json, sys

class NoWidgets(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("ipywidgets", "anywidget", "ipywidgets_jsonschema"):
            raise ModuleNotFoundError(f"blocked: {name}", name=name)
        return None

sys.meta_path.insert(0, NoWidgets())
from rlworkbench.workbench.builder.builder_core import BuilderCore

core = BuilderCore("dqn_cartpole", env="CartPole-v1", backend="torch")
first = core.status
dueling = core.set("policy/dueling", True)
added = sorted(core.changes.added)
bad = core.set("update/batch_size", 0)
errors, kept = dict(core.field_errors), core.config["update"]["batch_size"]
fixed = core.set("update/batch_size", 48)
core.explorer.set_device("policy", "cpu")
core.rebuild()
graph = core.graph
print(json.dumps({
    "first": first, "dueling": dueling, "added": added, "bad": bad, "errors": errors, "kept": kept, "fixed": fixed,
    "export": core.export()["update"]["batch_size"], "builds": core.builds, "svg": core.svg.startswith("<svg")
    or "<svg" in core.svg[:2000], "graph": type(graph).__name__, "stuck": bool(graph.stuck),
    "device_map": core.explorer.device_map, "error": repr(core.error),
    "widgets": [m for m in ("ipywidgets", "anywidget") if m in sys.modules],
}))
"""


def test_the_builder_core_builds_edits_and_exports_without_widgets():
    done = subprocess.run([sys.executable, "-c", DRIVE], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["first"] == "dqn_cartpole: built on torch"
    assert out["dueling"] is True and any("dueling" in path or "value" in path for path in out["added"])
    assert out["bad"] is False and list(out["errors"]) == ["update/batch_size"] and out["kept"] != 0
    assert out["fixed"] is True and out["export"] == 48
    assert out["builds"] == 3 and out["svg"] and out["graph"] == "ComponentGraph" and out["stuck"] is False
    assert out["device_map"] == {"policy": "cpu"} and out["error"] == "None"
    assert out["widgets"] == []


def test_the_workbench_package_imports_without_widgets_and_says_what_a_widget_needs():
    code = r"""
import sys
sys.modules["ipywidgets"] = None  # (import ipywidgets raises ModuleNotFoundError)
import rlworkbench.workbench as workbench
from rlworkbench.errors import MissingExtra
try:
    workbench.GraphBuilder
except MissingExtra as error:
    print("rlworkbench[jupyter]" in str(error))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True"]
