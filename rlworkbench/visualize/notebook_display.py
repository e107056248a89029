"""Inline display in Jupyter: components, agents, executors, graphs and failed builds draw themselves as SVG.

:func:`notebook_bundle` is what a notebook shows for them. ``import rlworkbench`` inside a running IPython already
registers it (lazily, by type name: see :mod:`rlworkbench.drawable`); importing :mod:`rlworkbench.visualize` calls
:func:`register_notebook_display` once more, for an IPython started after the package was imported. The bundle holds
the SVG twice: as ``image/svg+xml`` for any frontend, and inline at its natural size (100 %, said in a caption) in
a box that scrolls, as ``text/html`` (which JupyterLab prefers), so a full agent keeps readable labels instead of
being shrunk to the page width.
"""

from __future__ import annotations

from typing import Any

from rlworkbench.agents.agent import Agent
from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.core.graph import ComponentGraph
from rlworkbench.drawable import install_notebook_display
from rlworkbench.errors import BuildError
from rlworkbench.visualize.scrolling_svg import scrolling_svg


def graph_bundle(target: Any, text: str | None = None) -> dict[str, str]:
    """A Jupyter mime bundle: ``text/plain`` plus the rendered graph (SVG, and SVG in scrolling HTML)."""
    bundle = {"text/plain": _plain_text(target) if text is None else text}
    try:
        from rlworkbench.visualize import render

        svg = render.graph_svg(target)
    except Exception as error:  # a drawing problem must never hide the object itself
        bundle["text/plain"] += f"\n(graph not drawn: {type(error).__name__}: {error})"
        return bundle
    bundle["image/svg+xml"] = svg
    bundle["text/html"] = scrolling_svg(svg, title=bundle["text/plain"].splitlines()[0])
    return bundle


def _plain_text(target: Any) -> str:
    if isinstance(target, BuildError):
        return f"{type(target).__name__}: {target}"
    if isinstance(target, (ComponentGraph, Executor)):
        return target.summary()
    return repr(target)


def notebook_bundle(target: Any, include: Any = None, exclude: Any = None) -> dict[str, str]:
    """The mime bundle a notebook shows for a drawn object (a BuildError without a graph: its message)."""
    if isinstance(target, BuildError) and target.graph is None:
        return {"text/plain": _plain_text(target)}
    return graph_bundle(target)


DRAWN_TYPES = (Component, Agent, Executor, ComponentGraph, BuildError)


def register_notebook_display(shell: Any = None) -> bool:
    """Registers the graph drawing of :data:`DRAWN_TYPES` with ``shell``'s formatters (default: the running
    IPython, if any); returns whether there was a shell to register with. Safe to call again."""
    return install_notebook_display(notebook_bundle, shell=shell)
