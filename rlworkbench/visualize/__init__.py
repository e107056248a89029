"""Drawing component graphs (graphviz) and writing them, with variable summaries, to TensorBoard.

Importing this package makes components, agents, executors, graphs and failed builds draw themselves in a
notebook (:func:`~rlworkbench.visualize.notebook_display.register_notebook_display`).
"""

from rlworkbench.execution.tensorboard import write_graph, write_variable_summaries
from rlworkbench.visualize.notebook_display import register_notebook_display
from rlworkbench.visualize.render import graph_svg, render_graph
from rlworkbench.visualize.views import GraphView, view_of

register_notebook_display()

__all__ = ["GraphView", "graph_svg", "register_notebook_display", "render_graph", "view_of", "write_graph",
           "write_variable_summaries"]
