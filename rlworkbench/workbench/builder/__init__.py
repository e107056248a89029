"""The interactive graph builder: :class:`GraphBuilder` edits an agent's config in a form generated from its JSON
schema and redraws the component graph live, with the changes since the previous build marked."""

from rlworkbench.workbench.builder.graph_builder import GraphBuilder

__all__ = ["GraphBuilder"]
