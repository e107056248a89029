"""An experiment's record in the runs directory, for JupyterLab's runs panel: :class:`ExperimentHeartbeat`.

Beside the records of its trials' runs (each run publishes its own, labelled with the experiment), the notebook's
:class:`~.experiment.Experiment` publishes one record of ``kind: "experiment"`` every ~2 s while it goes and once
more at its end: state, trial state counts, the best trial and its value, and a row per trial — so the panel shows
the experiment as a group even where its trials' runs publish nothing here (a sweep on a cluster). A ``<id>.stop``
file beside it (the panel's Stop) stops the whole experiment.
"""

from __future__ import annotations

import hashlib
import math
import os
import socket
import time
from pathlib import Path
from typing import Any

from rlworkbench.workbench.run_records import HEARTBEAT_SECONDS, Publisher

EXPERIMENT_KIND = "experiment"


def experiment_id(directory: str | Path) -> str:
    """An experiment's record id: hex, like a run's (the panel's routes take hex ids)."""
    return hashlib.sha1(str(Path(directory).resolve()).encode()).hexdigest()[:12]


def experiment_record(experiment: Any, record_id: str, started: float) -> dict[str, object]:
    trials = experiment.trials
    metric = experiment.plan.metric
    best = experiment.best_trial
    best_value = None
    if best is not None:
        value = trials.set_index("trial").loc[best, metric]
        best_value = None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)
    rows = [{"trial": row["trial"], "params": {path: _plain(row[path]) for path in experiment.plan.paths},
             "state": row["state"], "timesteps": int(row["timesteps"] or 0), "value": _plain(row[metric])}
            for _, row in trials.iterrows()]
    source = experiment.source
    return {"kind": EXPERIMENT_KIND, "id": record_id, "name": experiment.name, "state": experiment.state,
            "error": experiment.error, "metric": metric, "counts": experiment.book.state_counts(),
            "best_trial": best, "best": best_value, "trials": rows, "seeds": experiment.plan.seeds,
            "budget": experiment.plan.budget, "scheduler": experiment.plan.scheduler,
            "directory": str(experiment.directory), "address": getattr(source, "address", None),
            "submission_id": getattr(source, "submission_id", None), "host": socket.gethostname(),
            "pid": os.getpid(), "started": started, "updated": time.time()}


def _plain(value: object) -> Any:
    if value is None:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value.item() if hasattr(value, "item") else value


class ExperimentHeartbeat(Publisher):
    """Publishes ``experiment``'s record (:func:`experiment_record`) until it is done; a stop request stops it."""

    def __init__(self, experiment: Any, directory: Path | None = None, interval: float = HEARTBEAT_SECONDS):
        super().__init__(experiment_id(experiment.plan.directory), directory, interval)
        self.experiment = experiment

    def record(self) -> dict[str, object]:
        return experiment_record(self.experiment, self.record_id, self.started)

    def stop_requested(self) -> None:
        self.experiment.stop(wait=False)

    def subject_done(self) -> bool:
        return self.experiment.done
