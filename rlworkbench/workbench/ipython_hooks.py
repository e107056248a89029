"""IPython integration: an uncaught :class:`BuildError` in a cell shows its traceback *and* its partial graph.

Nothing installs it by being imported: ``%load_ext rlworkbench`` does (see :func:`rlworkbench.load_ipython_extension`),
or :func:`show_build_errors_as_graphs` for the running IPython or a given shell.
"""

from __future__ import annotations

from typing import Any

from rlworkbench.drawable import running_shell, show_uncaught_with_graph
from rlworkbench.errors import BuildError
from rlworkbench.visualize.notebook_display import register_notebook_display


def show_build_errors_as_graphs(shell: Any = None) -> bool:
    """Installs the handler in ``shell`` (default: the running IPython) unless one for other exceptions is already
    installed there; returns whether it was installed."""
    shell = shell if shell is not None else running_shell()
    if shell is None or not show_uncaught_with_graph(BuildError, shell):
        return False
    register_notebook_display(shell)  # the graph is drawn by the display the visualize layer registers
    return True
