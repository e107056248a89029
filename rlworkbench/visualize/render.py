"""``render_graph``: a component graph as a graphviz ``Digraph``.

Components are nested clusters filled in their device's colour; inside them, API methods (boxes) and graph
functions (ellipses). Edges are calls — API method → API method of a sub-component, API method → graph
function — labelled with the spaces that flow in (and out, after ``→``) once the graph is built. Below
``depth`` a component's whole subtree folds into one box; ``api`` keeps only one API method's dataflow.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rlworkbench.core.component import Component
from rlworkbench.core.records import ApiCall, GraphFnCall, Record
from rlworkbench.errors import ConfigError
from rlworkbench.extras import require
from rlworkbench.spaces import Space
from rlworkbench.visualize.folding import Folding
from rlworkbench.visualize.graph_diff import GraphChanges
from rlworkbench.visualize.palette import (
    ADDED_COLOR,
    CHANGED_COLOR,
    DEFAULT_FILL,
    RECURRENT_COLOR,
    SELECT_COLOR,
    STUCK_COLOR,
    DevicePalette,
)
from rlworkbench.visualize.space_labels import space_label
from rlworkbench.visualize.views import GraphView, view_of

graphviz = require("graphviz", "drawing graphs (rlworkbench.visualize)")

Key = tuple[str | int | None, ...]
_FONT = "Helvetica"
_REMOVED_SHOWN = 6  # removed components the legend names; the rest are counted
HOME_CLASS = "rlw-home"
"""SVG class of the drawn component's own API methods: the place a view opens on (their callers: ``rlw-entry``)."""


def render_graph(target: Any, depth: int | None = None, api: str | None = None, spaces: bool = True,
                 devices: bool = True, *, highlight: Iterable[str | Component] | str | Component = (),
                 selected: str | Component | None = None, graph_fns: bool = True, fold_copies: bool = True,
                 rankdir: str = "LR", changes: GraphChanges | None = None) -> ComponentDigraph:
    """Draws a Component, Agent, Executor, ComponentGraph or BuildError (stuck component and argument in red).

    ``depth``: components deeper than this below the drawn one fold into a box per subtree (``0``: only the
    top component's own API methods plus one box per sub-component). ``api``: only the calls made from this
    API method of the drawn component. ``spaces``: label edges with spaces. ``devices``: fill components in
    their device's colour and add a legend. ``highlight``: component paths to draw with a red border;
    ``selected``: a component path to draw with a blue one (red wins where both apply). ``fold_copies``: a
    sub-tree that repeats a sibling's (a target network) is one box naming that sibling. ``changes`` (see
    :mod:`~rlworkbench.visualize.graph_diff`): components added since the previous build get a green border,
    changed ones an orange one, edges whose spaces changed are orange, and the legend names removed components
    (each by the shortest tail of its path that no other component's ends with; the first six, then a count).
    The drawing's ``edge_labels`` (stable edge key → label) are what the next ``changes`` compare against.
    """
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise ConfigError("bad depth", argument="depth", expected="an int >= 0, or None for all", got=repr(depth))
    selected_path = selected.path if isinstance(selected, Component) else selected
    renderer = _Renderer(view_of(target, highlight), depth, api, spaces, devices, graph_fns, fold_copies,
                         selected_path, changes)
    return renderer.draw(rankdir)


class ComponentDigraph(graphviz.Digraph):
    """A ``graphviz.Digraph`` that Jupyter shows at natural size in a scrolling box (and as plain SVG elsewhere).
    ``edge_labels``: each drawn edge's label by a key that stays the same across builds (component paths)."""

    edge_labels: dict[tuple[str, str], str]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: object) -> dict[str, str]:
        from rlworkbench.visualize.scrolling_svg import scrolling_svg

        svg = self.pipe(format="svg").decode("utf-8")
        return {"image/svg+xml": svg, "text/html": scrolling_svg(svg), "text/plain": f"<graph {self.name}>"}


