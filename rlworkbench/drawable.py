"""What drawable objects (components, agents, executors, graphs, failed builds) say before anything can draw them.

Drawing lives above the core (:mod:`rlworkbench.visualize`). Importing that package registers how a notebook
shows these objects (their component graph, as SVG); until then their plain text in IPython tells how to get the
picture. Nothing here imports IPython: ``_repr_pretty_`` is only a method IPython's printer looks for, and each
drawable class sets ``_repr_pretty_ = pretty_with_draw_hint`` itself (IPython takes a class's own ``__repr__``
before a base class's ``_repr_pretty_``).
"""

from __future__ import annotations

from typing import Any

DRAW_HINT = "import rlworkbench.visualize (or rlworkbench.workbench) to see its graph"


def pretty_with_draw_hint(self: Any, printer: Any, cycle: bool) -> None:
    """IPython's plain text of a drawable object: its ``repr`` and :data:`DRAW_HINT`."""
    printer.text(f"{self!r}\n({DRAW_HINT})")
