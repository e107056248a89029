"""A run read back from its directory alone: :class:`RunResult` — any day, any target, any experiment.

Every run directory holds ``config.json`` and ``run.json`` (env, backend, seed, labels: see
:meth:`~rlworkbench.workbench.run_spec.RunSpec.description`), and once the run ended ``episodes.csv``,
``updates.csv`` and ``checkpoints/final``. A RunResult reads them; ``promote(result, ...)`` trains its config
again, :meth:`RunResult.load_agent` loads its newest checkpoint, and
:func:`~rlworkbench.workbench.experiments.compare.compare` compares many.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from rlworkbench.errors import CheckpointError, ConfigError
from rlworkbench.execution.metrics import EPISODE_COLUMNS, UPDATE_COLUMNS

CONFIG_FILE, RUN_FILE, AGENT_FILE = "config.json", "run.json", "agent.json"  # agent.json: a complete checkpoint


class RunResult:
    """The files of one run directory (see the module docstring)."""

    def __init__(self, path: str | Path):
        self.logdir = Path(path)
        try:
            self.config: dict[str, Any] = json.loads((self.logdir / CONFIG_FILE).read_text())
        except (OSError, ValueError) as error:
            raise ConfigError(f"not a run directory ({error})", argument="run", expected=f"a directory with "
                              f"{CONFIG_FILE}", got=str(path)) from None
        try:
            self.description: dict[str, Any] = json.loads((self.logdir / RUN_FILE).read_text())
        except (OSError, ValueError):  # a run from before run.json existed: what its name says
            self.description = {"name": self.logdir.name, "env": None, "backend": None, "seed": None, "labels": {}}

    @property
    def name(self) -> str:
        return str(self.description.get("name") or self.logdir.name)

    @property
    def env(self) -> str | None:
        return self.description.get("env")

    @property
    def backend(self) -> str | None:
        return self.description.get("backend")

    @property
    def seed(self) -> int | None:
        return self.description.get("seed")

    @property
    def labels(self) -> dict[str, Any]:
        """Experiment, trial, seed and params of an experiment's run; {} for others."""
        return dict(self.description.get("labels") or {})

    @property
    def metrics(self) -> pd.DataFrame:
        """The run's finished episodes (``episodes.csv``; empty while the run goes)."""
        return _table(self.logdir / "episodes.csv", EPISODE_COLUMNS)

    @property
    def updates(self) -> pd.DataFrame:
        return _table(self.logdir / "updates.csv", UPDATE_COLUMNS)

    @property
    def checkpoint(self) -> Path | None:
        """``checkpoints/final`` if there is one, else the newest complete checkpoint, else None."""
        folder = self.logdir / "checkpoints"
        if (folder / "final" / AGENT_FILE).is_file():
            return folder / "final"
        complete = [entry for entry in folder.iterdir() if (entry / AGENT_FILE).is_file()] if folder.is_dir() else []
        return max(complete, key=lambda entry: (entry / AGENT_FILE).stat().st_mtime, default=None)

    def load_agent(self, checkpoint: str | Path | None = None) -> Any:
        """The agent of ``checkpoint`` (default: the newest) with the spaces of the run's env."""
        from rlworkbench.agents import Agent
        from rlworkbench.agents.agent import env_spaces

        path = checkpoint if checkpoint is not None else self.checkpoint
        if path is None:
            raise CheckpointError("this run has no checkpoint", argument="checkpoint",
                                  expected=f"a checkpoint under {self.logdir / 'checkpoints'}", got=None)
        if self.env is None:
            raise CheckpointError("this run's directory does not say its env", argument="run",
                                  expected=f"{RUN_FILE} with an env", got=str(self.logdir))
        state_space, action_space = env_spaces(self.env)
        return Agent.from_checkpoint(path, state_space=state_space, action_space=action_space,
                                     backend=self.backend or "torch")

    def __repr__(self) -> str:
        return f"RunResult({self.name!r}, env={self.env!r}, seed={self.seed!r}, logdir='{self.logdir}')"


def _table(path: Path, columns: dict[str, str]) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except (OSError, pd.errors.EmptyDataError):
        return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in columns.items()})
