"""rlworkbench: modular RL computation graphs (after RLgraph) at the centre of a Jupyter research workbench.

Compose components that talk only through declared API methods, build them for PyTorch or TensorFlow from
spaces, and execute them locally or distributed. Importing this package imports no framework; inside a running
IPython it makes components, agents, executors, graphs and build errors draw themselves when shown (see
:mod:`rlworkbench.drawable`: registered by type name, the renderer imported on the first drawing). How an
*uncaught* error is shown stays IPython's until you ask: ``%load_ext rlworkbench`` (:func:`load_ipython_extension`)
makes an uncaught ``BuildError`` draw its partial graph under its traceback.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from rlworkbench.core import Component, ComponentGraph, Executor, api, build, graph_fn
from rlworkbench.drawable import install_notebook_display as _install_notebook_display
from rlworkbench.errors import BuildError, ConfigError, MissingExtra, RLWorkbenchError, SpaceError

if _TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell


def _draw(target: object, include: object = None, exclude: object = None) -> dict[str, str] | None:
    """A notebook's drawing of ``target``: the renderer (graphviz) is imported when the first one is shown; without
    the ``jupyter`` extra, None (the object shows its repr)."""
    try:
        from rlworkbench.visualize.notebook_display import notebook_bundle
    except MissingExtra:
        return None

    return notebook_bundle(target, include, exclude)


_install_notebook_display(_draw)  # (how objects look when shown; uncaught errors: load_ipython_extension)


def load_ipython_extension(ipython: "InteractiveShell") -> None:
    """``%load_ext rlworkbench``: rlworkbench objects draw themselves in ``ipython`` and an uncaught ``BuildError``
    shows its partial graph after its traceback (unless an exception handler of your own is installed there)."""
    _install_notebook_display(_draw, BuildError, shell=ipython)


__version__ = "0.1.0"
__all__ = [
           "BuildError",
           "Component",
           "ComponentGraph",
           "ConfigError",
           "Executor",
           "MissingExtra",
           "RLWorkbenchError",
           "SpaceError",
           "__version__",
           "api",
           "build",
           "graph_fn",
           "load_ipython_extension",
]
