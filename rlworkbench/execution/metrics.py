"""Per-env episode bookkeeping and the metric tables of a run (pandas), safe to read from another thread.

The hot path is vectorised: one step adds the reward vector to the running returns and the valid-row mask to the
lengths; only when an episode ends does Python touch single rows. Finished episodes and updates are appended
under a lock, so :meth:`MetricsBook.snapshot` can copy consistent tables while a worker runs in another thread.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

EPISODE_COLUMNS = {
    "episode": "int64",          # index of the episode among all finished ones, in the order they finished
    "env_id": "int64",           # the sub-env it ran in
    "env_episode": "int64",      # index of the episode within its sub-env
    "return": "float64",
    "length": "int64",
    "timesteps_total": "int64",  # the worker's env steps (over all sub-envs) when it finished
    "wall_time": "float64",      # seconds since the worker started
    "terminated": "bool",
    "truncated": "bool",
}
UPDATE_COLUMNS = {"update": "int64", "timesteps_total": "int64", "wall_time": "float64"}


@dataclass(frozen=True)
class MetricsSnapshot:
    """A consistent copy of a run's metrics, for a notebook or a monitor thread."""

    timesteps: int
    num_episodes: int
    num_updates: int
    wall_time: float
    steps_per_second: float
    recent_mean_return: float
    running: bool
    episodes: pd.DataFrame = field(repr=False)
    updates: pd.DataFrame = field(repr=False)


