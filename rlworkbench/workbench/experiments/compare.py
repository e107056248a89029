"""``compare(runs_or_experiments, by="config") -> Comparison``: runs side by side as the field now reports them.

Agarwal et al. (NeurIPS 2021, "Deep RL at the edge of the statistical precipice") showed that means of a few
seeds mislead; they report interval estimates across runs. Here, per group of runs: **IQM, mean, median and
optimality gap with stratified bootstrap confidence intervals**, **performance profiles** (the fraction of runs
scoring above τ, with bands) and **sample-efficiency curves** (IQM over env steps, with bands) — all computed by
`rliable <https://github.com/google-research/rliable>`_ (called, not copied) — plus, for each pair of groups,
whether their IQM intervals overlap and the probability of improvement, and a **config diff** of the groups.

A run's score is the mean return of its last ``window`` episodes. Runs come as anything that has a run directory
or tables: a :class:`~rlworkbench.workbench.run.Run`, a :class:`~rlworkbench.workbench.run_result.RunResult`, an
:class:`~.experiment.Experiment` (each of its trial runs), or a path (a run or an experiment directory) — from any
experiment, target or day. Runs of several envs are tasks (stratified); their scores need ``normalize``.
"""

from __future__ import annotations

import contextlib
import json
import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rlworkbench.errors import ConfigError
from rlworkbench.extras import require
from rlworkbench.workbench.live_plot import show_figures_as_png

METRICS = ("iqm", "mean", "median", "optimality_gap")


@dataclass
class RunScores:
    """One run as ``compare`` sees it."""

    name: str
    config: dict[str, object]
    env: str
    episodes: pd.DataFrame = field(repr=False)
    labels: dict[str, object] = field(default_factory=dict)


@dataclass
class Comparison:
    """What :func:`compare` found. ``table``: one row per group (runs; IQM, mean, median, optimality gap, each with
    ``_low``/``_high`` bounds); ``pairs``: per pair of groups, the IQM intervals, whether they overlap, the
    probability of improvement with its interval and a verdict; ``config_diff``: the config keys whose values differ
    between groups; ``profiles`` and ``curves``: the performance profiles and sample-efficiency IQM curves (long
    format, with bounds); ``scores``: group → runs x tasks score matrix; ``figure``. ``table, figure = comparison``
    unpacks the two the issue of a paper needs first."""

    table: pd.DataFrame
    pairs: pd.DataFrame
    config_diff: pd.DataFrame
    profiles: pd.DataFrame
    curves: pd.DataFrame
    scores: dict[str, np.ndarray]
    tasks: list[str]                #: the envs, in the order of the score matrices' columns
    figure: Any
    notes: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[object]:
        return iter((self.table, self.figure))

    def _repr_html_(self) -> str:
        import base64

        from rlworkbench.workbench.live_plot import figure_png

        picture = base64.b64encode(figure_png(self.figure, dpi=90)).decode()
        notes = "".join(f"<li>{note}</li>" for note in self.notes)
        return (f"{self.table.to_html(index=False, float_format=lambda v: f'{v:,.2f}')}"
                f"<img src='data:image/png;base64,{picture}'/>"
                f"<h4>Pairs</h4>{self.pairs.to_html(index=False, float_format=lambda v: f'{v:,.3f}')}"
                f"<h4>Config diff</h4>{self.config_diff.to_html()}" + (f"<ul>{notes}</ul>" if notes else ""))


