"""How far a run got, saved beside an agent checkpoint so that the run can go on from there: :class:`Progress`.

An agent checkpoint holds the weights and the agent's counters; a run also has its metric tables, its env-step
count and its clock. :func:`save_progress` writes them into the checkpoint's directory (``progress.json``,
``episodes.csv``, ``updates.csv``); :func:`read_progress` reads them back, and a worker or a distributed algorithm
given the result (``restore_progress``) continues the same tables, step axis and wall clock — metrics appended, no
duplicates, no gap in ``timesteps_total``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import pandas as pd

from rlworkbench.errors import CheckpointError
from rlworkbench.execution.metrics import EPISODE_COLUMNS, UPDATE_COLUMNS

PROGRESS_FILE = "progress.json"


class HasProgress(Protocol):
    """What a run that keeps progress offers: a worker or a distributed algorithm."""

    timesteps: int

    @property
    def elapsed(self) -> float: ...

    @property
    def episodes(self) -> pd.DataFrame: ...

    @property
    def updates(self) -> pd.DataFrame: ...


@dataclass(frozen=True)
class Progress:
    """A run's env steps, wall clock and metric tables at one moment."""

    timesteps: int
    wall_time: float
    episodes: pd.DataFrame = field(repr=False)
    updates: pd.DataFrame = field(repr=False)

    @classmethod
    def of(cls, run: HasProgress) -> Progress:
        """The progress of a worker or algorithm now (call it while the run is held still)."""
        return cls(int(run.timesteps), float(run.elapsed), run.episodes, run.updates)


def save_progress(run: HasProgress | Progress, directory: str | Path) -> Path:
    """Writes ``run``'s progress into ``directory`` (made if missing); returns the directory."""
    progress = run if isinstance(run, Progress) else Progress.of(run)
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    progress.episodes.to_csv(folder / "episodes.csv", index=False)
    progress.updates.to_csv(folder / "updates.csv", index=False)
    (folder / PROGRESS_FILE).write_text(json.dumps({"timesteps": progress.timesteps,
                                                    "wall_time": progress.wall_time}))
    return folder


def has_progress(directory: str | Path) -> bool:
    return (Path(directory) / PROGRESS_FILE).is_file()


def read_progress(directory: str | Path) -> Progress:
    """The progress saved in ``directory``; a CheckpointError naming the file if it is missing or broken. Rows
    after the saved step count are left out (tables written after the counters)."""
    folder = Path(directory)
    try:
        counters = json.loads((folder / PROGRESS_FILE).read_text())
        timesteps, wall_time = int(counters["timesteps"]), float(counters["wall_time"])
        episodes = _table(folder / "episodes.csv", EPISODE_COLUMNS)
        updates = _table(folder / "updates.csv", UPDATE_COLUMNS)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CheckpointError(f"cannot read the run's progress: {error}", argument="checkpoint",
                              expected=f"{PROGRESS_FILE}, episodes.csv and updates.csv", got=str(folder)) from None
    if timesteps < 0 or not math.isfinite(wall_time):
        raise CheckpointError("bad progress counters", argument="checkpoint", key_path=PROGRESS_FILE,
                              expected="timesteps >= 0 and a finite wall time", got=counters)
    return Progress(timesteps, wall_time, episodes[episodes["timesteps_total"] <= timesteps].reset_index(drop=True),
                    updates[updates["timesteps_total"] <= timesteps].reset_index(drop=True))


def _table(path: Path, columns: dict[str, str]) -> pd.DataFrame:
    frame = pd.read_csv(path)
    if frame.empty:
        frame = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in columns.items()})
    missing = sorted(set(columns) - set(frame.columns))
    if missing:
        raise ValueError(f"{path.name} lacks the columns {missing}")
    return frame.astype(columns)

