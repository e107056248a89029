"""The GraphBuilder's widget: a header (title, backend), a status row of its own (the busy indicator, then the last
build's result or error, wrapping), and below them the tabs beside the live graph — *config* (the form), then the
selected component (tree, device, details), a probe, export, promote and a sweep (:mod:`.sweep_tab`). Each tab's
content scrolls inside a box as tall as the graph column, so the graph stays in view while the form scrolls (CSS
``position: sticky`` cannot work here: JupyterLab's output areas clip their overflow). A run's live view appears
under them. Every button calls the builder's public method of the same name, so the widget does nothing code
cannot. It is the builder core's view (:mod:`.core_view`): the core tells it when the status, the build, the config
being edited or its errors change."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from rlworkbench.core.backend import available_backends
from rlworkbench.errors import ConfigError
from rlworkbench.workbench.builder.busy import BusyIndicator
from rlworkbench.workbench.builder.copy_button import CopyButton
from rlworkbench.workbench.builder.export_name import default_export_name, shipped_config_path
from rlworkbench.workbench.builder.form_rows import wrapping
from rlworkbench.workbench.builder.sweep_tab import SweepTab
from rlworkbench.workbench.explorer_render import status_html
from rlworkbench.workbench.targets import known_targets

if TYPE_CHECKING:
    from rlworkbench.workbench.builder.graph_builder import GraphBuilder

_TABS = ("config", "component", "probe", "export", "promote", "sweep")
GRAPH_HEIGHT = 640  #: the graph pane's height (px); each tab's content scrolls within about as much
PANEL_HEIGHT = f"{GRAPH_HEIGHT + 40}px"


class BuilderView:
    """Lays out ``builder``'s widgets (see the module docstring)."""

    def __init__(self, builder: GraphBuilder):
        self.builder = builder
        self.quiet = False  #: True while the builder writes the form (its change events are not edits)
        explorer = builder.explorer
        self.status = w.HTML(layout=w.Layout(flex="1 1 auto", min_width="0"))
        self.said(builder.status, builder.status_is_error)
        self.busy = BusyIndicator()
        self.backend_menu = w.ToggleButtons(options=list(available_backends()), value=builder.backend,
                                            tooltip="the backend the agent is built on", style={"button_width": "70px"})
        self.backend_menu.observe(self._on_backend, names="value")
        header = w.HBox([w.HTML(f"<b>GraphBuilder</b> · {builder.source.name}"), w.HTML("backend"),
                         self.backend_menu], layout=w.Layout(align_items="center"))
        header.add_class("rlw-builder-header")
        status_row = w.HBox([self.busy, self.status], layout=w.Layout(width="100%"))
        status_row.add_class("rlw-builder-status-row")
        explorer.graph_pane.height = GRAPH_HEIGHT
        graph = w.VBox([w.HBox([explorer.depth_menu, explorer.api_menu]), explorer.graph_pane, explorer.error_pane])
        graph.add_class("rlw-builder-graph")
        if builder.form is not None:
            config_tab = builder.form.widget
        else:
            config_tab = w.HTML("<i>a code-composed component: no config form — replace sub-components from code, "
                                "pick devices in the <b>component</b> tab, rebuild</i>")
        component_tab = w.VBox([explorer.tree, w.HBox([explorer.device_menu, explorer.rebuild_button]),
                                explorer.status_pane, explorer.details_pane])
        probe_button = w.Button(description="Probe the current graph", icon="play", layout=w.Layout(width="auto"))
        self.probe_box = w.VBox([probe_button])
        probe_button.on_click(lambda _: self._guarded(builder.probe))
        self.sweep_tab = SweepTab(builder, self._guarded) if builder.sweep_draft is not None else None
        sweep = self.sweep_tab.widget if self.sweep_tab is not None else \
            w.HTML("<i>a sweep varies fields of a config: this builder shows a code-composed component</i>")
        panels = [config_tab, component_tab, self.probe_box, self._export_tab(), self._promote_tab(), sweep]
        self.tabs = w.Tab(children=[_panel(child) for child in panels], titles=_TABS)
        self.tabs.add_class("rlw-builder-side")
        main = w.HBox([self.tabs, graph], layout=w.Layout(width="100%"))
        main.add_class("rlw-builder-main")
        self.run_output = w.VBox()  # the promoted Run's live view
        self.widget = w.VBox([header, status_row, main, self.run_output], layout=w.Layout(width="100%"))
        self.widget.add_class("rlw-graph-builder")

    # ----- tabs -----------------------------------------------------------------------------------------------
    def _export_tab(self) -> w.Widget:
        self.export_path = w.Text(value=default_export_name(self.builder.source.name), description="file",
                                  layout=w.Layout(width="auto", flex="1 1 auto"))
        self.export_path.observe(lambda _: self._confirm_overwrite(False), names="value")
        self.save_button = w.Button(description="Save JSON", icon="save", layout=w.Layout(width="auto"))
        self.save_button.on_click(lambda _: self._guarded(self._save))
        self.copy_button = CopyButton()
        self.export_text = w.Textarea(layout=w.Layout(width="100%", height="160px"))
        self.export_status = w.HTML()
        self._overwrite_confirmed = False
        self._sync_export()
        self.save_button.disabled = self.builder.form is None
        return w.VBox([w.HBox([self.export_path, self.save_button], layout=wrapping()), self.copy_button,
                       self.export_status, self.export_text])

    def _promote_tab(self) -> w.Widget:
        self.target_menu = w.Dropdown(options=known_targets(), value="local", description="to")
        self.timesteps = w.BoundedIntText(value=5000, min=1, max=10**9, description="timesteps")
        self.num_envs = w.BoundedIntText(value=1, min=1, max=1024, description="envs")
        start = w.Button(description="Promote", icon="rocket", button_style="success",
                         disabled=self.builder.form is None)
        start.on_click(lambda _: self._guarded(self._promote))
        return w.VBox([w.HBox([self.target_menu, self.timesteps, self.num_envs, start], layout=wrapping()),
                       w.HTML("<small>multi_gpu and ray take their own settings from code: "
                              "<code>builder.promote(to='ray', workers=2)</code></small>")])

    def _save(self) -> None:
        """Writes the export; a shipped config's file is refused, an existing file needs a second click."""
        path = Path(self.export_path.value).expanduser()
        shipped = shipped_config_path(path)
        if shipped is not None:
            raise ConfigError(f"{path} is the shipped config '{shipped}': save the edited config under another "
                              "name", argument="path", expected=f"e.g. {default_export_name(shipped)}",
                              got=str(path))
        if path.exists() and not self._overwrite_confirmed:
            self._confirm_overwrite(True)
            self.export_status.value = (f"<span style='color:#92400e'>⚠ <code>{path}</code> exists: click "
                                        "<b>Overwrite</b> to replace it, or change the name</span>")
            return
        self.builder.export(path)
        self._confirm_overwrite(False)
        self.export_status.value = f"written to <code>{path.resolve()}</code>"

    def _confirm_overwrite(self, asking: bool) -> None:
        self._overwrite_confirmed = asking
        self.save_button.description = "Overwrite" if asking else "Save JSON"
        self.save_button.button_style = "warning" if asking else ""

    def _promote(self) -> None:
        self.builder.promote(self.target_menu.value, timesteps=self.timesteps.value, num_envs=self.num_envs.value)

    # ----- called by the builder ------------------------------------------------------------------------------
    def working(self, label: str) -> AbstractContextManager[None]:
        return self.busy.showing(label)

    def said(self, text: str, error: bool) -> None:
        self.status.value = status_html(text, error, "rlw-builder-status")

    def read_draft(self) -> dict[str, object] | None:
        return None if self.builder.form is None else self.builder.form.data

    def write_draft(self, config: Mapping[str, object]) -> None:
        if self.builder.form is not None:
            self.quiet = True
            try:
                self.builder.form.data = config
            finally:
                self.quiet = False

    def mark_error(self, error: ConfigError) -> str | None:
        return None if self.builder.form is None else self.builder.form.show_error(error)

    def clear_errors(self) -> None:
        if self.builder.form is not None:
            self.builder.form.clear_errors()

    def after_build(self) -> None:
        self._sync_export()
        self.sweep_changed()
        if self.backend_menu.value != self.builder.backend:
            self.backend_menu.value = self.builder.backend
        self.probe_box.children = self.probe_box.children[:1]  # a probe of the old graph would mislead

    def show_probe(self, probe: Any) -> None:
        self.probe_box.children = (self.probe_box.children[0], probe.widget)
        self.tabs.selected_index = _TABS.index("probe")

    def show_run(self, run: Any) -> None:
        self.run_output.children = (run.widget(),)

    def sweep_changed(self) -> None:
        if self.sweep_tab is not None:
            self.sweep_tab.refresh()

    def show_experiment(self, experiment: Any) -> None:
        assert self.sweep_tab is not None  # (a launch needs the form)
        self.sweep_tab.show_experiment(experiment)
        self.tabs.selected_index = _TABS.index("sweep")

    def close(self) -> None:
        self.widget.close()

    # ----- helpers --------------------------------------------------------------------------------------------
    def _sync_export(self) -> None:
        if self.builder.config is None:
            self.export_text.value = f"(nothing to export: {self.builder.no_config_reason()})"
            return
        code = self.builder.export_code()
        self.export_text.value = code
        self.copy_button.text = code

    def _on_backend(self, change: dict[str, object]) -> None:
        if change["new"] != self.builder.backend:
            self._guarded(self.builder.set_backend, change["new"])

    def _guarded(self, action: Any, *args: object) -> None:
        try:
            action(*args)
        except Exception as error:  # a button's action: shown in the status line, never raised into the frontend
            self.builder.show_error(error)


def _panel(content: w.Widget) -> w.Box:
    """A tab's content in a box that scrolls vertically within about the graph column's height."""
    box = w.VBox([content], layout=w.Layout(max_height=PANEL_HEIGHT, width="100%"))
    box.add_class("rlw-builder-panel")
    return box
