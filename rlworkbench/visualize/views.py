"""What to draw: turn a component, agent, executor, graph or failed build into one :class:`GraphView`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rlworkbench.agents.protocols import is_agent
from rlworkbench.core.assembly import assemble
from rlworkbench.core.component import Component
from rlworkbench.core.graph import ComponentGraph, Stuck
from rlworkbench.core.observers import latest_graph
from rlworkbench.errors import BuildError, ConfigError, RLWorkbenchError


@dataclass
class GraphView:
    """A component graph seen from ``focus`` (its outermost cluster); ``graph`` is None where the tree could not
    even be assembled (then only the structure is drawn)."""

    focus: Component
    graph: ComponentGraph | None
    stuck: Stuck | None = None
    error: RLWorkbenchError | None = None
    highlight: set[str] = field(default_factory=set)  # component paths drawn with a red border

    @property
    def built(self) -> bool:
        return self.graph is not None and self.graph.backend_name is not None and self.stuck is None


def view_of(target: Any, highlight: Any = ()) -> GraphView:
    """A :class:`GraphView` of a Component, Agent, Executor, ComponentGraph or BuildError (with its partial graph)."""
    view = _resolve(target)
    for item in [highlight] if isinstance(highlight, (str, Component)) else list(highlight or ()):
        view.highlight.add(item.path if isinstance(item, Component) else str(item))
    if view.stuck is not None:
        view.highlight.add(view.stuck.component)
    if view.error is not None and view.error.component:
        view.highlight.add(view.error.component)
    return view


def _resolve(target: Any) -> GraphView:
    if isinstance(target, GraphView):
        return target
    if isinstance(target, BuildError):
        graph = target.graph
        if graph is None:
            raise ConfigError("this BuildError carries no component graph (it did not come out of a build)",
                              argument="target", got=str(target))
        return GraphView(graph.root, graph, graph.stuck, error=target)
    if isinstance(target, ComponentGraph):
        return GraphView(target.root, target, target.stuck)
    if isinstance(target, Component):
        graph = latest_graph(target)
        if graph is not None:
            return GraphView(target, graph, graph.stuck)
        graph = _assembled(target.root)
        return GraphView(target, graph)
    executor_graph = getattr(target, "graph", None) if not is_agent(target) else None
    if isinstance(executor_graph, ComponentGraph):  # an Executor
        return GraphView(executor_graph.root, executor_graph, executor_graph.stuck)
    if is_agent(target):  # the latest build's graph, unless the tree changed since (then: the new structure)
        graph = latest_graph(target.root)
        if graph is not None:
            return GraphView(target.root, graph, graph.stuck)
        return GraphView(target.root, _assembled(target.root))
    raise ConfigError("cannot draw this object", argument="target",
                      expected="a Component, Agent, Executor, ComponentGraph or BuildError",
                      got=type(target).__name__)


def _assembled(root: Component, api_methods: Any = None) -> ComponentGraph | None:
    """The graph of calls (no spaces) of the tree as it is — built or not, assembly records in its own thread and
    changes nothing; None where the root's API cannot be called with records alone (an API method that branches
    on a value, or fails for any reason before a build tells it its spaces)."""
    try:
        return assemble(root, api_methods)
    except Exception:  # a structure drawing is still worth having
        return None
