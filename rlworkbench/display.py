"""Inline display in Jupyter: components, agents, executors, graphs and failed builds draw themselves as SVG.

Imported lazily by their ``_repr_mimebundle_`` methods, so importing rlworkbench never imports graphviz.
"""

from __future__ import annotations

from typing import Any


def graph_bundle(target: Any, text: str | None = None) -> dict[str, str]:
    """A Jupyter mime bundle: ``text/plain`` plus the rendered graph as ``image/svg+xml`` where it can be drawn."""
    bundle = {"text/plain": repr(target) if text is None else text}
    try:
        from rlworkbench.visualize import graph_svg

        bundle["image/svg+xml"] = graph_svg(target)
    except Exception as error:  # a drawing problem must never hide the object itself
        bundle["text/plain"] += f"\n(graph not drawn: {type(error).__name__}: {error})"
    return bundle