class MetricsBook:
    """Running per-env returns/lengths/timesteps plus the tables of finished episodes and updates."""

    def __init__(self, num_envs: int, recent_window: int = 100):
        self.num_envs = num_envs
        self.returns = np.zeros(num_envs, dtype=np.float64)
        self.lengths = np.zeros(num_envs, dtype=np.int64)
        self.env_timesteps = np.zeros(num_envs, dtype=np.int64)
        self.env_episodes = np.zeros(num_envs, dtype=np.int64)
        self.recent_returns: deque[float] = deque(maxlen=recent_window)
        self._episode_rows: list[tuple] = []
        self._update_rows: list[dict[str, object]] = []
        self._lock = threading.Lock()
        self._episode_cache: pd.DataFrame | None = None
        self._update_cache: pd.DataFrame | None = None

    # ----- the hot path --------------------------------------------------------------------------------------
    def add_step(self, rewards: np.ndarray, valid: np.ndarray | None) -> int:
        """Adds one vector step; returns how many real env steps it held."""
        if valid is None:
            self.returns += rewards
            self.lengths += 1
            self.env_timesteps += 1
            return self.num_envs
        self.returns += np.where(valid, rewards, 0.0)
        self.lengths += valid
        self.env_timesteps += valid
        return int(np.count_nonzero(valid))

    def end_episodes(self, terminated: np.ndarray, truncated: np.ndarray, timesteps_total: int,
                     wall_time: float) -> list[tuple]:
        """Closes the episodes of the sub-envs that are done; returns their rows (in ``EPISODE_COLUMNS`` order)."""
        rows = []
        with self._lock:
            for env_id in np.flatnonzero(terminated | truncated):
                episode_return = float(self.returns[env_id])
                rows.append((len(self._episode_rows), int(env_id), int(self.env_episodes[env_id]), episode_return,
                             int(self.lengths[env_id]), timesteps_total, wall_time, bool(terminated[env_id]),
                             bool(truncated[env_id])))
                self._episode_rows.append(rows[-1])
                self.recent_returns.append(episode_return)
                self.env_episodes[env_id] += 1
                self.returns[env_id] = 0.0
                self.lengths[env_id] = 0
        return rows

    def add_episode(self, env_id: int, episode_return: float, length: int, timesteps_total: int, wall_time: float,
                    terminated: bool, truncated: bool) -> tuple:
        """Adds an episode that was accounted elsewhere (a sampler actor's worker); returns its row."""
        with self._lock:
            row = (len(self._episode_rows), int(env_id), int(self.env_episodes[env_id]), float(episode_return),
                   int(length), int(timesteps_total), float(wall_time), bool(terminated), bool(truncated))
            self._episode_rows.append(row)
            self.recent_returns.append(row[3])
            self.env_episodes[env_id] += 1
        return row

    def add_update(self, timesteps_total: int, wall_time: float, metrics: dict[str, object]) -> dict[str, object]:
        row = {"update": len(self._update_rows), "timesteps_total": timesteps_total, "wall_time": wall_time}
        row.update((str(key), _as_float(value)) for key, value in metrics.items())
        with self._lock:
            self._update_rows.append(row)
        return row

    def add_rows(self, episodes: Sequence[Sequence[Any]], updates: Sequence[Mapping[str, object]]) -> None:
        """Appends episodes (rows in ``EPISODE_COLUMNS`` order) and updates measured elsewhere — a cluster job's
        log — as they are."""
        with self._lock:
            for row in episodes:
                self._episode_rows.append(tuple(row))
                self.recent_returns.append(float(row[3]))
            self._update_rows.extend(dict(row) for row in updates)

    def restore(self, episodes: pd.DataFrame, updates: pd.DataFrame) -> None:
        """Starts this (fresh) book with the tables of an earlier part of the same run (a resumed run): later rows
        follow them, numbered on, and each sub-env's episode count goes on from theirs."""
        episode_rows = [tuple(row) for row in episodes[list(EPISODE_COLUMNS)].to_dict("split")["data"]]
        with self._lock:
            self._episode_rows = episode_rows
            self._update_rows = updates.to_dict("records")
            self.recent_returns.clear()
            self.recent_returns.extend(float(row[3]) for row in episode_rows[-self.recent_returns.maxlen:])
            self.env_episodes[:] = 0
            for row in episode_rows:
                if 0 <= row[1] < self.num_envs:
                    self.env_episodes[row[1]] = max(self.env_episodes[row[1]], row[2] + 1)
            self._episode_cache = self._update_cache = None

    def reset_running(self) -> None:
        """Forgets the unfinished episodes (after the env was reset)."""
        self.returns[:] = 0.0
        self.lengths[:] = 0

    # ----- reading -------------------------------------------------------------------------------------------
    @property
    def num_episodes(self) -> int:
        return len(self._episode_rows)

    @property
    def num_updates(self) -> int:
        return len(self._update_rows)

    @property
    def recent_mean_return(self) -> float:
        return float(np.mean(self.recent_returns)) if self.recent_returns else float("nan")

    def episodes(self) -> pd.DataFrame:
        """All finished episodes, one row each (columns and dtypes as in ``EPISODE_COLUMNS``)."""
        with self._lock:
            if self._episode_cache is None or len(self._episode_cache) != len(self._episode_rows):
                frame = pd.DataFrame.from_records(self._episode_rows, columns=list(EPISODE_COLUMNS))
                self._episode_cache = frame.astype(EPISODE_COLUMNS)
            return self._episode_cache.copy()

    def updates(self) -> pd.DataFrame:
        """All updates: ``update``, ``timesteps_total``, ``wall_time`` and one float column per metric."""
        with self._lock:
            if self._update_cache is None or len(self._update_cache) != len(self._update_rows):
                frame = pd.DataFrame.from_records(self._update_rows)
                if frame.empty:
                    frame = pd.DataFrame(columns=list(UPDATE_COLUMNS))
                self._update_cache = frame.astype(UPDATE_COLUMNS)
            return self._update_cache.copy()


def _as_float(value: object) -> float:
    """A metric as a Python float: scalars as they are (numpy, 0-d arrays, framework scalars with ``item()``),
    arrays by their mean (an agent that reports per-sample TD errors gets their mean in the table)."""
    if hasattr(value, "detach"):  # a torch tensor: off the graph and onto the host first
        value = value.detach().cpu()
    if hasattr(value, "numpy"):
        value = value.numpy()
    array = np.asarray(value, dtype=np.float64)
    return float(array) if array.ndim == 0 else float(array.mean())
