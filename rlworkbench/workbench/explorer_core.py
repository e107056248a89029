"""``ExplorerCore``: what :class:`~rlworkbench.workbench.graph_explorer.GraphExplorer` shows, without widgets — the
tree looked at, the selection, the device map, the drawing (``svg``), the selected component's ``details`` and a
``status`` line; it imports no ipywidgets.

It listens to the tree (:meth:`Component.on_change`): adding, replacing or removing sub-components and every build
of the root redraw it, whoever did them. A view subscribes with :meth:`listen` and hears what changed: ``"drawn"``
(``svg``/``details``), ``"status"``, ``"controls"`` (tree, filters, device menu), ``"error"`` and ``"focus"`` (a
component to bring into view; :attr:`focus` holds it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.errors import ConfigError
from rlworkbench.visualize.graph_diff import GraphChanges
from rlworkbench.workbench.explorer_details import available_devices, details_html
from rlworkbench.workbench.explorer_render import error_paths, error_text, graph_drawing
from rlworkbench.workbench.explorer_target import Target

ExplorerEvent = Literal["drawn", "status", "controls", "error", "focus"]
Listener = Callable[[ExplorerEvent], None]


class ExplorerCore:
    """Explores a Component, Agent or Executor; arguments as for :class:`GraphExplorer`. Attributes a caller may
    set: ``changes`` (differences since a previous build, marked in the drawing), ``highlight`` (paths drawn in
    red) and ``after_rebuild`` (called with the error, or None, when a :meth:`rebuild` ends)."""

    def __init__(self, target: Any, input_spaces: Mapping[str, object] | None = None, backend: str | None = None,
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
        self.status_is_error = False
        self.error: BaseException | None = None
        self.focus: str | None = None  #: the component last brought into view
        self.events: list[tuple[str, str]] = []  # (event, component path) as heard from the tree
        self.builds = 0
        self.rebuilding = False  #: True while :meth:`rebuild` builds (its own tree events are not redrawn)
        self.apis: list[str] = []  #: the focus's API methods the latest build called (the API filter's options)
        self.max_depth = 0  #: how deep the focus's tree goes (the depth filter's options)
        self._listeners: list[Listener] = []
        self._devices: dict[str, list[str]] = {}
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
        return self.find(self.selected)

    @property
    def executor(self) -> Executor | None:
        """The executor of the current build (after :meth:`rebuild`: the new one)."""
        return self.target.executor()

    def device_list(self) -> list[str]:
        """The devices of the backend the tree builds on."""
        backend = self.target.backend_name
        if backend not in self._devices:
            self._devices[backend] = available_devices(backend)
        return self._devices[backend]

    def map_key(self, component: Component) -> str:
        """The device map's key of ``component`` (its path below the root)."""
        root = self.target.root
        return component.path if component is root else component.relative_path(root)

    def find(self, path: str) -> Component:
        """The component at ``path`` (full, or relative to the focus)."""
        focus = self.component
        if path == focus.path or not path:
            return focus
        relative = path[len(focus.path) + 1:] if path.startswith(focus.path + "/") else path
        return focus.find(relative)

    def listen(self, listener: Listener) -> Callable[[], None]:
        """Calls ``listener(event)`` on every change of what is shown; returns how to stop."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    # ----- actions --------------------------------------------------------------------------------------------
    def select(self, path: str) -> None:
        """Shows the details of the component at ``path`` and marks it in blue."""
        self.selected = self.find(path).path
        self._tell("controls")
        self.draw()
        self.bring_into_view(self.selected)

    def set_view(self, depth: int | None, api: str | None) -> None:
        """Draws down to ``depth`` only the calls of ``api`` (None: all)."""
        self.depth, self.api = depth, api
        self.draw()

    def bring_into_view(self, path: str | None) -> None:
        """Asks the views to zoom to the component at ``path`` (None: nowhere in particular)."""
        self.focus = path
        self._tell("focus")

    def look_at(self, target: Any, changes: GraphChanges | None = None, highlight: list[str] | None = None) -> None:
        """Explores another Component, Agent or Executor, with ``changes`` since the previous one marked and
        ``highlight`` paths in red; the selection stays where its path still exists, the device map keeps its
        entries."""
        self.target = Target(target)
        self.changes, self.highlight = changes, list(highlight or [])
        self._set_error(None)
        self.refresh()  # (listens to the new tree instead of the old one)

    def set_device(self, path: str, device: str | None) -> None:
        """Puts the component at ``path`` (and what inherits from it) on ``device`` at the next :meth:`rebuild`;
        ``None`` removes its device map entry."""
        component = self.find(path)
        key = self.map_key(component)
        if device is None:
            self.device_map.pop(key, None)
        else:
            from rlworkbench.core.backend import get_backend

            devices = self.device_list()
            try:
                normalized = get_backend(self.target.backend_name).normalize_device(device)
            except (ValueError, RuntimeError) as error:
                raise ConfigError(f"not a device name: {error}", component=component.path, argument="device",
                                  expected=devices, got=device) from error
            if normalized not in devices:
                raise ConfigError(f"no such device on {self.target.backend_name}", component=component.path,
                                  argument="device", expected=devices, got=device)
            self.device_map[key] = normalized
        self.set_status(f"device map {self.device_map or '{}'} — rebuild to apply")
        self._tell("controls")

    def rebuild(self) -> Executor:
        """Builds the tree again with the device map (weights kept); redraws. Raises what the build raised (after
        showing it, with the offending component highlighted)."""
        started = time.perf_counter()
        self.rebuilding = True
        self._set_error(None)
        try:
            executor = self.target.rebuild(self.device_map)
        except Exception as error:
            self._set_error(error)
            self.set_status(f"rebuild failed — {error_text(error)}", error=True)
            raise
        finally:
            self.rebuilding = False
            self.refresh(keep_status=True)
            if self.error is not None:  # bring the offending component into view
                self.bring_into_view(next(iter(error_paths(self.error)), None))
            if self.after_rebuild is not None:
                self.after_rebuild(self.error)
        self.builds += 1
        self._set_error(None)
        self.set_status(f"rebuilt on {executor.backend.name} in {time.perf_counter() - started:.2f} s "
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
        self.apis = [] if graph is None else [n for n in self.component.api_methods
                                              if graph.calls_of(self.component, n)]
        if self.api not in self.apis:
            self.api = None
        self.max_depth = max(c.path.count("/") for c in self.component.walk()) - self.component.path.count("/")
        if self.depth is not None and self.depth > self.max_depth:
            self.depth = None
        self._tell("controls")
        self.draw()
        if not keep_status:
            state = "not built" if graph is None or graph.backend_name is None else (
                f"stuck on {graph.backend_name}" if graph.stuck else f"built on {graph.backend_name}")
            self.set_status(f"{self.component.path}: {state}")

    def draw(self) -> None:
        """Draws the focus (with the selection, filters, changes and highlights) and the selection's details."""
        graph = self.target.graph
        selected = self.selected_component
        self.details = details_html(selected, graph)
        self.svg, self.edge_labels = graph_drawing(self.component, selected=selected.path, depth=self.depth,
                                                   api=self.api, changes=self.changes, highlight=self.highlight)
        self._tell("drawn")

    def set_status(self, text: str, error: bool = False) -> None:
        """The status line (``error``: shown as one)."""
        self.status, self.status_is_error = text, error
        self._tell("status")

    def close(self) -> None:
        """Stops listening to the tree."""
        self._unsubscribe()
        self._listeners.clear()

    # ----- helpers --------------------------------------------------------------------------------------------
    def _set_error(self, error: BaseException | None) -> None:
        self.error = error
        self._tell("error")

    def _on_change(self, event: str, component: Component) -> None:
        self.events.append((event, component.path))
        if self.rebuilding:
            return
        try:  # never let a drawing problem escape into the caller's replace_component or build
            self.refresh()
            if event == "structure":
                self.set_status(f"'{component.path}' changed: rebuild to get spaces and variables")
        except Exception as error:
            self.set_status(f"redraw failed — {error_text(error)}", error=True)

    def _tell(self, event: ExplorerEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.component.path!r}, selected={self.selected!r})"