def graph_svg(target: Any, **options: object) -> str:
    """``render_graph(target, **options)`` as SVG text."""
    return render_graph(target, **options).pipe(format="svg").decode("utf-8")


class _Renderer:
    def __init__(self, view: GraphView, depth: int | None, api: str | None, spaces: bool, devices: bool,
                 graph_fns: bool, fold_copies: bool, selected: str | None, changes: GraphChanges | None):
        self.view, self.focus = view, view.focus
        self.changes = changes
        self.folding = Folding(view.focus, depth, fold_copies)
        self.stuck_edge: tuple[Key, Key] | None = None
        self.selected = selected
        self.spaces, self.devices, self.graph_fns = spaces, devices, graph_fns
        self.palette = DevicePalette()
        self.ids: dict[Key, str] = {}
        self.paths = {id(c): c.path for c in view.focus.root.walk()}
        self.nodes: dict[int, list[tuple[Key, dict[str, str]]]] = {}  # component id -> its nodes
        self.edges: dict[tuple[Key, Key], list[str]] = {}
        self.loops: dict[Key, str] = {}  # API nodes of components that carry a recurrent state: its label
        self.calls = self._calls(api)
        self.visible = self._visible_components(api is not None)
        self.api = api

    # ----- which calls and components ---------------------------------------------------------------------------
    def _inside(self, component: Component) -> bool:
        return component is self.focus or component.path.startswith(self.focus.path + "/")

    def _calls(self, api: str | None) -> list[ApiCall]:
        graph = self.view.graph
        if graph is None:
            return []
        calls = [c for c in graph.api_calls if self._inside(c.component)]
        if api is None:
            return calls
        starts = graph.calls_of(self.focus, api)
        if not starts:
            called = sorted({c.name for c in calls if c.component is self.focus})
            raise ConfigError("this API method is not in the graph", component=self.focus.path, argument="api",
                              expected=called, got=api)
        chosen: dict[int, ApiCall] = {}
        for start in starts:
            chosen.update((id(c), c) for c in graph.subtree(start) if self._inside(c.component))
        return list(chosen.values())

    def _visible_components(self, filtered: bool) -> set[int]:
        if not filtered:
            return {id(c) for c in self.focus.walk()}
        visible: set[int] = set()
        for call in self.calls:
            node: Component | None = call.component
            while node is not None and self._inside(node):
                visible.add(id(node))
                node = node.parent
        return visible

    # ----- nodes and edges ----------------------------------------------------------------------------------------
    def _id(self, key: Key) -> str:
        return self.ids.setdefault(key, f"n{len(self.ids)}")

    def _add_node(self, owner: Component | None, key: Key, **attrs: str) -> Key:
        """A node drawn inside ``owner``'s cluster (``None``: outside all clusters, where callers come from)."""
        if key not in self.ids:
            self._id(key)
            self.nodes.setdefault(id(owner), []).append((key, attrs))
        return key

    def _api_node(self, component: Component, api_name: str) -> Key:
        box = self.folding.box_for(component)
        if box is not None:
            return self._box_node(box)
        style = ("rounded,dashed" if self.view.graph is None  # structure only: every method, none called yet
                 else "rounded,filled,bold" if component is self.focus else "rounded,filled")
        home = {"class": HOME_CLASS} if component is self.focus else {}  # where a graph pane opens
        return self._add_node(component, ("api", id(component), api_name), label=api_name, shape="box",
                              style=style, fillcolor="white", **home)

    def _box_node(self, box: Component) -> Key:
        inside = sum(1 for _ in box.walk()) - 1
        label = f"{box.name}\n({type(box).__name__})"
        original = self.folding.copy_of.get(id(box))
        label += f"\nsame as {original.name}" if original is not None else (f"\n+{inside} inside" if inside else "")
        return self._add_node(box.parent or box, ("box", id(box)), label=label, shape="box3d", style="filled",
                              fillcolor=self._fill(box), **self._border(box))

    def _edge(self, source: Key, target: Key, label: str) -> None:
        if source == target:
            return
        labels = self.edges.setdefault((source, target), [])
        if label and label not in labels:
            labels.append(label)

    def _flow_label(self, inputs: dict[str, object], outputs: dict[str, object]) -> str:
        if not self.spaces:
            return ""
        lines = _clip([_argument(name, value) for name, value in inputs.items()])
        known = {name: value for name, value in outputs.items()
                 if not isinstance(value, Record) or value.space is not None}
        if known:
            if list(outputs) == ["output"]:  # the usual single return value needs no name
                lines.append("→ " + _argument("", known["output"]))
            elif all(name.isdigit() for name in known):  # a tuple: its items in order, without indices
                lines.append("→ (" + ", ".join(_clip([_argument("", v) for v in known.values()], 3)) + ")")
            else:
                lines.append("→ " + ", ".join(_clip([_argument(n, v) for n, v in known.items()], 2)))
        return "\n".join(_shorten(line) for line in lines)

    def _collect(self) -> None:
        in_view = {id(c) for c in self.calls}
        for call in self.calls:
            target = self._api_node(call.component, call.name)
            if call.caller is None or id(call.caller) not in in_view:
                source = self._add_node(None, ("entry", call.name), label=call.name, shape="cds",
                                        style="filled", fillcolor="#e0f2fe", fontsize="10", **{"class": "rlw-entry"})
            else:
                source = self._api_node(call.caller.component, call.caller.name)
            self._edge(source, target, self._flow_label(call.inputs, call.output_records()))
            self._recurrent_loop(call.component, target)
        if self.graph_fns and self.view.graph is not None:
            for fn_call in self.view.graph.graph_fn_calls:
                if id(fn_call.api_call) in in_view and self.folding.box_for(fn_call.component) is None:
                    self._graph_fn_edge(fn_call)
        if self.view.graph is None:  # structure only: every API method
            for component in self.focus.walk():
                for name in component.api_methods:
                    self._api_node(component, name)
        self._stuck_marker()

    def _recurrent_loop(self, component: Component, node: Key) -> None:
        """A loop on ``node`` where its component carries a state from step to step (``recurrent_state_space``)."""
        space = getattr(component, "recurrent_state_space", None)
        if isinstance(space, Space):
            self.loops[node] = "state " + space_label(space, 2) if self.spaces else "state"

    def _graph_fn_edge(self, call: GraphFnCall) -> None:
        node = self._add_node(call.component, ("fn", id(call.component), call.name), label=call.name,
                              shape="ellipse", style="filled", fillcolor="#fffbeb", fontsize="10")
        outputs = [r for r in call.outputs if isinstance(r, Record)]
        label = "→ " + ", ".join(_clip([space_label(r.space, 2) for r in outputs], 2)) if self.spaces else ""
        self._edge(self._api_node(call.component, call.api_call.name), node,
                   _shorten(label) if outputs and outputs[0].space is not None else "")

    def _stuck_marker(self) -> None:
        stuck = self.view.stuck
        if stuck is None:
            return
        component = next((c for c in self.focus.walk() if c.path == stuck.component), None)
        if component is None:
            return
        missing = self._add_node(component, ("missing",), label=f"no space for\n'{stuck.argument}'", shape="note",
                                 style="filled", fillcolor="#fee2e2", color=STUCK_COLOR, fontcolor=STUCK_COLOR)
        self.stuck_edge = (missing, self._api_node(component, stuck.api_method))
        self._edge(*self.stuck_edge, "")

    # ----- drawing ------------------------------------------------------------------------------------------------
    def draw(self, rankdir: str) -> ComponentDigraph:
        self._collect()
        dot = ComponentDigraph(name=self.focus.name)
        dot.attr(rankdir=rankdir, fontname=_FONT, fontsize="12", nodesep="0.25", ranksep="0.4", compound="true",
                 label=self._title(), labelloc="t", labeljust="l")  # the title where a scrolled view starts
        dot.attr("node", fontname=_FONT, fontsize="11", margin="0.08,0.03", height="0.3")
        dot.attr("edge", fontname=_FONT, fontsize="9", fontcolor="#374151", color="#6b7280", arrowsize="0.6")
        for key, attrs in self.nodes.get(id(None), []):
            dot.node(self.ids[key], **attrs)
        self._cluster(dot, self.focus)
        dot.edge_labels = {}
        for (source, target), labels in self.edges.items():
            label = "\n".join(labels)
            attrs = {"label": label} if labels else {}
            stable = (self._stable(source), self._stable(target))
            dot.edge_labels[stable] = label
            if self.stuck_edge == (source, target):
                attrs.update(color=STUCK_COLOR, style="dashed", penwidth="2")
            elif self.changes is not None and self.changes.edge_changed(stable, label):
                attrs.update(color=CHANGED_COLOR, fontcolor=CHANGED_COLOR, penwidth="2")
            dot.edge(self.ids[source], self.ids[target], **attrs)
        for node, label in self.loops.items():  # the recurrent state, from one step into the next
            dot.edge(self.ids[node], self.ids[node], label=label, color=RECURRENT_COLOR, fontcolor=RECURRENT_COLOR,
                     penwidth="1.5", dir="forward", **{"class": "rlw-recurrent"})
        if self.devices:
            self._legend(dot)
        return dot

    def _stable(self, key: Key) -> str:
        """A node key that names components by path, so the same edge has the same key in the next build."""
        return "/".join(self.paths.get(part, "?") if isinstance(part, int) else str(part) for part in key)

    def _title(self) -> str:
        graph = self.view.graph
        state = ("not assembled" if graph is None else f"stuck on {graph.backend_name}" if self.view.stuck
                 else f"built on {graph.backend_name}" if graph.backend_name else "not built")
        title = f"{self.focus.path} ({type(self.focus).__name__}) — {state}"
        title += f" — dataflow of {self.api}()" if self.api else ""
        if self.changes is not None:
            title += f" — {self.changes.summary()}"
        if self.view.error is not None:
            title += "\n" + _shorten(f"{type(self.view.error).__name__}: {self.view.error.message}", 110)
        return title

    def _cluster(self, parent: graphviz.Digraph, component: Component) -> None:
        with parent.subgraph(name=f"cluster_{self._id(('cluster', id(component)))}") as sub:
            device = self._device(component)
            label = f"{component.name} ({type(component).__name__})"
            parent_device = self._device(component.parent) if component is not self.focus else None
            if self.devices and device and device != parent_device:  # inherited devices go without saying
                label += f"\n@ {device}"
            sub.attr(label=label, style="rounded,filled", fillcolor=self._fill(component), fontsize="11",
                     id=f"component-{component.path}", **self._border(component, cluster=True))
            for key, attrs in self.nodes.get(id(component), []):
                sub.node(self.ids[key], **attrs)
            drawn = bool(self.nodes.get(id(component)))
            for child in reversed(component.sub_components.values()):  # left-to-right ranks list them upwards
                if id(child) not in self.visible:
                    continue
                drawn = True
                if self.folding.box_for(child) is None:
                    self._cluster(sub, child)
                elif ("box", id(child)) not in self.ids:
                    key = self._box_node(child)
                    sub.node(self.ids[key], **dict(self.nodes[id(component)])[key])
            if not drawn:
                sub.node(self._id(("idle", id(component))), label="(not called)", shape="plaintext",
                         fontcolor="#9ca3af", fontsize="9")

    def _device(self, component: Component) -> str | None:
        if component.resolved_device:
            return component.resolved_device
        node: Component | None = component
        while node is not None and node.device is None:
            node = node.parent
        return node.device if node is not None else None

    def _fill(self, component: Component) -> str:
        return self.palette.fill(self._device(component)) if self.devices else DEFAULT_FILL

    def _border(self, component: Component, cluster: bool = False) -> dict[str, str]:
        if component.path in self.view.highlight:
            return {"color": STUCK_COLOR, "penwidth": "3", "fontcolor": STUCK_COLOR}
        if component.path == self.selected:
            return {"color": SELECT_COLOR, "penwidth": "3", "fontcolor": SELECT_COLOR}
        if self.changes is not None and component.path in self.changes.added:
            return {"color": ADDED_COLOR, "penwidth": "3", "fontcolor": ADDED_COLOR}
        if self.changes is not None and component.path in self.changes.changed:
            return {"color": CHANGED_COLOR, "penwidth": "3", "fontcolor": CHANGED_COLOR}
        return {"color": "#94a3b8", "penwidth": "1"} if cluster else {}

    def _legend(self, dot: graphviz.Digraph) -> None:
        entries = sorted(self.palette.colors.items())
        selected = self.selected is not None and self.selected not in self.view.highlight
        if not entries and not self.view.highlight and not selected and self.changes is None:
            return
        with dot.subgraph(name="cluster_legend") as legend:
            legend.attr(label="legend", style="rounded", color="#cbd5e1", fontsize="10")
            for device, fill in entries:
                legend.node(self._id(("legend", device)), label=device, shape="box", style="filled",
                            fillcolor=fill, fontsize="9")
            if any(c.device is None and not c.resolved_device for c in self.focus.walk()):
                legend.node(self._id(("legend", None)), label="default device", shape="box", style="filled",
                            fillcolor=DEFAULT_FILL, fontsize="9")
            if self.view.highlight:
                legend.node(self._id(("legend", "stuck")), label="stuck / error", shape="box", style="filled",
                            fillcolor="white", color=STUCK_COLOR, penwidth="3", fontsize="9")
            if selected:
                legend.node(self._id(("legend", "selected")), label="selected", shape="box", style="filled",
                            fillcolor="white", color=SELECT_COLOR, penwidth="3", fontsize="9")
            if self.changes is not None:
                self._change_legend(legend, self.changes)

    def _change_legend(self, legend: graphviz.Digraph, changes: GraphChanges) -> None:
        for name, color, count in (("added", ADDED_COLOR, len(changes.added)),
                                   ("changed", CHANGED_COLOR, len(changes.changed))):
            legend.node(self._id(("legend", name)), label=f"{name} ({count})", shape="box", style="filled",
                        fillcolor="white", color=color, penwidth="3", fontsize="9")
        legend.node(self._id(("legend", "space changed")), label="space changed", shape="plaintext",
                    fontcolor=CHANGED_COLOR, fontsize="9")
        if changes.removed:
            names = _distinct_names(changes.removed, [*changes.removed, *self.paths.values()])
            if len(names) > _REMOVED_SHOWN:
                names = names[:_REMOVED_SHOWN] + [f"+{len(names) - _REMOVED_SHOWN} more"]
            legend.node(self._id(("legend", "removed")), label="removed:\n" + "\n".join(names), shape="note",
                        style="filled", fillcolor="#f3f4f6", color="#6b7280", fontsize="9")


def _distinct_names(paths: Iterable[str], among: Iterable[str]) -> list[str]:
    """Each path by its shortest tail of segments that no other path of ``among`` ends with
    (``policy/action_adapter/dense`` beside ``target_policy/action_adapter/dense``)."""
    others = {tuple(path.split("/")) for path in among}
    names = []
    for path in paths:
        parts = tuple(path.split("/"))
        rivals = [other for other in others if other != parts]
        size = next((n for n in range(1, len(parts)) if all(other[-n:] != parts[-n:] for other in rivals)),
                    len(parts))
        names.append("/".join(parts[-size:]))
    return names


def _argument(name: str, value: object) -> str:
    """``name: space`` of a record (just the space when ``name`` is empty), ``name=value`` of a constant."""
    if isinstance(value, Record):
        if value.space is None:
            return name
        return f"{name}: {space_label(value.space, 2)}" if name else space_label(value.space, 2)
    return f"{name}={value!r}"[:40] if name else repr(value)[:40]


def _shorten(line: str, limit: int = 44) -> str:
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _clip(lines: list[str], limit: int = 3) -> list[str]:
    return lines if len(lines) <= limit else lines[:limit] + [f"… +{len(lines) - limit}"]
