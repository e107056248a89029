"""The live widget of an experiment: a status line, the sortable :class:`~.trial_table.TrialTable` and the trials'
learning curves coloured by a chosen parameter, the best trial drawn thick — refreshed from a daemon thread every
``interval`` s (at most 2) while new records arrive, through ipywidgets only (no printed tables: it looks the
same in JupyterLab, in a classic notebook and for a sweep on a cluster).

:func:`plot_curves` draws the curves on a pyplot-free matplotlib Figure: one line per trial, the mean over its
seeds at each result, the seeds themselves faint.
"""

from __future__ import annotations

import html
import math
import threading
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rlworkbench.workbench.live_plot import figure_png

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TRIAL = "trial"  #: colour by trial (no parameter)


def plot_curves(curves: pd.DataFrame, color_by: str = TRIAL, best: str | None = None, metric: str = "return",
                log_scale: bool = False, title: str | None = None, figsize: tuple[float, float] = (9.0, 3.6),
                seeds: bool = True) -> Figure:
    """Each trial's ``metric`` over env steps (mean over seeds; with ``seeds`` each seed faint), coloured by the
    values of ``color_by`` (a parameter column, with a colour bar — logarithmic with ``log_scale`` — or ``"trial"``);
    ``best`` drawn thick."""
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0.07, 0.14, 0.78, 0.74 if title else 0.8))
    axes.set(xlabel="timesteps", ylabel=metric)
    data = curves.dropna(subset=[metric]) if metric in curves.columns else curves.iloc[0:0]
    if data.empty:
        axes.text(0.5, 0.5, "no results yet", ha="center", va="center", color="gray", transform=axes.transAxes)
        if title:
            figure.suptitle(title, fontsize="medium")
        return figure
    trials = list(dict.fromkeys(data["trial"]))
    values = data.groupby("trial")[color_by].first() if color_by in data.columns and color_by != TRIAL else None
    numeric = values is not None and pd.api.types.is_numeric_dtype(values) and values.notna().all()
    if numeric:
        assert values is not None
        low, high = float(values.min()), float(values.max())
        use_log = log_scale and low > 0
        norm = LogNorm(low, high if high > low else low * 1.0001) if use_log else \
            Normalize(low, high if high > low else low + 1.0)
        colormap = colormaps["viridis"]

        def color(trial: str) -> Any:
            return colormap(norm(float(values[trial])))
        bar_axes = figure.add_axes((0.87, 0.14, 0.02, 0.74 if title else 0.8))
        figure.colorbar(_mappable(norm, colormap), cax=bar_axes, label=color_by)
    else:
        palette = colormaps["tab10"]
        keys = list(dict.fromkeys(values.astype(str))) if values is not None else trials

        def color(trial: str) -> Any:
            key = str(values[trial]) if values is not None else trial
            return palette(keys.index(key) % 10)
    for trial in trials:
        rows = data[data["trial"] == trial]
        mean = rows.groupby("timesteps")[metric].mean()
        thick = trial == best
        if seeds and rows["seed"].nunique() > 1:
            for _, seed_rows in rows.groupby("seed"):
                axes.plot(seed_rows["timesteps"], seed_rows[metric], "-", color=color(trial), alpha=0.18, linewidth=0.8)
        label = f"{trial} (best)" if thick else None
        axes.plot(mean.index, mean.to_numpy(), "-", color=color(trial), linewidth=3.0 if thick else 1.3,
                  alpha=1.0 if thick or best is None else 0.75, zorder=3 if thick else 2, label=label)
    if best in trials:
        axes.legend(loc="upper left", fontsize="small")
    if not numeric and values is not None:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=color(trial), label=str(values[trial]))
                   for trial in dict.fromkeys(trials, None) if trial in values.index]
        unique = {handle.get_label(): handle for handle in handles}
        axes.legend(handles=list(unique.values()), title=color_by, fontsize="small", loc="upper left")
    if title:
        figure.suptitle(title, fontsize="medium")
    return figure


