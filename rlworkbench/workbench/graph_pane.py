"""``GraphPane``: the navigable drawing of a component graph in the notebook widgets (an anywidget).

It opens at a scale where every node label is at least 9 px on screen: fitted to the pane's width when that is
enough, else at that scale centred on one of the drawn component's own API methods (the one with the most
labels around it), the rest a drag away. Its toolbar
shows the zoom ("fit · 27 %", "75 %"; a click on it opens again) between the zoom-out and zoom-in buttons, *fit*
(the whole width; or double-click) and *100 %* (natural size, on the same place). The mouse wheel zooms around the
pointer, dragging pans, and :meth:`focus_on` brings a component (its cluster) into view — GraphExplorer calls it
when a component is selected, GraphBuilder after a failed build on the stuck component. The view logic is in
``graph_pane.js``; the legible scale, the zoom text and the wheel and drag gestures in ``pan_zoom.js``, which the
JupyterLab viewer's bundle carries too: the pane's ESM is the two files as one module (:func:`pane_module`).
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

SHARED_MODULE = "pan_zoom.js"  #: pan/zoom shared with the lab viewer (extensions/rlworkbench-lab/src/graphZoom.ts)
PANE_MODULE = "graph_pane.js"


def pane_module() -> str:
    """The pane's ESM: ``pan_zoom.js``, then ``graph_pane.js``, which uses its functions (package data, read here)."""
    here = Path(__file__).parent
    return "\n".join((here / name).read_text() for name in (SHARED_MODULE, PANE_MODULE))


_CSS = """
.rlw-graph-pane { width: 100%; }
.rlw-graph-toolbar { display: flex; gap: 4px; align-items: center; margin: 2px 0; font-size: 11px; }
.rlw-graph-button { font-size: 11px; padding: 1px 8px; cursor: pointer; border: 1px solid #cbd5e1;
  background: #f8fafc; border-radius: 3px; }
.rlw-graph-zoom { min-width: 72px; font-variant-numeric: tabular-nums; font-weight: 600; }
.rlw-graph-hint { color: #6b7280; margin-left: 6px; }
.rlw-graph-viewport { position: relative; overflow: hidden; background: white; border: 1px solid #e5e7eb;
  border-radius: 4px; cursor: grab; touch-action: none; }
.rlw-graph-viewport.rlw-dragging { cursor: grabbing; }
.rlw-graph-stage { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
"""


class GraphPane(anywidget.AnyWidget):
    """Shows ``svg`` (a graphviz drawing) in a pane ``height`` pixels high; ``focus``: a component path to bring
    into view."""

    _esm = pane_module()
    _css = _CSS
    svg = traitlets.Unicode("").tag(sync=True)
    focus = traitlets.Unicode("").tag(sync=True)
    focus_request = traitlets.Int(0).tag(sync=True)  # bumped to bring the same component into view again
    height = traitlets.Int(560).tag(sync=True)

    def focus_on(self, path: str | None) -> None:
        """Zooms and scrolls the pane to the component at ``path`` (its cluster); ``None``/``""``: no focus."""
        self.focus = path or ""
        self.focus_request += 1
