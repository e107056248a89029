"""Drawing component graphs (graphviz) and writing them, with variable summaries, to TensorBoard."""

from rlworkbench.visualize.render import graph_svg, render_graph
from rlworkbench.visualize.tensorboard import write_graph, write_variable_summaries
from rlworkbench.visualize.views import GraphView, view_of

__all__ = ["GraphView", "graph_svg", "render_graph", "view_of", "write_graph", "write_variable_summaries"]
