"""Who wants to know when a component tree changes: listeners and each root's latest component graph.

Kept outside the components (weakly keyed), so copying or pickling a component never drags a widget or a
graph along. The notebook views subscribe with :meth:`Component.on_change`; the builder reports each build.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from rlworkbench.core.component import Component
    from rlworkbench.core.graph import ComponentGraph

Listener = Callable[[str, "Component"], None]

_listeners: WeakKeyDictionary[Component, list[Listener]] = WeakKeyDictionary()
_latest_graphs: WeakKeyDictionary[Component, tuple[ComponentGraph, frozenset[int]]] = WeakKeyDictionary()

EVENTS = ("structure", "built", "build_failed")


def subscribe(component: Component, listener: Listener) -> Callable[[], None]:
    """Calls ``listener(event, changed_component)`` for events at ``component`` or below; returns an unsubscribe."""
    _listeners.setdefault(component, []).append(listener)

    def unsubscribe() -> None:
        listeners = _listeners.get(component, [])
        if listener in listeners:
            listeners.remove(listener)

    return unsubscribe


def notify(component: Component, event: str) -> None:
    """Tells the listeners of ``component`` and of every ancestor that ``event`` happened at ``component``.

    A structure change makes the latest graph of the tree stale: it is forgotten.
    """
    if event == "structure":
        _latest_graphs.pop(component.root, None)
    node: Component | None = component
    while node is not None:
        for listener in list(_listeners.get(node, ())):
            listener(event, component)
        node = node.parent


def remember_graph(root: Component, graph: ComponentGraph) -> None:
    _latest_graphs[root] = (graph, frozenset(id(c) for c in root.walk()))


def latest_graph(component: Component) -> ComponentGraph | None:
    """The graph of the latest build (finished or stuck) that included ``component``, if it is still current."""
    node: Component | None = component
    while node is not None:
        graph, members = _latest_graphs.get(node, (None, frozenset()))
        if graph is not None and id(component) in members:
            return graph
        node = node.parent
    return None
