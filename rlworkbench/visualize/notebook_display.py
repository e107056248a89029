"""Inline display in Jupyter: components, agents, executors, graphs and failed builds draw themselves as SVG.

Importing :mod:`rlworkbench.visualize` calls :func:`register_notebook_display`, which tells a running IPython
(through its own formatter registry, ``for_type``) how to show those types; the core knows nothing of Jupyter.
The bundle holds the SVG twice: as ``image/svg+xml`` for any frontend, and inline in a scrolling box as
``text/html`` (which JupyterLab prefers), so a full agent's graph keeps its natural, readable size instead of
being cut off or shrunk.
"""

from __future__ import annotations

import sys
from typing import Any

from rlworkbench.agents.agent import Agent
from rlworkbench.core.component import Component
from rlworkbench.core.executor import Executor
from rlworkbench.core.graph import ComponentGraph
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


def _bundle(target: Any, include: Any = None, exclude: Any = None) -> dict[str, str]:
    if isinstance(target, BuildError) and target.graph is None:
        return {"text/plain": _plain_text(target)}
    return graph_bundle(target)


DRAWN_TYPES = (Component, Agent, Executor, ComponentGraph, BuildError)


def register_notebook_display(shell: Any = None) -> bool:
    """Registers the graph drawing of :data:`DRAWN_TYPES` with ``shell``'s formatters (default: the running
    IPython, if any); returns whether there was a shell to register with. Safe to call again."""
    if shell is None:
        ipython = sys.modules.get("IPython")  # only a running IPython has been imported already
        shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return False
    for kind in DRAWN_TYPES:  # the bundle's text/plain (no hint) wins over the objects' _repr_pretty_
        shell.display_formatter.mimebundle_formatter.for_type(kind, _bundle)
    return True
