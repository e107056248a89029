"""How components, agents, executors, graphs and failed builds draw themselves in a notebook after nothing more
than ``import rlworkbench`` — and how an uncaught ``BuildError`` draws its graph once you ask for it.

Drawing lives above the core (:mod:`rlworkbench.visualize`, graphviz) and the core never imports it, so the drawn
classes carry no display code. Instead the top of the package (``rlworkbench/__init__.py``, which may import any
layer), when it is imported inside a running IPython (a Jupyter kernel), calls :func:`install_notebook_display`
with a printer that imports the renderer on its first use: the drawn types (:data:`DRAWN_TYPES`) are registered
*by name* with IPython's mime-bundle formatter (``for_type_by_name``), so registering imports none of them, and
nothing is drawn or imported until one is shown.

How an *uncaught* error is shown stays IPython's: importing changes nothing there. ``%load_ext rlworkbench``
(:func:`rlworkbench.load_ipython_extension`, which passes ``build_error``) or
:func:`rlworkbench.workbench.show_build_errors_as_graphs` makes an uncaught ``BuildError`` in a cell show its
traceback and then its partial graph (:func:`show_uncaught_with_graph`; not where the user installed an exception
handler of their own).

Outside IPython nothing happens and IPython is not imported. In an IPython started after ``import rlworkbench``
the objects' plain text (``_repr_pretty_ = pretty_with_draw_hint``, set by each drawn class itself, since IPython
takes a class's own ``__repr__`` before a base class's ``_repr_pretty_``) says how to get the picture.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.lib.pretty import RepresentationPrinter

DRAW_HINT = "import rlworkbench.visualize (or rlworkbench.workbench) to see its graph"
DRAWN_TYPES = (("rlworkbench.core.component", "Component"), ("rlworkbench.agents.agent", "Agent"),
               ("rlworkbench.core.executor", "Executor"), ("rlworkbench.core.graph", "ComponentGraph"),
               ("rlworkbench.errors", "BuildError"))
"""``(module, class name)`` of everything a notebook draws (subclasses included)."""

Printer = Callable[..., "dict[str, str] | None"]  # (target, include=None, exclude=None) -> a Jupyter mime bundle


def pretty_with_draw_hint(self: object, printer: RepresentationPrinter, cycle: bool) -> None:
    """IPython's plain text of a drawable object: its ``repr`` and :data:`DRAW_HINT`."""
    printer.text(f"{self!r}\n({DRAW_HINT})")


def running_shell() -> Any:
    """The running IPython shell, or None (IPython is only looked up, never imported)."""
    ipython = sys.modules.get("IPython")  # a running IPython has been imported already
    return ipython.get_ipython() if ipython is not None else None


def install_notebook_display(printer: Printer, build_error: type[BaseException] | None = None,
                             shell: Any = None) -> bool:
    """Registers ``printer`` for :data:`DRAWN_TYPES` with ``shell``'s formatters (default: the running IPython)
    and, given the ``build_error`` class, draws uncaught ones after their traceback; returns whether there was a
    shell. Safe to call again."""
    shell = shell if shell is not None else running_shell()
    if shell is None:
        return False
    formatter = shell.display_formatter.mimebundle_formatter
    for module, name in DRAWN_TYPES:  # the bundle's text/plain (no hint) wins over the objects' _repr_pretty_
        formatter.for_type_by_name(module, name, printer)
    if build_error is not None:
        show_uncaught_with_graph(build_error, shell)
    return True


def show_uncaught_with_graph(error_type: type[BaseException], shell: InteractiveShell) -> bool:
    """Makes an uncaught ``error_type`` (a BuildError) show its traceback and then display itself (its graph),
    unless a handler for other exceptions is installed in ``shell``; returns whether it was installed."""
    if shell.custom_exceptions not in ((), (error_type,)):  # the user's own handler stays
        return False
    shell.set_custom_exc((error_type,), _traceback_then_graph)
    return True


def _traceback_then_graph(shell: Any, etype: type, error: BaseException, tb: TracebackType | None,
                          tb_offset: int | None = None) -> object:
    structured = shell.showtraceback((etype, error, tb), tb_offset=tb_offset)
    if getattr(error, "graph", None) is not None:
        from IPython.display import display

        display(error)
    return structured
