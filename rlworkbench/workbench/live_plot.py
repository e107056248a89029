"""The live view of a run: a progress bar, a status line and a plot of returns and losses, kept fresh.

:func:`plot_metrics` draws the episodes and updates tables on a matplotlib ``Figure`` with the Agg canvas
(no pyplot: safe off the main thread, and nothing pops up). :class:`LiveView` holds an ipywidgets ``VBox`` —
``IntProgress``, an ``HTML`` status line and an ``Image`` of the plot as PNG — and a daemon thread that
refreshes it every ``interval`` seconds while the run goes, and once more when it ends. ipykernel sends widget
updates from any thread, so the view moves while the kernel runs other cells.

The view reads its run only through ``snapshot()``, ``total_timesteps``, ``state``, ``error`` and ``done`` (and,
where the run has them, its start ``phase``, ``devices``, ``workers``, ``shards`` and a cluster job's last
``logs()``, and a distributed plan's dataflow: :mod:`.live_dataflow`); its Stop button calls
``run.stop(wait=False)`` and Save figure writes ``curves.png``/``curves.svg`` into ``run.logdir``.
Table headers explain themselves in tooltips (:mod:`.live_tables`).
"""

from __future__ import annotations

import html
import io
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rlworkbench.agents.guard_counts import REFUSED, SKIPPED
from rlworkbench.workbench.live_dataflow import DataflowPane
from rlworkbench.workbench.live_tables import log_html, tables_html

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from rlworkbench.execution.metrics import MetricsSnapshot

TABLE_COLUMNS = ("update", "timesteps_total", "wall_time")
LOG_LINES = 6  #: log lines a cluster run's view shows
BAR_STYLES = {"finished": "success", "stopped": "warning", "failed": "danger"}
GUARD_TEXTS = {REFUSED: "updates refused (not finite)", SKIPPED: "bad rows skipped"}
"""The status line's words for the cumulative counts of the updates table, shown once above 0."""


def loss_columns(updates: pd.DataFrame) -> list[str]:
    """The metric columns of an updates table whose name says loss (all metric columns if none does)."""
    metrics = [column for column in updates.columns if column not in TABLE_COLUMNS]
    return [column for column in metrics if "loss" in column.lower()] or metrics


