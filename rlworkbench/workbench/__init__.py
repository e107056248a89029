"""The notebook workbench: compose and edit an agent live (:class:`GraphBuilder`), explore component graphs
(:class:`GraphExplorer`), push sampled inputs through any
API method (:class:`Probe`), turn a prototype into a live training run (:func:`promote` → :class:`Run`) — on a
cluster too (``address="http://head:8265"``) — find a cluster's runs (:func:`list_runs`) and follow one again
(:func:`attach`) — and run many: :func:`sweep` (an :class:`Experiment` of trials on Ray Tune) and :func:`compare`
(interval estimates across runs).

Importing it leaves IPython's error display alone: to make an uncaught ``BuildError`` draw its partial graph under
the traceback, run ``%load_ext rlworkbench`` (or call :func:`show_build_errors_as_graphs`).
It needs the ``jupyter`` extra (widgets, graphviz): without it, importing is one MissingExtra saying so.
"""
# ruff: noqa: E402 (the imports below need the extra, checked first)

from rlworkbench.extras import require

for _module in ("ipywidgets", "anywidget", "graphviz"):
    require(_module, "the notebook workbench (rlworkbench.workbench)")

from rlworkbench.workbench.builder import GraphBuilder
from rlworkbench.workbench.cluster.listing import list_runs
from rlworkbench.workbench.experiments import Experiment, compare, sweep
from rlworkbench.workbench.graph_explorer import GraphExplorer
from rlworkbench.workbench.ipython_hooks import show_build_errors_as_graphs
from rlworkbench.workbench.probe import Probe
from rlworkbench.workbench.promote import promote
from rlworkbench.workbench.run import Run
from rlworkbench.workbench.run_result import RunResult
from rlworkbench.workbench.targets import known_targets, register_target

attach = Run.attach

__all__ = ["Experiment", "GraphBuilder", "GraphExplorer", "Probe", "Run", "RunResult", "attach", "compare",
           "known_targets", "list_runs", "promote", "register_target", "show_build_errors_as_graphs", "sweep"]
