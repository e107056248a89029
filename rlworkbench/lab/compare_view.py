"""What the lab's compare view shows of a few runs (:func:`compare_payload`, served as ``GET rlworkbench/compare``):
each run's label, learning curve and config, and the config key paths whose values differ between them.

A run's curve is its episodes' return over env steps: ``<logdir>/episodes.csv`` when that file exists (written when
the run ends: the whole run), else the record's ``return_points`` (its last episodes — a run that still goes, or
one whose directory is elsewhere). The diff flattens configs with
:func:`~rlworkbench.workbench.experiments.compare.flatten_config` and picks the paths with
:func:`~rlworkbench.workbench.experiments.compare.differing_paths`, as ``compare()`` does.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rlworkbench.workbench.experiments.compare import differing_paths, flatten_config

CURVE_POINTS = 2000  #: at most this many points per curve (evenly thinned, first and last kept)


class UnknownRuns(LookupError):
    """Ids that name no run record; the message says which (and which name an experiment instead)."""


def compare_payload(records: list[dict[str, Any]], ids: list[str]) -> dict[str, Any]:
    """``{"runs": [{id, label, name, env, state, experiment, trial, seed, curve, source, config}], "diff": [{path,
    values: {id: value}}]}`` for the runs ``ids`` among ``records`` (a path missing from a config has no value)."""
    runs = {record["id"]: record for record in records if record.get("kind") is None}
    unknown = [run_id for run_id in ids if run_id not in runs]
    if unknown:
        kinds = {record["id"]: record.get("kind") for record in records}
        said = [f"{run_id} (an {kinds[run_id]}: compare its trials' runs)" if run_id in kinds else run_id
                for run_id in unknown]
        raise UnknownRuns(f"no run {', '.join(said)}")
    chosen = [described(runs[run_id]) for run_id in dict.fromkeys(ids)]
    flat = {run["id"]: flatten_config(run["config"]) for run in chosen}
    diff = [{"path": path, "values": {run_id: config[path] for run_id, config in flat.items() if path in config}}
            for path in differing_paths(list(flat.values()))]
    return {"runs": chosen, "diff": diff}


def described(record: dict[str, Any]) -> dict[str, Any]:
    """One run as the compare view shows it."""
    labels = record.get("labels") or {}
    curve, source = learning_curve(record)
    return {"id": record["id"], "label": run_label(record), "name": record.get("name"), "env": record.get("env"),
            "state": record.get("state"), "experiment": record.get("experiment"), "trial": labels.get("trial"),
            "seed": labels.get("seed"), "curve": curve, "source": source, "config": record.get("config") or {}}


def run_label(record: dict[str, Any]) -> str:
    """``<experiment>/<trial> seed <s>`` for an experiment's run, else its run directory's name."""
    labels = record.get("labels") or {}
    if record.get("experiment") and labels.get("trial") is not None:
        return f"{record['experiment']}/{labels['trial']} seed {labels.get('seed')}"
    return Path(record.get("logdir") or record["id"]).name


def learning_curve(record: dict[str, Any]) -> tuple[list[list[float]], str]:
    """``([[env steps, return], …], source)``: from ``episodes.csv`` when the run directory has it, else the
    record's ``return_points``."""
    logdir = record.get("logdir")
    episodes = Path(logdir) / "episodes.csv" if logdir else None
    if episodes is not None and episodes.is_file():
        try:
            table = pd.read_csv(episodes, usecols=["timesteps_total", "return"])
        except (OSError, ValueError):  # being written right now, or not an episodes table
            table = None
        if table is not None:
            points = [[int(steps), float(value)] for steps, value in zip(table["timesteps_total"], table["return"])
                      if math.isfinite(value)]
            return thinned(points), "episodes.csv"
    points = [[int(steps), float(value)] for steps, value in record.get("return_points") or [] if value is not None]
    return points, "record"


def thinned(points: list[list[float]], most: int = CURVE_POINTS) -> list[list[float]]:
    if len(points) <= most:
        return points
    return [points[index] for index in np.unique(np.linspace(0, len(points) - 1, most).round().astype(int))]