def plot_metrics(episodes: pd.DataFrame, updates: pd.DataFrame, *, window: int = 20,
                 update_metrics: Sequence[str] | None = None, title: str | None = None,
                 figsize: tuple[float, float] = (10.0, 3.4), max_points: int = 1000, draw: bool = True) -> Figure:
    """Two panels over env timesteps: episode returns with their running mean over ``window`` episodes, and
    the update metrics (``update_metrics``; default: :func:`loss_columns`). Update curves with more than
    ``max_points`` points are averaged over consecutive updates down to about that many. The figure has an Agg
    canvas (``figure.canvas``) and is drawn on it unless ``draw=False`` (saving it draws it anyway)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    FigureCanvasAgg(figure)
    returns_axes, loss_axes = figure.subplots(1, 2)
    figure.subplots_adjust(left=0.07, right=0.98, bottom=0.15, top=0.82 if title else 0.9, wspace=0.18)  # fixed:
    # a layout engine would measure every label on each of the live view's refreshes (as long as the drawing)
    returns_axes.set(title="episode return", xlabel="timesteps")
    if len(episodes):
        x, y = episodes["timesteps_total"].to_numpy(), episodes["return"].to_numpy()
        returns_axes.plot(x, y, ".", markersize=3, alpha=0.35, color="tab:blue", label="return")
        mean = episodes["return"].rolling(window, min_periods=1).mean().to_numpy()
        returns_axes.plot(x, mean, "-", color="tab:blue", linewidth=2, label=f"mean of {window}")
        returns_axes.legend(loc="upper left", fontsize="small")
    else:
        _empty(returns_axes, "no finished episode yet")
    loss_axes.set(title="losses", xlabel="timesteps")
    names = list(update_metrics) if update_metrics is not None else loss_columns(updates)
    names = [name for name in names if name in updates.columns]
    if len(updates) and names:
        stride = -(-len(updates) // max_points)  # consecutive updates averaged into one point
        groups = updates.groupby(np.arange(len(updates)) // stride)
        x = groups["timesteps_total"].last().to_numpy()
        for name in names:
            loss_axes.plot(x, groups[name].mean().to_numpy(), "-", linewidth=1.2, label=name)
        loss_axes.legend(loc="upper right", fontsize="small")
    else:
        _empty(loss_axes, "no update yet")
    if title:
        figure.suptitle(title, fontsize="medium")
    if draw:
        figure.canvas.draw()
    return figure


def _empty(axes: Any, text: str) -> None:
    axes.text(0.5, 0.5, text, ha="center", va="center", color="gray", transform=axes.transAxes)
    axes.set_xticks([])
    axes.set_yticks([])


def figure_png(figure: Figure, dpi: int = 80) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def status_line(snapshot: MetricsSnapshot, total: int, state: str, error: BaseException | None = None,
                phase: str | None = None) -> str:
    """``state · 1,200 / 5,000 steps · 34 episodes · recent return 21.5 · 900 steps/s · 0:01 < 0:04``, then
    ``· 3 updates refused (not finite) · 12 bad rows skipped`` where the agent refused or skipped any; a run
    still on its way to its first steps says what it is busy with: ``starting · starting Ray … 8 s · 0 / …``."""
    parts = [state, *([phase] if phase else []), f"{snapshot.timesteps:,} / {total:,} steps",
             f"{snapshot.num_episodes:,} episodes"]
    if not math.isnan(snapshot.recent_mean_return):
        parts.append(f"recent return {snapshot.recent_mean_return:.1f}")
    speed = snapshot.steps_per_second
    if math.isfinite(speed) and speed > 0:
        parts.append(f"{speed:,.0f} steps/s")
        remaining = max(0, total - snapshot.timesteps) / speed if state == "running" else 0.0
        parts.append(f"{_clock(snapshot.wall_time)} < {_clock(remaining)}")
    parts.extend(guard_counts(snapshot.updates))
    if error is not None:
        parts.append(f"{type(error).__name__}: {error}")
    return " · ".join(parts)


def guard_counts(updates: pd.DataFrame) -> list[str]:
    """``["3 updates refused (not finite)", ...]``: the counts of :data:`GUARD_TEXTS` in an updates table, where
    above 0 (each the newest value of a cumulative column)."""
    counts = (updates[column].max() if column in updates.columns else math.nan for column in GUARD_TEXTS)
    return [f"{int(count):,} {text}" for count, text in zip(counts, GUARD_TEXTS.values()) if count > 0]


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


class LiveView:
    """The widget of a run (:attr:`widget`), refreshed from a daemon thread while the run goes: a heading (which
    run: ``heading``, HTML), Stop and Save figure, the bar and status line, tables, the plot, the dataflow,
    a cluster's log."""

    def __init__(self, run: Any, interval: float = 1.0, title: str | None = None, heading: str = ""):
        import ipywidgets as widgets

        self.run, self.interval, self.title = run, float(interval), title
        self.heading = widgets.HTML(value=heading, layout=widgets.Layout(flex="1 1 auto"))
        self.stop_button = widgets.Button(description="Stop", icon="stop", button_style="warning",
                                          tooltip="End the run after its current step (it saves checkpoints/final)",
                                          layout=widgets.Layout(width="auto"))
        self.save_button = widgets.Button(description="Save figure", icon="download",
                                          tooltip="Write the curves as curves.png and curves.svg into the run "
                                                  "directory", layout=widgets.Layout(width="auto"))
        self.saved = widgets.HTML(value="")  # where Save figure wrote
        self.stop_button.on_click(lambda _: self.stop())
        self.save_button.on_click(lambda _: self._save_clicked())
        self.progress = widgets.IntProgress(value=0, min=0, max=max(1, run.total_timesteps),
                                            layout=widgets.Layout(width="60%"))
        self.label = widgets.HTML(value="")
        self.image = widgets.Image(value=b"", format="png", layout=widgets.Layout(max_width="100%"))
        self.tables = widgets.HTML(value="")  # remote workers and replay shards, on targets that have them
        self.log = widgets.HTML(value="")  # the last lines of a cluster job's own log
        self.dataflow = DataflowPane()  # a distributed plan drawn with its live rates (hidden without one)
        top = widgets.HBox([self.heading, self.stop_button, self.save_button],
                           layout=widgets.Layout(align_items="center"))
        self.widget = widgets.VBox([top, widgets.HBox([self.progress, self.label]), self.tables, self.image,
                                    self.dataflow.widget, self.saved, self.log])
        self.refreshes = 0  # how many times the plot was drawn
        self._drawn: tuple[int, int] | None = None  # (episodes, updates) in the plot on show
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> LiveView:
        """Starts the refresh thread (once); it ends after the run's final refresh or on :meth:`close`."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="rlworkbench-live-view", daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._closed.is_set():
            done = self.run.done  # read before the refresh, so the last refresh sees the final tables
            try:
                self.refresh()
            except Exception as error:  # a broken view must not die silently, nor touch the run
                self.label.value = f"<span style='color: #b00'>live view stopped: {html.escape(repr(error))}</span>"
                return
            if done:
                return
            self._closed.wait(self.interval)

    def refresh(self) -> None:
        """Reads a snapshot and updates the bar, the status line and (when the tables grew) the plot."""
        with self._lock:
            state, error = self.run.state, self.run.error  # before the snapshot: a finished state has final numbers
            snapshot = self.run.snapshot()
            self.progress.max = max(1, self.run.total_timesteps)
            self.progress.value = min(snapshot.timesteps, self.progress.max)
            self.progress.bar_style = BAR_STYLES.get(state, "")
            text = status_line(snapshot, self.run.total_timesteps, state, error, getattr(self.run, "phase", None))
            self.stop_button.disabled = bool(self.run.done) or self.stop_button.description == "Stopping…"
            if self.run.done:
                self.stop_button.description = "Stop"
            devices = getattr(self.run, "devices", None)
            if devices:  # a multi-device run says where its update runs
                text = f"{len(devices)} towers on {', '.join(devices)} · {text}"
            text = html.escape(text)
            color = "#b00" if error is not None else "inherit"
            self.label.value = f"<span style='font-family: monospace; color: {color}'>{text}</span>"
            self.tables.value = tables_html(getattr(self.run, "workers", None), getattr(self.run, "shards", None),
                                           getattr(self.run, "learners", None))
            self.dataflow.refresh(self.run)
            self.log.value = log_html(self.run.logs(LOG_LINES) if hasattr(self.run, "logs") else [])
            counts = (snapshot.num_episodes, snapshot.num_updates)
            if counts != self._drawn:
                figure = plot_metrics(snapshot.episodes, snapshot.updates, title=self.title, draw=False)
                self.image.value = figure_png(figure)
                self._drawn = counts
                self.refreshes += 1

    def stop(self) -> None:
        """What Stop does: asks the run to end (it saves its final checkpoint), without waiting for it."""
        self.stop_button.disabled, self.stop_button.description = True, "Stopping…"
        self.run.stop(wait=False)

    def save_figure(self, directory: str | Path | None = None) -> list[Path]:
        """Writes the curves so far as ``curves.png`` and ``curves.svg`` into ``directory`` (default: the run
        directory) and says where in the view; returns the paths."""
        snapshot = self.run.snapshot()
        folder = Path(directory if directory is not None else self.run.logdir)
        folder.mkdir(parents=True, exist_ok=True)
        figure = plot_metrics(snapshot.episodes, snapshot.updates, title=self.title, draw=False)
        paths = [folder / "curves.png", folder / "curves.svg"]
        figure.savefig(paths[0], format="png", dpi=120)
        figure.savefig(paths[1], format="svg")
        where = html.escape(str(paths[0].parent))
        self.saved.value = (f"<span style='font-family: monospace' class='rlwb-saved'>saved curves.png and "
                            f"curves.svg ({snapshot.timesteps:,} steps) in {where}</span>")
        return paths

    def _save_clicked(self) -> None:
        try:
            self.save_figure()
        except Exception as error:  # a read-only folder: say so in the view, the run goes on
            self.saved.value = f"<span style='color: #b00'>could not save the figure: {html.escape(str(error))}</span>"

    def close(self) -> None:
        """Stops refreshing (the widget keeps its last picture)."""
        self._closed.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)


def show_figures_as_png() -> None:
    """Lets IPython show a pyplot-free matplotlib Figure as a PNG when it is a cell's value (matplotlib's inline
    backend does this only once pyplot is imported)."""
    try:
        from IPython import get_ipython
        from IPython.core.pylabtools import print_figure
        from matplotlib.figure import Figure
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["image/png"]
    try:
        formatter.lookup_by_type(Figure)
    except KeyError:
        formatter.for_type(Figure, lambda figure: print_figure(figure, "png", bbox_inches="tight"))
