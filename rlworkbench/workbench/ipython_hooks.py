"""IPython integration: an uncaught :class:`BuildError` in a cell shows its traceback *and* its partial graph."""

from __future__ import annotations

from typing import Any

from rlworkbench.errors import BuildError
from rlworkbench.visualize.notebook_display import register_notebook_display


def show_build_errors_as_graphs(shell: Any = None) -> bool:
    """Installs the handler in ``shell`` (default: the running IPython) unless one for other exceptions is already
    installed there; returns whether it was installed."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    if shell is None:
        return False
    if shell.custom_exceptions not in ((), (BuildError,)):  # the user's own handler stays
        return False
    register_notebook_display(shell)  # the graph is drawn by the display the visualize layer registers
    shell.set_custom_exc((BuildError,), _show_build_error)
    return True


def _show_build_error(shell: Any, etype: type, error: BaseException, tb: Any, tb_offset: int | None = None) -> Any:
    structured = shell.showtraceback((etype, error, tb), tb_offset=tb_offset)
    if isinstance(error, BuildError) and error.graph is not None:
        from IPython.display import display

        display(error)
    return structured
