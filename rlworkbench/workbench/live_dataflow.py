"""The live view's "Dataflow" section: a distributed run's plan drawn with its live rates, refreshed with the tables.

:func:`dataflow_snapshot_of` finds a run's :class:`~rlworkbench.execution.dataflow.DataflowSnapshot`: its
execution's ``dataflow_snapshot()`` where it has one (None there: nothing to draw yet), else the ``dataflow.json``
its run directory holds (a cluster job's mirror), else None. :class:`DataflowPane` is a collapsible section (an
``Accordion`` around an ``HTML`` with the SVG) that stays hidden while there is no snapshot and redraws only when
the snapshot changed, so a finished run costs no ``dot`` call per refresh.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rlworkbench.execution.dataflow import DataflowSnapshot

TITLE = "Dataflow"


def dataflow_snapshot_of(run: Any) -> DataflowSnapshot | None:
    """``run``'s dataflow now (``run`` is a Run, or an Execution itself), or None for a run without a plan."""
    from rlworkbench.execution.dataflow import DataflowSnapshot, read_dataflow

    execution = getattr(run, "execution", run)
    reader = getattr(execution, "dataflow_snapshot", None)
    if callable(reader):
        snapshot = reader()
        return snapshot if isinstance(snapshot, DataflowSnapshot) else None
    logdir = getattr(run, "logdir", None)
    return read_dataflow(Path(logdir)) if logdir is not None and Path(logdir).is_dir() else None


def dataflow_html(snapshot: DataflowSnapshot) -> str:
    """The drawing at its natural size in a box that scrolls, under a line naming the bottleneck."""
    from rlworkbench.visualize.dataflow_drawing import dataflow_svg
    from rlworkbench.visualize.scrolling_svg import scrolling_svg

    limit = snapshot.bottleneck
    where = (f"bottleneck: {limit.carries} {limit.source} → {limit.target}" if limit is not None
             else "no bottleneck named yet")
    line = (f"<div class='rlwb-dataflow-note' style='font-family: monospace; font-size: 85%'>"
            f"{html.escape(snapshot.plan)} · {snapshot.wall_time:,.1f} s · {html.escape(where)}</div>")
    return line + scrolling_svg(dataflow_svg(snapshot), title=f"{snapshot.plan} dataflow", max_height="60vh")


class DataflowPane:
    """A collapsible "Dataflow" section (:attr:`widget`), open, hidden until the run has a snapshot."""

    def __init__(self) -> None:
        import ipywidgets as widgets

        self.html = widgets.HTML(value="")
        self.widget = widgets.Accordion(children=[self.html], titles=(TITLE,), selected_index=0,
                                        layout=widgets.Layout(display="none"))
        self.snapshot: DataflowSnapshot | None = None  #: the one drawn
        self.draws = 0  #: how many times the drawing was made

    @property
    def shown(self) -> bool:
        return self.widget.layout.display != "none"

    def refresh(self, run: Any) -> None:
        """Reads the run's snapshot; hides the section without one, redraws when it changed. A snapshot that
        cannot be read or drawn is said in the section (the rest of the view goes on)."""
        try:
            snapshot = dataflow_snapshot_of(run)
            if snapshot is None:
                self.widget.layout.display = "none"
                return
            if snapshot != self.snapshot:
                self.html.value = dataflow_html(snapshot)
                self.snapshot = snapshot
                self.draws += 1
        except Exception as error:  # a plan between actors, dot missing: say so, keep the view alive
            self.html.value = (f"<span style='color: #b00'>cannot draw the dataflow: "
                               f"{html.escape(f'{type(error).__name__}: {error}')}</span>")
            self.snapshot = None
        self.widget.layout.display = None
