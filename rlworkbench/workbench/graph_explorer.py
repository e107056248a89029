"""``GraphExplorer(component)``: the rendered component graph, a component tree and the details of the selected
component (API methods with input → output spaces, device, variables), live.

It listens to the tree (:meth:`Component.on_change`): adding, replacing or removing sub-components and every
build of the root redraw it, whoever did them. The device map is editable: pick a device for the selected
component, press *Rebuild* (or call :meth:`rebuild`) and the tree is built again on the new devices — weights
kept — and redrawn in the new colours. An agent gets the new executor.

In the tree, ``○`` marks components the latest build has not built (new, or never called). The drawing opens
where its node labels are at least 9 px on screen and says its zoom, zooms with the mouse wheel and pans by
dragging (:class:`GraphPane`); selecting a component brings it into view. Everything the widget does is a method
usable from code: :meth:`select`, :meth:`set_device`, :meth:`rebuild`, :meth:`refresh`, :meth:`look_at`,
:meth:`close`; :attr:`svg`, :attr:`details` and :attr:`status` hold what is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.errors import ConfigError
from rlworkbench.visualize.graph_diff import GraphChanges
from rlworkbench.workbench.explorer_details import available_devices, details_html, tree_options
from rlworkbench.workbench.explorer_render import (
    TABLE_CSS,
    error_html,
    error_paths,
    error_text,
    graph_drawing,
    status_html,
)
from rlworkbench.workbench.explorer_target import Target
from rlworkbench.workbench.graph_pane import GraphPane

ALL = "all"  # option values of "no filter" / "no map entry" (a None value shows as a blank dropdown)
INHERIT = "(inherit)"


class GraphExplorer:
    """Explores a Component, Agent or Executor; ``input_spaces``/``backend``/``seed`` are for rebuilds (default:
    those of the latest build), ``device_map`` the starting device map (component paths below the root, as for
    ``build``). ``depth``/``api``: the drawing's initial depth and API-method filter. Attributes a caller may
    set: ``changes`` (differences since a previous build, marked in the drawing), ``highlight`` (paths drawn in
    red) and ``after_rebuild`` (called with the error, or None, when a :meth:`rebuild` ends) — GraphBuilder's."""

    def __init__(self, target: Any, input_spaces: Mapping[str, Any] | None = None, backend: str | None = None,
                 device_map: Mapping[str, str] | None = None, seed: int | None = None, *, depth: int | None = None,
                 api: str | None = None):
        self.target = Target(target, input_spaces, backend, seed)
        self.device_map: dict[str, str] = dict(device_map or {})
        self.selected: str = self.component.path
        self.depth, self.api = depth, api
        self.changes: GraphChanges | None = None
        self.highlight: list[str] = []
        self.after_rebuild: Callable[[BaseException | None], None] | None = None
        self.edge_labels: dict[tuple[str, str], str] = {}  # of the latest drawing, for the next build's changes
        self.svg = self.details = self.status = ""
        self.error: BaseException | None = None
        self.events: list[tuple[str, str]] = []  # (event, component path) as heard from the tree
        self.builds = 0
        self._busy = self._syncing = False
        self._devices: dict[str, list[str]] = {}
        self._make_widgets()
        self._root = self.target.root
        self._unsubscribe: Callable[[], None] = self._root.on_change(self._on_change)
        self.refresh()

    # ----- what is looked at ----------------------------------------------------------------------------------
    @property
    def component(self) -> Component:
        """The component in focus (an agent's root for an agent)."""
        return self.target.component

    @property
    def selected_component(self) -> Component:
        return self._find(self.selected)

    @property
    def executor(self) -> Executor | None:
        """The executor of the current build (after :meth:`rebuild`: the new one)."""
        return self.target.executor()

    # ----- actions --------------------------------------------------------------------------------------------
    def select(self, path: str) -> None:
        """Shows the details of the component at ``path`` (full, or relative to the focus) and marks it in blue."""
        self.selected = self._find(path).path
        self._sync_controls()
        self._draw()
        self.graph_pane.focus_on(self.selected)

    def look_at(self, target: Any, changes: GraphChanges | None = None, highlight: list[str] | None = None) -> None:
        """Explores another Component, Agent or Executor in the same widget (GraphBuilder calls it after every
        rebuild), with ``changes`` since the previous one marked and ``highlight`` paths in red; the selection
        stays where its path still exists and the device map keeps its entries."""
        self.target = Target(target)
        self.changes, self.highlight = changes, list(highlight or [])
        self.error, self.error_pane.value = None, ""
        self.refresh()  # (listens to the new tree instead of the old one)

    def set_device(self, path: str, device: str | None) -> None:
        """Puts the component at ``path`` (and what inherits from it) on ``device`` at the next :meth:`rebuild`;
        ``None`` removes its device map entry."""
        component = self._find(path)
        key = self._map_key(component)
        if device is None:
            self.device_map.pop(key, None)
        else:
            from rlworkbench.core.backend import get_backend

            devices = self._device_list()
            try:
                normalized = get_backend(self.target.backend_name).normalize_device(device)
            except (ValueError, RuntimeError) as error:
                raise ConfigError(f"not a device name: {error}", component=component.path, argument="device",
                                  expected=devices, got=device) from error
            if normalized not in devices:
                raise ConfigError(f"no such device on {self.target.backend_name}", component=component.path,
                                  argument="device", expected=devices, got=device)
            self.device_map[key] = normalized
        self._set_status(f"device map {self.device_map or '{}'} — rebuild to apply")
        self._sync_controls()

    def rebuild(self) -> Executor:
        """Builds the tree again with the device map (weights kept); redraws. Raises what the build raised (after
        showing it, with the offending component highlighted)."""
        started = time.perf_counter()
        self._busy, self.error = True, None
        try:
            executor = self.target.rebuild(self.device_map)
        except Exception as error:
            self.error = error
            self.error_pane.value = error_html(error, self.component)
            self._set_status(f"rebuild failed — {error_text(error)}", error=True)
            raise
        finally:
            self._busy = False
            self.refresh(keep_status=True)
            if self.error is not None:  # bring the offending component into view
                self.graph_pane.focus_on(next(iter(error_paths(self.error)), None))
            if self.after_rebuild is not None:
                self.after_rebuild(self.error)
        self.builds += 1
        self.error, self.error_pane.value = None, ""
        self._set_status(f"rebuilt on {executor.backend.name} in {time.perf_counter() - started:.2f} s "
                         f"(rebuild #{self.builds}) · device map {self.device_map or '{}'}")
        return executor

    def refresh(self, keep_status: bool = False) -> None:
        """Re-reads the tree and the latest build and redraws everything."""
        if self.target.root is not self._root:  # the focus moved into another tree
            self._unsubscribe()
            self._root = self.target.root
            self._unsubscribe = self._root.on_change(self._on_change)
        if not any(c.path == self.selected for c in self.component.walk()):
            self.selected = self.component.path
        graph = self.target.graph
        apis = [] if graph is None else [n for n in self.component.api_methods if graph.calls_of(self.component, n)]
        if self.api not in apis:
            self.api = None
        depth = max(c.path.count("/") for c in self.component.walk()) - self.component.path.count("/")
        self._syncing = True
        try:
            self.tree.options = tree_options(self.component)
            self.tree.rows = min(max(len(self.tree.options), 4), 16)
            self.api_menu.options = [ALL] + apis
            self.depth_menu.options = [(ALL, ALL)] + [(str(d), d) for d in range(depth + 1)]
            if self.depth is not None and self.depth > depth:
                self.depth = None
            self.device_menu.options = [INHERIT] + self._device_list()
        finally:
            self._syncing = False
        self._sync_controls()
        self._draw()
        if not keep_status:
            state = "not built" if graph is None or graph.backend_name is None else (
                f"stuck on {graph.backend_name}" if graph.stuck else f"built on {graph.backend_name}")
            self._set_status(f"{self.component.path}: {state}")

    def close(self) -> None:
        """Stops listening to the tree and closes the widgets."""
        self._unsubscribe()
        for widget in self._all_widgets:
            widget.close()

    # ----- drawing --------------------------------------------------------------------------------------------
    def _draw(self) -> None:
        graph = self.target.graph
        selected = self.selected_component
        self.details = details_html(selected, graph)
        self.details_pane.value = TABLE_CSS + self.details
        self.svg, self.edge_labels = graph_drawing(self.component, selected=selected.path, depth=self.depth,
                                                   api=self.api, changes=self.changes, highlight=self.highlight)
        self.graph_pane.svg = self.svg

    def _on_change(self, event: str, component: Component) -> None:
        self.events.append((event, component.path))
        if self._busy:
            return
        try:  # never let a drawing problem escape into the caller's replace_component or build
            self.refresh()
            if event == "structure":
                self._set_status(f"'{component.path}' changed: rebuild to get spaces and variables")
        except Exception as error:
            self._set_status(f"redraw failed — {error_text(error)}", error=True)

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status = text
        self.status_pane.value = status_html(text, error)

    # ----- helpers --------------------------------------------------------------------------------------------
    def _find(self, path: str) -> Component:
        focus = self.component
        if path == focus.path or not path:
            return focus
        relative = path[len(focus.path) + 1:] if path.startswith(focus.path + "/") else path
        return focus.find(relative)

    def _map_key(self, component: Component) -> str:
        root = self.target.root
        return component.path if component is root else component.relative_path(root)

    def _device_list(self) -> list[str]:
        backend = self.target.backend_name
        if backend not in self._devices:
            self._devices[backend] = available_devices(backend)
        return self._devices[backend]

    def _sync_controls(self) -> None:
        self._syncing = True
        try:
            self.tree.value = self.selected
            self.api_menu.value = self.api or ALL
            self.depth_menu.value = ALL if self.depth is None else self.depth
            device = self.device_map.get(self._map_key(self.selected_component), INHERIT)
            if device not in self.device_menu.options:
                self.device_menu.options = [*self.device_menu.options, device]
            self.device_menu.value = device
        finally:
            self._syncing = False

    def _make_widgets(self) -> None:
        import ipywidgets as w

        self.tree = w.Select(options=[], layout=w.Layout(width="100%"))
        self.device_menu = w.Dropdown(options=[INHERIT], description="device",
                                      layout=w.Layout(width="260px"))
        self.rebuild_button = w.Button(description="Rebuild", icon="refresh", button_style="primary",
                                       tooltip="build the tree again with the device map (weights kept)")
        self.depth_menu = w.Dropdown(options=[ALL], description="depth", layout=w.Layout(width="160px"))
        self.api_menu = w.Dropdown(options=[ALL], description="API", layout=w.Layout(width="260px"))
        self.status_pane, self.details_pane = w.HTML(), w.HTML()
        self.graph_pane, self.error_pane = GraphPane(), w.HTML()
        self.tree.observe(self._on_tree, names="value")
        self.device_menu.observe(self._on_device, names="value")
        self.depth_menu.observe(self._on_view_option, names="value")
        self.api_menu.observe(self._on_view_option, names="value")
        self.rebuild_button.on_click(lambda _: self._guarded(self.rebuild))
        left = w.VBox([self.tree, w.HBox([self.device_menu, self.rebuild_button]), self.status_pane,
                       self.details_pane], layout=w.Layout(width="42%", min_width="360px", overflow="auto visible"))
        # (a wide details table scrolls in its column instead of running under the graph pane)
        right = w.VBox([w.HBox([self.depth_menu, self.api_menu]), self.graph_pane, self.error_pane],
                       layout=w.Layout(width="58%"))
        self.widget = w.HBox([left, right], layout=w.Layout(width="100%"))
        self._all_widgets = [self.tree, self.device_menu, self.rebuild_button, self.depth_menu, self.api_menu,
                             self.status_pane, self.details_pane, self.graph_pane, self.error_pane,
                             left, right, self.widget]

    def _on_tree(self, change: dict[str, Any]) -> None:
        if not self._syncing and change["new"] is not None:
            self._guarded(self.select, change["new"])

    def _on_device(self, change: dict[str, Any]) -> None:
        if not self._syncing:
            self._guarded(self.set_device, self.selected, None if change["new"] == INHERIT else change["new"])

    def _on_view_option(self, _: dict[str, Any]) -> None:
        if not self._syncing:
            depth, api = self.depth_menu.value, self.api_menu.value
            self.depth, self.api = (None if depth == ALL else depth), (None if api == ALL else api)
            self._guarded(self._draw)

    def _guarded(self, action: Callable[..., Any], *args: Any) -> None:
        """Runs a widget action; errors are shown in the widget, never as a traceback in the notebook."""
        try:
            action(*args)
        except Exception as error:
            if self.error is not error:
                self._set_status(error_text(error), error=True)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"GraphExplorer({self.component.path!r}, selected={self.selected!r})"


__all__ = ["GraphExplorer"]
