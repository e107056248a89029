"""The GraphBuilder's layout and form as a researcher meets them: tabs above the form beside the graph, the status on
its own row, a busy line while a build runs, labeled optional fields, sensible defaults for new layers, and an export
that never lands on a shipped config."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import ipywidgets as w
import pytest

from rlworkbench.agents.config import builtin_configs
from rlworkbench.errors import ConfigError
from rlworkbench.workbench import GraphBuilder
from rlworkbench.workbench.builder.builder_view import GRAPH_HEIGHT, PANEL_HEIGHT
from rlworkbench.workbench.builder.export_name import default_export_name, shipped_config_path
from rlworkbench.workbench.builder.preload import ENV_VAR as PRELOAD_ENV


@pytest.fixture
def builder():
    made = GraphBuilder("dqn_cartpole", backend="torch")
    yield made
    made.close()


def walk(widget: w.Widget):
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def contains(outer: w.Widget, inner: w.Widget) -> bool:
    return any(widget is inner for widget in walk(outer))


# ----- layout ------------------------------------------------------------------------------------------------------
def test_the_tabs_sit_above_the_form_beside_the_graph_and_the_status_has_its_own_row(builder):
    view = builder.view
    header, status_row, main, _ = view.widget.children
    assert "rlw-builder-header" in header._dom_classes and contains(header, view.backend_menu)
    assert not contains(header, view.status)  # a long error cannot reflow the header or stack its buttons
    assert "rlw-builder-status-row" in status_row._dom_classes
    assert status_row.children == (view.busy, view.status)
    tabs, graph = main.children
    assert tabs is view.tabs and tabs.titles[:2] == ("config", "component")
    assert contains(tabs.children[0], builder.form.widget)  # the form is the first tab's content: the bar above it
    assert contains(graph, builder.explorer.graph_pane) and not contains(tabs, builder.explorer.graph_pane)
    for panel in tabs.children:  # each tab scrolls in its own box about the graph's height: the graph stays beside
        assert "rlw-builder-panel" in panel._dom_classes and panel.layout.max_height == PANEL_HEIGHT
    assert builder.explorer.graph_pane.height == GRAPH_HEIGHT


def test_a_long_error_goes_to_the_status_row_not_the_header(builder):
    builder.set("update/batch_size", -5)
    assert "config error" in builder.status and "batch_size" in builder.view.status.value
    header = builder.view.widget.children[0]
    assert all(not isinstance(child, w.HTML) or "config error" not in child.value for child in walk(header))


def test_the_probe_button_shows_its_whole_label(builder):
    button = builder.view.probe_box.children[0]
    assert button.description == "Probe the current graph" and button.layout.width == "auto"


# ----- busy indicator ----------------------------------------------------------------------------------------------
def test_builds_and_backend_switches_show_the_busy_line_while_they_run(builder):
    seen: list[str] = []
    during: list[str] = []
    builder.view.busy.observe(lambda change: seen.append(change.new), names="label")
    original = builder._make_agent

    def make_agent(config):  # what the busy line says while the agent is made and built
        during.append(builder.view.busy.label)
        return original(config)

    builder._make_agent = make_agent
    assert builder.set("update/batch_size", 32)
    assert builder.set_backend("tf"), builder.status
    assert seen == ["building on torch", "", "building on tf", ""] and during == ["building on torch",
                                                                                 "building on tf"]
    assert builder.view.busy.label == "" and builder.view.busy.delay == 0.5  # the browser shows it after 0.5 s


def test_a_failed_build_clears_the_busy_line_too(builder):
    assert not builder.set("policy/network/0/units", 0)
    assert builder.view.busy.label == "" and builder.error is not None


def test_showing_the_builder_starts_importing_the_other_backends_in_the_background():
    code = ("import sys; from rlworkbench.workbench.builder.preload import preload_backends\n"
            "assert 'tensorflow' not in sys.modules\n"
            "thread = preload_backends(); assert thread is not None and thread.daemon; thread.join()\n"
            "assert 'tensorflow' in sys.modules and 'rlworkbench.backends.tf' in sys.modules\n"
            "assert preload_backends() is None  # once per process\n")
    env = {**{k: v for k, v in os.environ.items() if k != PRELOAD_ENV}, "TF_CPP_MIN_LOG_LEVEL": "2"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_background_import_steps_aside_only_for_builds_on_imported_backends(builder):
    from rlworkbench.workbench.builder import preload

    with preload.paused("torch"):  # torch is imported: a torch build asks the import to wait
        assert preload._running["builds"] == 1
    with preload.paused("not-imported"):  # a build that needs the import to go on does not
        assert preload._running["builds"] == 0
    assert preload._running["builds"] == 0


# ----- the form ----------------------------------------------------------------------------------------------------
def test_optional_fields_and_every_choice_are_labeled(builder):
    form = builder.form
    row_of = {id(child): row for row in walk(form.widget) if isinstance(row, w.HBox) for child in row.children}
    menu = form.choice_menu("optimizer/clip_grad_norm")
    row = row_of[id(menu)]
    assert isinstance(row.children[0], w.Label) and row.children[0].value == "clip_grad_norm (optional)"
    assert menu.options == ("none", "clip_grad_norm")
    for dropdown in (x for x in walk(form.widget) if isinstance(x, w.Dropdown)):  # no bare menus, but a list
        row = row_of.get(id(dropdown))  # entry's type (its list's accordion names it)
        label = row.children[0] if row is not None and len(row.children) > 1 else None
        assert (isinstance(label, w.Label) and label.value) or dropdown.options[0] == "dense", dropdown.options


def test_labels_are_whole_and_carry_tooltips(builder):
    labels = [x for x in walk(builder.form.widget) if isinstance(x, w.Label) and x.value]
    assert "units ≥ 1 ≤ 65536" in [label.value for label in labels]  # not cut: the browser wraps it (CSS)
    assert "bias_initializer (JSON)" in [label.value for label in labels]
    choice_labels = [label for label in labels if "rlw-choice-label" in label._dom_classes]
    assert choice_labels and all(label.tooltip for label in choice_labels)


@pytest.mark.parametrize("layer", ["clip", "dense", "conv2d", "image_resize"])
def test_a_new_layer_opens_with_sensible_defaults(builder, layer):
    entries = builder.form.field("policy/network")
    add = next(x for x in walk(entries) if isinstance(x, w.Button) and x.description == "Add entry")
    add.click()
    builder.form.choice_menu("policy/network/2").value = layer
    values = builder.form.data["policy"]["network"][2]
    if layer == "clip":
        assert values["low"] < values["high"], values
    for key in ("units", "filters", "width", "height"):
        assert values.get(key, 2) > 1, values


# ----- export ------------------------------------------------------------------------------------------------------
def test_the_default_export_name_is_never_a_shipped_configs(builder):
    shipped = {f"{name}.json" for name in builtin_configs()}
    assert builder.view.export_path.value == "dqn_cartpole-custom.json"
    assert all(default_export_name(name) not in shipped for name in builtin_configs())


def test_export_refuses_a_shipped_configs_file_and_leaves_it_as_it_was(builder):
    from importlib import resources

    target = resources.files("rlworkbench.agents") / "configs" / "dqn_cartpole.json"
    before = target.read_text()
    assert shipped_config_path(str(target)) == "dqn_cartpole"
    builder.set("update/batch_size", 32)
    with pytest.raises(ConfigError, match="shipped config 'dqn_cartpole'"):
        builder.export(str(target))
    builder.view.export_path.value = str(target)
    builder.view.save_button.click()
    assert "shipped config" in builder.status and target.read_text() == before


def test_saving_over_an_existing_file_asks_first(builder, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    view = builder.view
    view.save_button.click()
    written = tmp_path / "dqn_cartpole-custom.json"
    assert json.loads(written.read_text()) == builder.config and "written to" in view.export_status.value
    builder.set("update/batch_size", 32)
    view.save_button.click()  # the file exists now: asks
    assert json.loads(written.read_text())["update"]["batch_size"] != 32
    assert view.save_button.description == "Overwrite" and "exists" in view.export_status.value
    view.save_button.click()
    assert json.loads(written.read_text())["update"]["batch_size"] == 32 and view.save_button.description == "Save JSON"
