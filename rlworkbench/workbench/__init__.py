"""The notebook workbench: explore component graphs (:class:`GraphExplorer`), push sampled inputs through any
API method (:class:`Probe`), and turn a prototype into a live training run (:func:`promote` → :class:`Run`).

Importing it inside IPython also makes an uncaught ``BuildError`` draw its partial graph under the traceback.
"""

from rlworkbench.workbench.graph_explorer import GraphExplorer
from rlworkbench.workbench.ipython_hooks import show_build_errors_as_graphs
from rlworkbench.workbench.probe import Probe
from rlworkbench.workbench.promote import promote
from rlworkbench.workbench.run import Run
from rlworkbench.workbench.targets import known_targets, register_target

show_build_errors_as_graphs()

__all__ = ["GraphExplorer", "Probe", "Run", "known_targets", "promote", "register_target",
           "show_build_errors_as_graphs"]
