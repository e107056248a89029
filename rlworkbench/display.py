"""Inline display in Jupyter: components, agents, executors, graphs and failed builds draw themselves as SVG.

The bundle holds the SVG twice: as ``image/svg+xml`` for any frontend, and inline in a scrolling box as
``text/html`` (which JupyterLab prefers), so a full agent's graph keeps its natural, readable size instead of
being cut off or shrunk. Imported lazily by the ``_repr_mimebundle_`` methods: importing rlworkbench never
imports graphviz.
"""

from __future__ import annotations

import html
import re
from typing import Any

_PROLOGUE = re.compile(r"^\s*(<\?xml[^>]*>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.DOTALL)


def graph_bundle(target: Any, text: str | None = None) -> dict[str, str]:
    """A Jupyter mime bundle: ``text/plain`` plus the rendered graph (SVG, and SVG in scrolling HTML)."""
    bundle = {"text/plain": repr(target) if text is None else text}
    try:
        from rlworkbench.visualize import graph_svg

        svg = graph_svg(target)
    except Exception as error:  # a drawing problem must never hide the object itself
        bundle["text/plain"] += f"\n(graph not drawn: {type(error).__name__}: {error})"
        return bundle
    bundle["image/svg+xml"] = svg
    bundle["text/html"] = scrolling_svg(svg, title=bundle["text/plain"].splitlines()[0])
    return bundle


def scrolling_svg(svg: str, title: str = "", max_height: str = "80vh") -> str:
    """The SVG inline, at its natural size, in a box that scrolls both ways when the drawing is larger."""
    body = _PROLOGUE.sub("", svg, count=1)
    style = (f"max-width:100%;max-height:{max_height};overflow:auto;background:white;border:1px solid #e5e7eb;"
             "border-radius:4px")
    return f'<div class="rlw-graph" title="{html.escape(title)}" style="{style}">{body}</div>'

