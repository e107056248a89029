"""The GraphBuilder's widget: a toolbar (backend, status), the form beside the live graph, and tabs below for the
selected component (tree, device, details), a probe, export, promote and a sweep (:mod:`.sweep_tab`); a run's live
view appears under them.
Every button calls the builder's public method of the same name, so the widget does nothing code cannot."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from rlworkbench.core.backend import available_backends
from rlworkbench.workbench.builder.copy_button import CopyButton
from rlworkbench.workbench.builder.sweep_tab import SweepTab
from rlworkbench.workbench.targets import known_targets

if TYPE_CHECKING:
    from rlworkbench.workbench.builder.graph_builder import GraphBuilder

_TABS = ("component", "probe", "export", "promote", "sweep")


class BuilderView:
    """Lays out ``builder``'s widgets (see the module docstring)."""

    def __init__(self, builder: GraphBuilder):
        self.builder = builder
        explorer = builder.explorer
        self.status = w.HTML()
        self.backend_menu = w.ToggleButtons(options=list(available_backends()), value=builder.backend,
                                            description="backend", style={"button_width": "70px"})
        self.backend_menu.observe(self._on_backend, names="value")
        toolbar = w.HBox([w.HTML(f"<b>GraphBuilder</b> · {builder.source.name}"), self.backend_menu, self.status],
                         layout=w.Layout(align_items="center"))
        graph = w.VBox([w.HBox([explorer.depth_menu, explorer.api_menu]), explorer.graph_pane, explorer.error_pane],
                       layout=w.Layout(flex="1 1 auto", min_width="0"))
        if builder.form is not None:
            form_box = w.VBox([builder.form.widget], layout=w.Layout(width="34%", min_width="300px"))
            middle = w.HBox([form_box, graph], layout=w.Layout(width="100%"))
        else:
            note = w.HTML("<i>a code-composed component: no config form — replace sub-components from code, pick "
                          "devices below, rebuild</i>")
            middle = w.VBox([note, graph], layout=w.Layout(width="100%"))
        component_tab = w.HBox([w.VBox([explorer.tree, w.HBox([explorer.device_menu, explorer.rebuild_button]),
                                        explorer.status_pane], layout=w.Layout(width="40%")),
                                explorer.details_pane], layout=w.Layout(width="100%"))
        self.probe_box = w.VBox([w.Button(description="Probe the current graph", icon="play")])
        self.probe_box.children[0].on_click(lambda _: self._guarded(builder.probe))
        self.sweep_tab = SweepTab(builder, self._guarded) if builder.sweep_draft is not None else None
        sweep = self.sweep_tab.widget if self.sweep_tab is not None else \
            w.HTML("<i>a sweep varies fields of a config: this builder shows a code-composed component</i>")
        self.tabs = w.Tab(children=[component_tab, self.probe_box, self._export_tab(), self._promote_tab(), sweep],
                          titles=_TABS)
        self.run_output = w.VBox()  # the promoted Run's live view
        self.widget = w.VBox([toolbar, middle, self.tabs, self.run_output], layout=w.Layout(width="100%"))
        self.widget.add_class("rlw-graph-builder")

    # ----- tabs -----------------------------------------------------------------------------------------------
    def _export_tab(self) -> w.Widget:
        self.export_path = w.Text(value=f"{self.builder.source.name}.json", description="file")
        save = w.Button(description="Save JSON", icon="save")
        save.on_click(lambda _: self._guarded(self._save))
        self.copy_button = CopyButton()
        self.export_text = w.Textarea(layout=w.Layout(width="100%", height="160px"))
        self.export_status = w.HTML()
        self._sync_export()
        disabled = self.builder.form is None
        save.disabled = disabled
        return w.VBox([w.HBox([self.export_path, save, self.copy_button]), self.export_status, self.export_text])

    def _promote_tab(self) -> w.Widget:
        self.target_menu = w.Dropdown(options=known_targets(), value="local", description="to")
        self.timesteps = w.BoundedIntText(value=5000, min=1, max=10**9, description="timesteps")
        self.num_envs = w.BoundedIntText(value=1, min=1, max=1024, description="envs")
        start = w.Button(description="Promote", icon="rocket", button_style="success",
                         disabled=self.builder.form is None)
        start.on_click(lambda _: self._guarded(self._promote))
        return w.VBox([w.HBox([self.target_menu, self.timesteps, self.num_envs, start]),
                       w.HTML("<small>multi_gpu and ray take their own settings from code: "
                              "<code>builder.promote(to='ray', workers=2)</code></small>")])

    def _save(self) -> None:
        self.builder.export(self.export_path.value)
        self.export_status.value = f"written to <code>{self.export_path.value}</code>"

    def _promote(self) -> None:
        self.builder.promote(self.target_menu.value, timesteps=self.timesteps.value, num_envs=self.num_envs.value)

    # ----- called by the builder ------------------------------------------------------------------------------
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

    def _on_backend(self, change: dict[str, Any]) -> None:
        if change["new"] != self.builder.backend:
            self._guarded(self.builder.set_backend, change["new"])

    def _guarded(self, action: Any, *args: Any) -> None:
        try:
            action(*args)
        except Exception as error:  # a button's action: shown in the status line, never raised into the frontend
            self.builder.show_error(error)