def _mappable(norm: Any, colormap: Any) -> Any:
    from matplotlib.cm import ScalarMappable

    mappable = ScalarMappable(norm=norm, cmap=colormap)
    mappable.set_array(np.array([]))
    return mappable


class ExperimentView:
    """The widget of an experiment (:attr:`widget`), refreshed while records come in."""

    def __init__(self, experiment: Any, interval: float = 1.0):
        import ipywidgets as widgets

        from rlworkbench.workbench.experiments.trial_table import TrialTable

        self.experiment, self.interval = experiment, min(float(interval), 2.0)
        plan = experiment.plan
        self.status = widgets.HTML(value="")
        self.progress = widgets.IntProgress(value=0, min=0, max=1, layout=widgets.Layout(width="40%"))
        self.table = TrialTable(sort_by=plan.metric, descending=plan.mode == "max")
        choices = [TRIAL, *plan.paths]
        self.color_by = widgets.Dropdown(options=choices, value=plan.paths[0] if plan.paths else TRIAL,
                                         description="colour by", layout=widgets.Layout(width="22em"))
        self.image = widgets.Image(value=b"", format="png", layout=widgets.Layout(max_width="100%"))
        self.widget = widgets.VBox([widgets.HBox([self.progress, self.status]), self.table, self.color_by,
                                    self.image])
        self.color_by.observe(lambda _change: self.refresh(force=True), names="value")
        self.refreshes = 0
        self._drawn: tuple[int, str] | None = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> ExperimentView:
        if self._thread is None:
            self.refresh()
            self._thread = threading.Thread(target=self._loop, name="rlworkbench-experiment-view", daemon=True)
            self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._closed.wait(self.interval):
            done = self.experiment.done
            try:
                self.refresh()
            except Exception as error:  # a broken view must say so, and leave the experiment alone
                self.status.value = f"<span style='color: #b00'>view stopped: {html.escape(repr(error))}</span>"
                return
            if done:
                return

    def refresh(self, force: bool = False) -> None:
        """Redraws what changed since the last refresh (everything with ``force``)."""
        with self._lock:
            experiment, plan = self.experiment, self.experiment.plan
            book = experiment.book
            key = (book.version, self.color_by.value)
            trials = experiment.trials
            best = experiment.best_trial
            total = max(1, plan.budget * max(1, len(trials)))
            self.progress.max, self.progress.value = total, int(min(total, trials["timesteps"].fillna(0).sum()))
            self.status.value = self._status(experiment, trials, best)
            if key == self._drawn and not force:
                return
            self.table.show(trials.drop(columns=["error"]) if not trials["error"].notna().any() else trials, best)
            figure = plot_curves(experiment.curves, color_by=self.color_by.value, best=best,
                                 metric="greedy_return" if plan.metric == "greedy_return" else "return",
                                 log_scale="loguniform" in plan.space.get(self.color_by.value, ""),
                                 title=f"{plan.name}: {plan.metric} per trial (mean over {len(plan.seeds)} seeds)")
            self.image.value = figure_png(figure)
            self._drawn = key
            self.refreshes += 1

    @staticmethod
    def _status(experiment: Any, trials: pd.DataFrame, best: str | None) -> str:
        plan = experiment.plan
        counts = ", ".join(f"{count} {state}" for state, count in experiment.book.state_counts().items())
        parts = [f"<b>{html.escape(experiment.state)}</b>", f"{len(trials)} trial(s): {counts or 'none yet'}",
                 f"{len(plan.seeds)} seed(s) each", f"{plan.scheduler or 'no'} scheduler",
                 f"{plan.search or 'random/grid'} search"]
        if best is not None:
            value = trials.set_index("trial").loc[best, plan.metric]
            if value is not None and not (isinstance(value, float) and math.isnan(value)):
                parts.append(f"best {html.escape(best)}: {plan.metric} {float(value):.1f}")
        if experiment.error:
            parts.append(f"<span style='color: #b00'>{html.escape(str(experiment.error))}</span>")
        return "<span style='font-family: monospace'>" + " · ".join(parts) + "</span>"

    def close(self) -> None:
        self._closed.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)
