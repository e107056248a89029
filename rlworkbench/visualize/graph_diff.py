"""What changed between two builds of a component tree: components added, removed or changed, and edges whose
spaces changed — for drawing a rebuilt graph with its differences marked (``render_graph(..., changes=...)``).

:func:`snapshot` takes a cheap fingerprint of a tree and its latest graph (per component: class, device, its
own variables' shapes and dtypes, and the input/output spaces of its API calls); :func:`compare` turns two
fingerprints and the previous drawing's edge labels into :class:`GraphChanges`. Paths are compared, so a
component that keeps its place and its fingerprint counts as unchanged even when it is a new object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rlworkbench.visualize.views import view_of

Signature = tuple[Any, ...]


@dataclass(frozen=True)
class GraphSnapshot:
    """Fingerprints of the components of a tree, by path (see :func:`snapshot`)."""

    components: Mapping[str, Signature]


@dataclass(frozen=True)
class GraphChanges:
    """Differences between two builds. ``edges``: the previous drawing's edge labels by stable edge key (see
    ``ComponentDigraph.edge_labels``); an edge drawn again with another label has changed spaces."""

    added: frozenset[str] = frozenset()
    changed: frozenset[str] = frozenset()
    removed: tuple[str, ...] = ()
    edges: Mapping[tuple[str, str], str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def summary(self) -> str:
        """``+3 added, ~1 changed, -0 removed``."""
        return f"+{len(self.added)} added, ~{len(self.changed)} changed, -{len(self.removed)} removed"

    def edge_changed(self, key: tuple[str, str], label: str) -> bool:
        """Whether an edge drawn now with ``label`` was drawn before with another one."""
        return key in self.edges and self.edges[key] != label


def snapshot(target: Any) -> GraphSnapshot:
    """Fingerprints of every component below ``target``'s focus (a Component, Agent, Executor or graph)."""
    view = view_of(target)
    graph = view.graph
    components: dict[str, Signature] = {}
    for component in view.focus.walk():
        variables = tuple(sorted((name, tuple(int(d) for d in variable.shape), _dtype_name(variable))
                                 for name, variable in component.variables().items() if "/" not in name))
        calls: list[tuple[str, str, str]] = []
        if graph is not None:
            for name in component.api_methods:
                if graph.calls_of(component, name):
                    inputs, outputs = graph.api_spaces(component, name)
                    calls.append((name, _spaces(inputs), _spaces(outputs)))
        components[component.path] = (type(component).__name__, component.resolved_device or component.device,
                                      variables, tuple(calls))
    return GraphSnapshot(components)


def compare(before: GraphSnapshot | None, after: GraphSnapshot,
            previous_edges: Mapping[tuple[str, str], str] | None = None) -> GraphChanges:
    """The changes from ``before`` to ``after`` (nothing is new when there is no ``before``)."""
    if before is None:
        return GraphChanges(edges=dict(previous_edges or {}))
    old, new = before.components, after.components
    return GraphChanges(added=frozenset(path for path in new if path not in old),
                        changed=frozenset(path for path in new if path in old and old[path] != new[path]),
                        removed=tuple(sorted(path for path in old if path not in new)),
                        edges=dict(previous_edges or {}))


def _dtype_name(variable: Any) -> str:
    """``float32`` whatever the backend calls it (``torch.float32``, ``tf.float32``)."""
    dtype = getattr(variable, "dtype", "")
    return str(getattr(dtype, "name", None) or dtype).removeprefix("torch.")


def _spaces(spaces: Mapping[str, object]) -> str:
    return ", ".join(f"{name}: {space}" for name, space in spaces.items())
