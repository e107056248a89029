"""Drawing component graphs (graphviz) and writing them, with variable summaries, to TensorBoard.

Importing this package makes components, agents, executors, graphs and failed builds draw themselves in a
notebook (:func:`~rlworkbench.visualize.notebook_display.register_notebook_display`; ``import rlworkbench`` inside
IPython already does). The TensorBoard writers are imported on first use (they bring pandas and the execution
layer), so a notebook's first drawing does not wait for them.
"""

from typing import Any

from rlworkbench.visualize.notebook_display import register_notebook_display
from rlworkbench.visualize.render import graph_svg, render_graph
from rlworkbench.visualize.views import GraphView, view_of

register_notebook_display()

_TENSORBOARD = {"write_graph", "write_variable_summaries"}


def __getattr__(name: str) -> Any:
    if name in _TENSORBOARD:
        from rlworkbench.execution import tensorboard

        return getattr(tensorboard, name)
    raise AttributeError(f"module 'rlworkbench.visualize' has no attribute {name!r}")


__all__ = ["GraphView", "graph_svg", "register_notebook_display", "render_graph", "view_of", "write_graph",
           "write_variable_summaries"]