def compare(runs: Any, metric: str = "return", by: str | Callable[[RunScores], str] = "config", window: int = 10,
            optimum: float | None = None, normalize: object = None, reps: int = 2000, confidence: float = 0.95,
            taus: Sequence[float] | None = None, points: int = 10, seed: int = 0) -> Comparison:
    """Compares ``runs`` in groups (see the module docstring).

    Args:
        runs: runs, run results, experiments or paths — a list, or a dict ``{label: [runs]}`` naming the groups.
        metric: the episode column scored (``"return"``; ``"length"`` works too).
        by: how runs are grouped (ignored for a dict): ``"config"`` (identical configs), ``"experiment"``,
            ``"trial"``, a config key path (``"optimizer/learning_rate"``) or ``callable(run) -> label``.
        window: a run's score is the mean ``metric`` of its last ``window`` episodes.
        optimum: the optimality gap's target (default: 1 with ``normalize``, else the env's reward threshold).
        normalize: ``(low, high)`` or ``{env: (low, high)}``: scores become ``(score - low) / (high - low)``.
        reps, confidence, seed: the stratified bootstrap's replications (the pairs' probability of improvement
            takes a quarter of them, the curves a tenth: each replication there costs many aggregates), interval
            size and random state.
        taus: the performance profiles' thresholds (default: 40 between the lowest and highest score).
        points: env-step points of the sample-efficiency curves.
    """
    require("rliable", "compare()")
    from rliable import library as rly
    from rliable import metrics as rmetrics

    groups = _groups(runs, by, metric)
    envs = sorted({run.env for members in groups.values() for run in members})
    scale = _normalizer(normalize, envs)
    scores = {label: _score_matrix(members, envs, metric, window, scale) for label, members in groups.items()}
    notes: list[str] = []
    gamma = _gamma(optimum, normalize, envs, notes)

    def aggregates(matrix: np.ndarray) -> np.ndarray:
        return np.array([rmetrics.aggregate_iqm(matrix), rmetrics.aggregate_mean(matrix),
                         rmetrics.aggregate_median(matrix),
                         rmetrics.aggregate_optimality_gap(matrix, gamma) if gamma is not None else np.nan])

    with _seeded(seed):
        point, interval = rly.get_interval_estimates(scores, aggregates, reps=reps,
                                                     confidence_interval_size=confidence,
                                                     random_state=np.random.RandomState(seed))
        table = _table(groups, point, interval)
        pairs = _pairs(scores, point, interval, max(200, reps // 4), confidence, seed)
        taus_array = np.asarray(taus, dtype=float) if taus is not None else _default_taus(scores)
        profile_points, profile_bands = rly.create_performance_profile(scores, taus_array, reps=reps,
                                                                       confidence_interval_size=confidence)
        curves = _efficiency_curves(groups, envs, metric, window, scale, points, max(100, reps // 10), confidence,
                                    seed)
    profiles = pd.DataFrame([{"group": label, "tau": tau, "fraction": profile_points[label][i],
                              "low": profile_bands[label][0][i], "high": profile_bands[label][1][i]}
                             for label in scores for i, tau in enumerate(taus_array)])
    figure = draw_comparison(table, profiles, curves, gamma is not None)
    show_figures_as_png()  # comparison.figure as a cell's value: drawn, though pyplot was never imported
    return Comparison(table, pairs, config_diff(groups), profiles, curves, scores, envs, figure, notes)


@contextlib.contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """rliable's bootstrap draws its resamples from NumPy's global generator (its ``random_state`` reaches only
    arch's own): seed that for the call and put its state back after. Also silences arch's deprecation of the
    RandomState rliable hands it."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            yield
    finally:
        np.random.set_state(state)


# ----- the runs and their groups ----------------------------------------------------------------------------------
def collect(runs: object) -> list[RunScores]:
    """Every run in ``runs`` (one or a list of runs, run results, experiments, paths) as :class:`RunScores`."""
    from rlworkbench.workbench.experiments.experiment import Experiment
    from rlworkbench.workbench.run import Run
    from rlworkbench.workbench.run_result import RunResult

    items = runs if isinstance(runs, (list, tuple)) else [runs]
    collected: list[RunScores] = []
    for item in items:
        if isinstance(item, Experiment):
            collected.extend(_from_result(result) for result in item.runs())
        elif isinstance(item, Run):
            collected.append(RunScores(item.logdir.name, item.spec.config, item.spec.env_name, item.metrics,
                                       dict(item.spec.context.labels)))
        elif isinstance(item, RunResult):
            collected.append(_from_result(item))
        elif isinstance(item, (str, Path)):
            path = Path(item)
            if (path / "experiment.json").exists():
                collected.extend(collect(Experiment.attach(path)))
            else:
                collected.append(_from_result(RunResult(path)))
        else:
            raise ConfigError("compare() takes runs, run results, experiments or their directories",
                              argument="runs", expected="Run, RunResult, Experiment, str or Path",
                              got=type(item).__name__)
    return collected


def _from_result(result: object) -> RunScores:
    return RunScores(result.logdir.name, result.config, result.env or "unknown env", result.metrics, result.labels)


def _groups(runs: object, by: str | Callable[[RunScores], str], metric: str) -> dict[str, list[RunScores]]:
    if isinstance(runs, Mapping):
        groups = {str(label): collect(members) for label, members in runs.items()}
    else:
        members = collect(runs)
        groups = {}
        labels = _labeller(by, members)
        for run in members:
            groups.setdefault(labels(run), []).append(run)
    if not groups or any(not members for members in groups.values()):
        raise ConfigError("nothing to compare", argument="runs", expected="at least one run per group",
                          got={label: len(members) for label, members in groups.items()})
    for members in groups.values():
        for run in members:
            if metric not in run.episodes.columns or run.episodes[metric].dropna().empty:
                raise ConfigError("a run has no finished episode to score (still running, or failed at once)",
                                  argument="runs", key_path=metric, expected=f"episodes with a {metric!r}",
                                  got=run.name)
    return groups


def _labeller(by: str | Callable[[RunScores], str], runs: list[RunScores]) -> Callable[[RunScores], str]:
    if callable(by):
        return lambda run: str(by(run))
    if by == "experiment":
        return lambda run: str(run.labels.get("experiment", run.name))
    if by == "trial":
        return lambda run: f"{run.labels.get('experiment', '')}/{run.labels.get('trial', run.name)}".strip("/")
    if by == "config":
        differing = differing_paths([flatten_config(run.config) for run in runs])
        if not differing:
            return lambda run: str(run.config.get("type", "config"))
        return lambda run: ", ".join(f"{path}={_short(flatten_config(run.config).get(path))}" for path in differing)
    if isinstance(by, str) and by:
        return lambda run: f"{by}={_short(flatten_config(run.config).get(by))}"
    raise ConfigError("bad grouping", argument="by", expected="'config', 'experiment', 'trial', a key path or a "
                      "callable", got=repr(by))


def flatten_config(config: Any, prefix: str = "") -> dict[str, object]:
    """A config as ``{key path: leaf value}`` (lists by index): what config diffs compare."""
    if isinstance(config, Mapping):
        items: Any = config.items()
    elif isinstance(config, list):
        items = ((str(index), value) for index, value in enumerate(config))
    else:
        return {prefix: config}
    flat: dict[str, object] = {}
    for key, value in items:
        flat.update(flatten_config(value, f"{prefix}/{key}" if prefix else str(key)))
    return flat


def differing_paths(configs: list[dict[str, object]]) -> list[str]:
    """The key paths of flattened configs whose values are not all the same (a key missing in some counts)."""
    paths = sorted({path for config in configs for path in config})
    return [path for path in paths
            if len({json.dumps(config.get(path), sort_keys=True) for config in configs}) > 1]


def _short(value: object) -> str:
    return f"{value:.4g}" if isinstance(value, float) else json.dumps(value) if not isinstance(value, str) else value


def config_diff(groups: Mapping[str, list[RunScores]]) -> pd.DataFrame:
    """The config key paths whose values differ between groups (rows) and each group's value(s) (columns; values
    that differ inside a group are joined with ``|``)."""
    flat = {label: [flatten_config(run.config) for run in members] for label, members in groups.items()}
    everything = [config for configs in flat.values() for config in configs]
    paths = differing_paths(everything)
    data = {label: [" | ".join(dict.fromkeys(_short(config.get(path)) for config in configs)) for path in paths]
            for label, configs in flat.items()}
    return pd.DataFrame(data, index=pd.Index(paths, name="key path"))


# ----- scores -------------------------------------------------------------------------------------------------------
def _normalizer(normalize: Any, envs: list[str]) -> Callable[[str, np.ndarray], np.ndarray]:
    if normalize is None:
        if len(envs) > 1:
            raise ConfigError("runs of several envs score on different scales", argument="normalize",
                              expected="(low, high) or {env: (low, high)} for " + ", ".join(envs), got=None)
        return lambda env, values: values
    bounds = normalize if isinstance(normalize, Mapping) else dict.fromkeys(envs, normalize)
    for env in envs:
        pair = bounds.get(env)
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and float(pair[1]) != float(pair[0])):
            raise ConfigError("bad normalization bounds", argument="normalize", key_path=env,
                              expected="(low, high) with high != low", got=pair)
    return lambda env, values: (values - float(bounds[env][0])) / (float(bounds[env][1]) - float(bounds[env][0]))


def _score_matrix(runs: list[RunScores], envs: list[str], metric: str, window: int,
                  scale: Callable[[str, np.ndarray], np.ndarray]) -> np.ndarray:
    """runs x tasks: each run's mean ``metric`` over its last ``window`` episodes (normalized)."""
    columns = []
    for env in envs:
        values = np.array([run.episodes[metric].dropna().tail(window).mean() for run in runs if run.env == env])
        columns.append(scale(env, values))
    counts = {len(column) for column in columns}
    if len(counts) != 1:
        raise ConfigError("a group needs as many runs of each env", argument="runs",
                          expected="equal runs per env in a group",
                          got={env: len(column) for env, column in zip(envs, columns)})
    return np.stack(columns, axis=1)


def _gamma(optimum: float | None, normalize: Any, envs: list[str], notes: list[str]) -> float | None:
    if optimum is not None:
        return float(optimum)
    if normalize is not None:
        return 1.0
    threshold = _reward_threshold(envs[0])
    if threshold is None:
        notes.append(f"no optimality gap: {envs[0]} has no reward threshold (pass optimum=)")
    return threshold


def _reward_threshold(env: str) -> float | None:
    try:
        import gymnasium

        threshold = gymnasium.spec(env).reward_threshold
    except Exception:
        return None
    return None if threshold is None else float(threshold)


def _default_taus(scores: Mapping[str, np.ndarray]) -> np.ndarray:
    values = np.concatenate([matrix.ravel() for matrix in scores.values()])
    low, high = float(values.min()), float(values.max())
    return np.linspace(low, high if high > low else low + 1.0, 40)


def _table(groups: Mapping[str, list[RunScores]], point: Mapping[str, np.ndarray],
           interval: Mapping[str, np.ndarray]) -> pd.DataFrame:
    rows = []
    for label in groups:
        row: dict[str, object] = {"group": label, "runs": len(groups[label])}
        for index, name in enumerate(METRICS):
            row.update({name: point[label][index], f"{name}_low": interval[label][0][index],
                        f"{name}_high": interval[label][1][index]})
        rows.append(row)
    return pd.DataFrame(rows)


def _pairs(scores: Mapping[str, np.ndarray], point: Mapping[str, np.ndarray], interval: Mapping[str, np.ndarray],
           reps: int, confidence: float, seed: int) -> pd.DataFrame:
    """Per pair of groups: their IQM intervals, whether they overlap, P(a > b) (rliable's probability of
    improvement) with its interval, and a verdict that only claims what the intervals show."""
    from rliable import library as rly
    from rliable import metrics as rmetrics

    labels = list(scores)
    rows = []
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            a_low, a_high = interval[a][0][0], interval[a][1][0]
            b_low, b_high = interval[b][0][0], interval[b][1][0]
            overlap = bool(a_low <= b_high and b_low <= a_high)
            key = f"{a} > {b}"
            p_point, p_interval = rly.get_interval_estimates(
                {key: [scores[a], scores[b]]}, lambda x, y: np.array([rmetrics.probability_of_improvement(x, y)]),
                reps=reps, confidence_interval_size=confidence, random_state=np.random.RandomState(seed))
            better = a if point[a][0] > point[b][0] else b
            verdict = "CIs overlap: no clear difference" if overlap else f"{better} is better (CIs apart)"
            rows.append({"a": a, "b": b, "iqm_a": point[a][0], "iqm_a_low": a_low, "iqm_a_high": a_high,
                         "iqm_b": point[b][0], "iqm_b_low": b_low, "iqm_b_high": b_high, "overlap": overlap,
                         "p_a_better": float(p_point[key][0]), "p_low": float(p_interval[key][0][0]),
                         "p_high": float(p_interval[key][1][0]), "verdict": verdict})
    columns = ["a", "b", "iqm_a", "iqm_a_low", "iqm_a_high", "iqm_b", "iqm_b_low", "iqm_b_high", "overlap",
               "p_a_better", "p_low", "p_high", "verdict"]
    return pd.DataFrame(rows, columns=columns)


def _efficiency_curves(groups: Mapping[str, list[RunScores]], envs: list[str], metric: str, window: int,
                       scale: Callable[[str, np.ndarray], np.ndarray], points: int, reps: int, confidence: float,
                       seed: int) -> pd.DataFrame:
    """IQM of the runs' running scores at ``points`` env-step marks up to where every run got, with intervals."""
    from rliable import library as rly
    from rliable import metrics as rmetrics

    runs = [run for members in groups.values() for run in members]
    end = min(float(run.episodes["timesteps_total"].max()) for run in runs)
    marks = np.linspace(end / points, end, points)
    matrices = {}
    for label, members in groups.items():
        per_env = []
        for env in envs:
            rows = [[_running_score(run.episodes, metric, window, mark) for mark in marks]
                    for run in members if run.env == env]
            per_env.append(scale(env, np.asarray(rows, dtype=float)))
        matrices[label] = np.stack(per_env, axis=1)  # runs x tasks x marks
    point, interval = rly.get_interval_estimates(
        matrices, lambda x: np.array([rmetrics.aggregate_iqm(x[..., k]) for k in range(x.shape[-1])]), reps=reps,
        confidence_interval_size=confidence, random_state=np.random.RandomState(seed))
    return pd.DataFrame([{"group": label, "timesteps": mark, "iqm": point[label][k], "low": interval[label][0][k],
                          "high": interval[label][1][k]} for label in matrices for k, mark in enumerate(marks)])


def _running_score(episodes: pd.DataFrame, metric: str, window: int, mark: float) -> float:
    done = episodes.loc[episodes["timesteps_total"] <= mark, metric].dropna()
    return float(done.tail(window).mean()) if len(done) else math.nan


# ----- the figure -----------------------------------------------------------------------------------------------------
def draw_comparison(table: pd.DataFrame, profiles: pd.DataFrame, curves: pd.DataFrame, with_gap: bool) -> Any:
    """Interval estimates (one panel per aggregate), performance profiles and sample-efficiency curves, each group
    in its colour, on a pyplot-free matplotlib Figure."""
    from matplotlib import colormaps
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = [name for name in METRICS if with_gap or name != "optimality_gap"]
    groups = list(table["group"])
    palette = colormaps["tab10"]
    colors = {group: palette(index % 10) for index, group in enumerate(groups)}
    height = 1.0 + 0.45 * len(groups)
    figure = Figure(figsize=(12, height + 3.4))
    FigureCanvasAgg(figure)
    left = min(0.45, 0.05 + 0.0068 * max((len(group) for group in groups), default=10))  # room for the labels
    grid = figure.add_gridspec(2, len(names), height_ratios=[height, 3.4], hspace=0.55, wspace=0.35, left=left,
                               right=0.98, top=0.95, bottom=0.08)
    for index, name in enumerate(names):
        axes = figure.add_subplot(grid[0, index])
        for row, group in enumerate(groups):
            line = table[table["group"] == group].iloc[0]
            axes.barh(row, line[f"{name}_high"] - line[f"{name}_low"], left=line[f"{name}_low"], height=0.6,
                      color=colors[group], alpha=0.75)
            axes.plot([line[name]] * 2, [row - 0.3, row + 0.3], color="black", linewidth=1.5)
        axes.set_yticks(range(len(groups)), groups if index == 0 else [""] * len(groups), fontsize="small")
        axes.set_title(name.replace("_", " ").upper() if name == "iqm" else name.replace("_", " ").title(),
                       fontsize="medium")
        axes.invert_yaxis()
    bottom = figure.add_gridspec(2, 2, height_ratios=[height, 3.4], hspace=0.55, wspace=0.2, left=0.06, right=0.98,
                                 top=0.95, bottom=0.08)
    profile_axes = figure.add_subplot(bottom[1, 0])
    _bands(profile_axes, profiles, "tau", "fraction", colors)
    profile_axes.set(title="performance profile", xlabel="score τ", ylabel="fraction of runs > τ")
    curve_axes = figure.add_subplot(bottom[1, 1])
    _bands(curve_axes, curves, "timesteps", "iqm", colors)
    curve_axes.set(title="sample efficiency (IQM)", xlabel="timesteps", ylabel="score")
    curve_axes.legend(fontsize="small", loc="lower right")
    figure.canvas.draw()
    return figure


def _bands(axes: Any, frame: pd.DataFrame, x: str, y: str, colors: dict[str, object]) -> None:
    """Each group's ``y`` over ``x`` as a line with its ``low``..``high`` band."""
    for group, color in colors.items():
        rows = frame[frame["group"] == group]
        axes.plot(rows[x], rows[y], color=color, label=group)
        axes.fill_between(rows[x], rows["low"], rows["high"], color=color, alpha=0.2)
