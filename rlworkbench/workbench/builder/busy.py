"""``BusyIndicator``: "building on tf… 3 s" in the builder's status row while a build or backend switch runs.

The kernel is busy for the whole build, so nothing on the Python side could tick: the kernel only says when work
starts (``label`` set) and ends (``label`` cleared), and the browser shows the label with the seconds since it
came, from ``delay`` seconds on (quick builds show nothing). The widget also carries the builder's stylesheet
(``builder.css``: layout, wrapping labels, no nested horizontal scrollbars), which anywidget adds to the page once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import anywidget
import traitlets

HERE = Path(__file__).parent


class BusyIndicator(anywidget.AnyWidget):
    """Shows ``label`` ("building on tf") with a ticking seconds count after ``delay`` seconds; "" hides it."""

    _esm = HERE / "busy.js"
    _css = HERE / "builder.css"
    label = traitlets.Unicode("").tag(sync=True)
    delay = traitlets.Float(0.5).tag(sync=True)

    @contextlib.contextmanager
    def showing(self, label: str) -> Iterator[None]:
        """Shows ``label`` while the block runs (nested uses keep the outer label)."""
        if self.label:
            yield
            return
        self.label = label
        try:
            yield
        finally:
            self.label = ""
