"""The narrow face a target shows a :class:`~rlworkbench.workbench.run.Run`: :class:`Execution`.

A target turns a :class:`~rlworkbench.workbench.run_spec.RunSpec` into an :class:`Execution` that trains
without blocking its caller. A Run talks to it only through this interface — a metrics snapshot, stop, join,
state, error, the log directory and the newest checkpoint — so local threads, multi-GPU processes and Ray
actors all wear the same Run.
"""

from __future__ import annotations

import abc
from pathlib import Path
from typing import Literal

import pandas as pd

from rlworkbench.execution.metrics import MetricsSnapshot

RunState = Literal["starting", "running", "finished", "stopped", "failed"]  #: the schema's RunState, less "orphaned"
STARTING: RunState = "starting"
RUNNING: RunState = "running"
FINISHED: RunState = "finished"
STOPPED: RunState = "stopped"
FAILED: RunState = "failed"
DONE_STATES: frozenset[RunState] = frozenset({FINISHED, STOPPED, FAILED})
BuiltinTarget = Literal["local", "multi_gpu", "ray"]  #: the targets rlworkbench registers (a notebook may add more)


class Execution(abc.ABC):
    """A training run under way somewhere.

    ``state`` goes ``starting`` (building, connecting) → ``running`` → one of ``finished`` (all timesteps done),
    ``stopped`` (:meth:`stop` ended it early) or ``failed`` (:attr:`error` says why). A run that ends in any
    of these leaves its newest checkpoint readable; finished and stopped runs save a final one.
    """

    remote = False  #: whether the run goes on without this process (a cluster job): it can be detached from

    def __init__(self, logdir: Path, total_timesteps: int):
        self.logdir = Path(logdir)  #: the run directory: config, TensorBoard events, CSV tables, checkpoints
        self.total_timesteps = int(total_timesteps)
        self._state: RunState = STARTING
        self._error: BaseException | None = None

    @property
    def state(self) -> RunState:
        """One of ``starting``, ``running``, ``finished``, ``stopped``, ``failed``."""
        return self._state

    @property
    def phase(self) -> str | None:
        """What a run that has not taken its first steps is busy with, and for how long (``starting Ray … 8 s``);
        None once it trains (or where the target does not say)."""
        return None

    @property
    def devices(self) -> list[str] | None:
        """The devices the update runs on, where the target places it on several (else None)."""
        return None

    def workers(self) -> pd.DataFrame | None:
        """One row per remote worker (targets that have them): env steps/s, episodes, restarts, staleness …"""
        return None

    def shards(self) -> pd.DataFrame | None:
        """One row per replay shard (targets that have them): records, capacity, fill, restarts, lost."""
        return None

    @property
    def cluster_checkpoint(self) -> str | None:
        """The newest checkpoint's path where this machine cannot read it (a cluster's own storage), else None."""
        return None

    def activity(self) -> str | None:
        """What the run is busy with now, in a line a stuck run's ``TimeoutError`` quotes (None: nothing known)."""
        return None

    def logs(self) -> list[str]:
        """The run's own log lines, where it runs elsewhere (a cluster job); in-process runs print here: []."""
        return []

    @property
    def done(self) -> bool:
        return self.state in DONE_STATES

    @property
    def error(self) -> BaseException | None:
        """What ended a failed run (raised as it was, type and all, by ``Run.wait``)."""
        return self._error

    @property
    @abc.abstractmethod
    def checkpoint(self) -> Path | None:
        """The newest complete checkpoint directory (``None`` before the first)."""

    @abc.abstractmethod
    def snapshot(self) -> MetricsSnapshot:
        """A consistent copy of the metrics so far (any thread, any time)."""

    @abc.abstractmethod
    def stop(self) -> None:
        """Asks the run to end after its current step, save a final checkpoint and its tables; returns at once."""

    @abc.abstractmethod
    def join(self, timeout: float | None = None) -> bool:
        """Waits until the run is done (at most ``timeout`` seconds); whether it is."""

    def close(self) -> None:  # noqa: B027 (optional hook: a remote target frees its cluster resources here)
        """Frees what the execution holds once it is done."""
