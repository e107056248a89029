"""The interactive graph builder: :class:`GraphBuilder` edits an agent's config in a form generated from its JSON
schema and redraws the component graph live, with the changes since the previous build marked. Its state and
rebuilding are :class:`~.builder_core.BuilderCore`'s, which imports without ipywidgets (``GraphBuilder`` is
imported on first use)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rlworkbench.workbench.builder.builder_core import BuilderCore

if TYPE_CHECKING:
    from rlworkbench.workbench.builder.graph_builder import GraphBuilder


def __getattr__(name: str) -> Any:
    """``GraphBuilder``, imported on its first use (it needs the widgets)."""
    if name != "GraphBuilder":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rlworkbench.workbench.builder.graph_builder import GraphBuilder

    return GraphBuilder


__all__ = ["BuilderCore", "GraphBuilder"]
