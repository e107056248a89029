"""The notebook workbench: compose and edit an agent live (:class:`GraphBuilder`), explore component graphs
(:class:`GraphExplorer`), push sampled inputs through any
API method (:class:`Probe`), turn a prototype into a live training run (:func:`promote` → :class:`Run`) — on a
cluster too (``address="http://head:8265"``) — find a cluster's runs (:func:`list_runs`) and follow one again
(:func:`attach`) — and run many: :func:`sweep` (an :class:`Experiment` of trials on Ray Tune) and :func:`compare`
(interval estimates across runs).

Importing it leaves IPython's error display alone: to make an uncaught ``BuildError`` draw its partial graph under
the traceback, run ``%load_ext rlworkbench`` (or call :func:`show_build_errors_as_graphs`).

The names above are imported when first used (PEP 562), each needing the ``jupyter`` extra (widgets, graphviz):
without it, using one is a MissingExtra saying so (importing this package already is one without graphviz). The
models under the widgets — :class:`~rlworkbench.workbench.builder.builder_core.BuilderCore`,
:class:`~rlworkbench.workbench.explorer_core.ExplorerCore` — import without ipywidgets.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from rlworkbench.extras import require

FEATURE = "the notebook workbench (rlworkbench.workbench)"
require("graphviz", FEATURE)

# promote shares its name with its module: imported lazily, the first import of the submodule (by anyone) would set
# this package's ``promote`` to the module and hide the function. Imported here, the function is bound after the
# submodule, for good; it needs no widgets.
from rlworkbench.workbench.promote import promote  # noqa: E402

_HOMES = {  # name → the module that holds it
    "Experiment": "rlworkbench.workbench.experiments", "compare": "rlworkbench.workbench.experiments",
    "sweep": "rlworkbench.workbench.experiments", "GraphBuilder": "rlworkbench.workbench.builder.graph_builder",
    "GraphExplorer": "rlworkbench.workbench.graph_explorer", "Probe": "rlworkbench.workbench.probe",
    "list_runs": "rlworkbench.workbench.cluster.listing",
    "Run": "rlworkbench.workbench.run", "RunResult": "rlworkbench.workbench.run_result",
    "known_targets": "rlworkbench.workbench.targets", "register_target": "rlworkbench.workbench.targets",
    "show_build_errors_as_graphs": "rlworkbench.workbench.ipython_hooks",
}

if TYPE_CHECKING:
    from rlworkbench.workbench.builder.graph_builder import GraphBuilder
    from rlworkbench.workbench.cluster.listing import list_runs
    from rlworkbench.workbench.experiments import Experiment, compare, sweep
    from rlworkbench.workbench.graph_explorer import GraphExplorer
    from rlworkbench.workbench.ipython_hooks import show_build_errors_as_graphs
    from rlworkbench.workbench.probe import Probe
    from rlworkbench.workbench.run import Run
    from rlworkbench.workbench.run_result import RunResult
    from rlworkbench.workbench.targets import known_targets, register_target

    attach = Run.attach


def __getattr__(name: str) -> Any:
    """Imports one of :data:`__all__` on its first use (the extra's widgets checked first)."""
    if name == "attach":
        value: Any = __getattr__("Run").attach
    elif name in _HOMES:
        for module in ("ipywidgets", "anywidget"):
            require(module, FEATURE)
        value = getattr(import_module(_HOMES[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = ["Experiment", "GraphBuilder", "GraphExplorer", "Probe", "Run", "RunResult", "attach", "compare",
           "known_targets", "list_runs", "promote", "register_target", "show_build_errors_as_graphs", "sweep"]
