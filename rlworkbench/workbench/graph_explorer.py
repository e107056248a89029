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

The state and its logic are :class:`~rlworkbench.workbench.explorer_core.ExplorerCore`'s (no widgets); this class
lays out its widgets and keeps them in step with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.visualize.graph_diff import GraphChanges
from rlworkbench.workbench.explorer_core import ExplorerCore, ExplorerEvent
from rlworkbench.workbench.explorer_details import tree_options
from rlworkbench.workbench.explorer_render import TABLE_CSS, error_html, error_text, status_html
from rlworkbench.workbench.graph_pane import GraphPane


def _of_core(name: str, doc: str) -> Any:
    """A read-only attribute of the explorer that is its core's ``name``."""
    return property(lambda self: getattr(self.core, name), doc=doc)


ALL = "all"  # option values of "no filter" / "no map entry" (a None value shows as a blank dropdown)
INHERIT = "(inherit)"


class GraphExplorer:
    """Explores a Component, Agent or Executor; ``input_spaces``/``backend``/``seed`` are for rebuilds (default:
    those of the latest build), ``device_map`` the starting device map (component paths below the root, as for
    ``build``). ``depth``/``api``: the drawing's initial depth and API-method filter. ``core``: an
    :class:`ExplorerCore` to show instead (``target`` and the rest are then not used). Attributes a caller may
    set: ``changes``, ``highlight`` and ``after_rebuild`` (see :class:`ExplorerCore`)."""

    def __init__(self, target: Any = None, input_spaces: Mapping[str, object] | None = None, backend: str | None = None,
                 device_map: Mapping[str, str] | None = None, seed: int | None = None, *, depth: int | None = None,
                 api: str | None = None, core: ExplorerCore | None = None):
        self.core = core if core is not None else ExplorerCore(target, input_spaces, backend, device_map, seed,
                                                               depth=depth, api=api)
        self._syncing = False
        self._make_widgets()
        self._stop_listening = self.core.listen(self._on_core)
        for event in ("controls", "drawn", "status", "error", "focus"):
            self._on_core(event)

    # ----- the core's state -----------------------------------------------------------------------------------
    target = _of_core("target", "the tree looked at (:class:`Target`)")
    device_map = _of_core("device_map", "component path below the root → device, for the next rebuild")
    selected = _of_core("selected", "the selected component's path")
    svg = _of_core("svg", "the drawing shown")
    details = _of_core("details", "the selected component's details (HTML)")
    status = _of_core("status", "the status line")
    error = _of_core("error", "what the latest rebuild raised (None: it built)")
    events = _of_core("events", "(event, component path) as heard from the tree")
    builds = _of_core("builds", "rebuilds so far")
    edge_labels = _of_core("edge_labels", "the edge labels of the latest drawing")
    rebuilding = _of_core("rebuilding", "whether a rebuild runs now")

    @property
    def changes(self) -> GraphChanges | None:
        return self.core.changes

    @changes.setter
    def changes(self, changes: GraphChanges | None) -> None:
        self.core.changes = changes

    @property
    def highlight(self) -> list[str]:
        return self.core.highlight

    @highlight.setter
    def highlight(self, paths: list[str]) -> None:
        self.core.highlight = paths

    @property
    def after_rebuild(self) -> Callable[[BaseException | None], None] | None:
        return self.core.after_rebuild

    @after_rebuild.setter
    def after_rebuild(self, callback: Callable[[BaseException | None], None] | None) -> None:
        self.core.after_rebuild = callback

    @property
    def component(self) -> Component:
        """The component in focus (an agent's root for an agent)."""
        return self.core.component

    @property
    def selected_component(self) -> Component:
        return self.core.selected_component

    @property
    def executor(self) -> Executor | None:
        """The executor of the current build (after :meth:`rebuild`: the new one)."""
        return self.core.executor

    # ----- actions (the core's) -------------------------------------------------------------------------------
    def select(self, path: str) -> None:
        """Shows the details of the component at ``path`` (full, or relative to the focus) and marks it in blue."""
        self.core.select(path)

    def look_at(self, target: Any, changes: GraphChanges | None = None, highlight: list[str] | None = None) -> None:
        """Explores another Component, Agent or Executor in the same widget (see :meth:`ExplorerCore.look_at`)."""
        self.core.look_at(target, changes, highlight)

    def set_device(self, path: str, device: str | None) -> None:
        """Puts the component at ``path`` on ``device`` at the next :meth:`rebuild` (None: its entry goes)."""
        self.core.set_device(path, device)

    def rebuild(self) -> Executor:
        """Builds the tree again with the device map (weights kept); redraws. Raises what the build raised."""
        return self.core.rebuild()

    def refresh(self, keep_status: bool = False) -> None:
        """Re-reads the tree and the latest build and redraws everything."""
        self.core.refresh(keep_status)

    def bring_into_view(self, path: str | None) -> None:
        """Zooms the drawing to the component at ``path``."""
        self.core.bring_into_view(path)

    def close(self) -> None:
        """Stops listening to the tree and closes the widgets."""
        self._stop_listening()
        self.core.close()
        for widget in self._all_widgets:
            widget.close()

    # ----- keeping the widgets in step ------------------------------------------------------------------------
    def _on_core(self, event: ExplorerEvent) -> None:
        core = self.core
        if event == "drawn":
            self.details_pane.value = TABLE_CSS + core.details
            self.graph_pane.svg = core.svg
        elif event == "status":
            self.status_pane.value = status_html(core.status, core.status_is_error)
        elif event == "error":
            self.error_pane.value = "" if core.error is None else error_html(core.error, core.component)
        elif event == "focus":
            self.graph_pane.focus_on(core.focus)
        else:
            self._sync_controls()

    def _sync_controls(self) -> None:
        core = self.core
        self._syncing = True
        try:
            self.tree.options = tree_options(core.component)
            self.tree.rows = min(max(len(self.tree.options), 4), 16)
            self.api_menu.options = [ALL] + core.apis
            self.depth_menu.options = [(ALL, ALL)] + [(str(d), d) for d in range(core.max_depth + 1)]
            self.device_menu.options = [INHERIT] + core.device_list()
            self.tree.value = core.selected
            self.api_menu.value = core.api or ALL
            self.depth_menu.value = ALL if core.depth is None else core.depth
            device = core.device_map.get(core.map_key(core.selected_component), INHERIT)
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

    def _on_tree(self, change: dict[str, object]) -> None:
        if not self._syncing and change["new"] is not None:
            self._guarded(self.select, change["new"])

    def _on_device(self, change: dict[str, object]) -> None:
        if not self._syncing:
            self._guarded(self.set_device, self.selected, None if change["new"] == INHERIT else change["new"])

    def _on_view_option(self, _: dict[str, object]) -> None:
        if not self._syncing:
            depth, api = self.depth_menu.value, self.api_menu.value
            self._guarded(self.core.set_view, None if depth == ALL else depth, None if api == ALL else api)

    def _guarded(self, action: Callable[..., object], *args: object) -> None:
        """Runs a widget action; errors are shown in the widget, never as a traceback in the notebook."""
        try:
            action(*args)
        except Exception as error:
            if self.error is not error:
                self.core.set_status(error_text(error), error=True)

    def _repr_mimebundle_(self, **kwargs: object) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        return f"GraphExplorer({self.component.path!r}, selected={self.selected!r})"


__all__ = ["GraphExplorer"]
