"""Graph drawings as inline SVG for widgets, and typed errors as HTML with the offending component in red."""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

from rlworkbench.errors import BuildError, RLWorkbenchError
from rlworkbench.visualize.graph_diff import GraphChanges
from rlworkbench.visualize.palette import SELECT_COLOR
from rlworkbench.visualize.scrolling_svg import scrolling_svg

__all__ = ["SELECT_COLOR", "error_html", "error_paths", "error_text", "graph_drawing", "graph_svg", "scrolled",
           "status_html"]


def graph_drawing(target: Any, *, selected: str | None = None, highlight: Iterable[str] = (),
                  depth: int | None = None, api: str | None = None,
                  changes: GraphChanges | None = None) -> tuple[str, dict[tuple[str, str], str]]:
    """Inline SVG (no XML prolog) of ``target`` (anything ``render_graph`` draws), ``selected`` in blue, the
    ``highlight`` paths in red and ``changes`` marked; with the drawing's edge labels (for the next changes)."""
    from rlworkbench.visualize import render_graph

    drawing = render_graph(target, highlight=highlight, selected=selected, depth=depth, api=api, changes=changes)
    svg = drawing.pipe(format="svg").decode("utf-8")
    return svg[svg.find("<svg"):], drawing.edge_labels


def graph_svg(target: Any, **options: object) -> str:
    """The SVG of :func:`graph_drawing` alone."""
    return graph_drawing(target, **options)[0]


def status_html(text: str, error: bool = False, css_class: str = "") -> str:
    """A widget's status line: grey, or red for an error."""
    color = "#b91c1c" if error else "#374151"
    return f"<span class='{css_class}' style='color:{color}'>{html.escape(text)}</span>"


TABLE_CSS = ("<style>.rlw-table{border-collapse:collapse;font-size:12px;margin:2px 0 6px}"
             ".rlw-table th,.rlw-table td{padding:2px 10px 2px 0;border-bottom:1px solid #e5e7eb;text-align:left;"
             "vertical-align:top}</style>")


def scrolled(svg: str, height: int = 560, fit: bool = False) -> str:
    """The SVG in a scrolling box at its natural size; ``fit``: scaled to the box's width (small labels)."""
    return scrolling_svg(svg, max_height=f"{height}px", fit=fit)


def error_text(error: BaseException) -> str:
    """``SpaceError: [component 'a/b', argument 'x', key 'obs'] … expected …, got …``."""
    return f"{type(error).__name__}: {error}"


def error_paths(error: BaseException, fallback: str | None = None) -> list[str]:
    """Component paths to draw in red for ``error``: the one it names, else ``fallback``."""
    path = getattr(error, "component", None) if isinstance(error, RLWorkbenchError) else None
    return [path] if path else ([fallback] if fallback else [])


def error_html(error: BaseException, target: Any, fallback: str | None = None, height: int = 420) -> str:
    """The typed message, and a drawing of ``target`` (of the error's own partial graph for a BuildError that has
    one) with the offending component highlighted."""
    message = (f"<div class='rlw-error' style='color:#b91c1c;white-space:pre-wrap;font-family:monospace'>"
               f"{html.escape(error_text(error))}</div>")
    try:
        if isinstance(error, BuildError) and error.graph is not None:
            svg = graph_svg(error, highlight=error_paths(error))
        else:
            svg = graph_svg(target, highlight=_known(target, error_paths(error, fallback)))
    except Exception as draw_error:  # the message matters more than the drawing
        return message + f"<div><i>(graph not drawn: {html.escape(error_text(draw_error))})</i></div>"
    return message + scrolled(svg, height)  # natural size: legible labels, the box scrolls


def _known(target: Any, paths: list[str]) -> list[str]:
    """Paths that exist in ``target``'s tree (an error may name a component of another tree, e.g. a copy)."""
    from rlworkbench.visualize.views import view_of

    tree = {c.path for c in view_of(target).focus.root.walk()}
    return [p for p in paths if p in tree]
