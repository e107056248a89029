"""A local run directory for a cluster job whose own directory this machine cannot see.

It holds what a notebook needs from the run without the cluster's storage: ``config.json``, ``cluster.json``
(the address, the job's id and where its run directory and checkpoints are on the cluster), TensorBoard scalars
written as the followed rows arrive (the tags a local run writes: ``episode/return``, ``episode/length``,
``update/<metric>``), and ``episodes.csv`` / ``updates.csv`` when the job ends.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from rlworkbench.execution.tensorboard import EventWriter

CLUSTER_FILE = "cluster.json"


class MetricsMirror:
    """Mirrors a job's followed metrics into ``run_dir`` (made here; it must not exist)."""

    def __init__(self, run_dir: Path, config: Mapping[str, object], about: Mapping[str, object]):
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True)
        (self.run_dir / "config.json").write_text(json.dumps(dict(config), indent=2))
        self.about = dict(about)
        self._write_about()
        self.log = EventWriter(self.run_dir)

    def note(self, **about: object) -> None:
        """Updates ``cluster.json`` (the newest checkpoint on the cluster, the final state)."""
        self.about.update(about)
        self._write_about()

    def add(self, episodes: Sequence[Sequence[Any]], updates: Sequence[Mapping[str, object]]) -> None:
        for row in episodes:
            self.log.scalar("episode/return", float(row[3]), int(row[5]))
            self.log.scalar("episode/length", float(row[4]), int(row[5]))
        for row in updates:
            metrics = {key: value for key, value in row.items() if key not in ("update", "timesteps_total",
                                                                              "wall_time")}
            self.log.scalars("update", metrics, int(row["timesteps_total"]))
        self.log.maybe_flush()

    def finish(self, episodes: pd.DataFrame, updates: pd.DataFrame) -> None:
        """Writes the CSV tables and closes the event file."""
        episodes.to_csv(self.run_dir / "episodes.csv", index=False)
        updates.to_csv(self.run_dir / "updates.csv", index=False)
        self.log.close()

    def _write_about(self) -> None:
        (self.run_dir / CLUSTER_FILE).write_text(json.dumps(self.about, indent=2))
