"""What ``rlworkbench train`` does: a vector env and an agent from a config, a :class:`Worker` run with
checkpoints, TensorBoard scalars and CSV tables under one run directory, and a summary.

A run directory ``<logdir>/<config>-<env>-<backend>-<YYYYmmdd-HHMMSS>[-n]`` holds::

    config.json                 the agent config as used
    events.out.tfevents.*       TensorBoard scalars (``tensorboard --logdir <logdir>`` shows every run)
    episodes.csv, updates.csv   the worker's tables
    checkpoints/step_<T>/       every ``checkpoint_every`` (``agent.save(dir)``; with the run's progress from promote)
    checkpoints/final/          at the end

The steps are public pieces (:func:`start_run_dir`, :class:`Checkpointer`, :func:`write_tables`,
:func:`finish_run`) so that other ways of running a worker (the notebook's ``promote()``) lay out the same
run directory.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rlworkbench.agents import Agent
from rlworkbench.agents.config import config_name, load_config
from rlworkbench.agents.protocols import ActorLearner, Checkpointing
from rlworkbench.core.backend import get_backend
from rlworkbench.errors import ConfigError
from rlworkbench.execution.checkpoint_schedule import CheckpointSchedule
from rlworkbench.execution.envs import make_vector_env
from rlworkbench.execution.progress import HasProgress
from rlworkbench.execution.resume_points import save_resume_point
from rlworkbench.execution.worker import Worker

AgentFactory = Callable[..., Any]  # (env, config, *, backend, [seed]) -> agent


@dataclass
class TrainResult:
    """Where a training run went and what it did."""

    run_dir: Path
    checkpoint: Path
    summary: dict[str, object]
    episodes: pd.DataFrame = field(repr=False)
    updates: pd.DataFrame = field(repr=False)

    def summary_table(self) -> str:
        return pd.DataFrame([self.summary]).to_string(index=False)


def agent_from_env(env: Any, config: dict[str, object], *, backend: str, seed: int | None = None) -> Any:
    """``Agent.from_env(env, config, backend=…, seed=…).build()``."""
    return Agent.from_env(env, config, backend=backend, seed=seed).build()


def train(config: str | Path | dict[str, Any], env: str = "CartPole-v1", *, backend: str = "torch",
          timesteps: int = 10_000, logdir: str | Path = "runs", num_envs: int = 1, seed: int | None = None,
          checkpoint_every: int | None = None, vector_mode: str = "sync", progress: bool = True,
          agent_factory: AgentFactory | None = None, threads: int | None = 1) -> TrainResult:
    """Trains an agent built from ``config`` on ``env`` for ``timesteps`` env steps; see the module docstring.

    ``threads`` caps the backend's intra-op threads (``None`` leaves the framework's default): on a few cores
    shared with env stepping, tiny matmuls on several threads wait on each other (40x slower seen here).

    ``agent_factory(env, config, backend=…, seed=…)`` replaces :func:`agent_from_env` (tests, custom agents).
    """
    agent_config = load_config(config)
    name = config_name(config, agent_config)
    if threads is not None:
        get_backend(backend).limit_threads(threads)
    vector_env = make_vector_env(env, num_envs, vector_mode, seed)
    try:
        agent = (agent_factory or agent_from_env)(vector_env, agent_config, backend=backend, seed=seed)
        run_dir = start_run_dir(logdir, f"{name}-{env}-{backend}", agent_config)  # once config, env, agent are good
        checkpointer = Checkpointer(agent, run_dir / "checkpoints", checkpoint_every)
        with Worker(agent, vector_env, seed=seed, logdir=run_dir, progress=progress,
                    callback=checkpointer if checkpoint_every else None,
                    callback_every=checkpoint_every or None) as worker:
            worker.run(timesteps=timesteps)
            return finish_run(worker, agent, run_dir)
    finally:
        vector_env.close()


# ----- the pieces of a run, shared with the notebook's promote() -------------------------------------------------
def start_run_dir(logdir: str | Path, stem: str, config: dict[str, object], name: str | None = None) -> Path:
    """A new run directory ``<logdir>/<stem>-<YYYYmmdd-HHMMSS>[-n]`` (or exactly ``<logdir>/<name>``, which must
    not exist yet) holding ``config.json``; a ConfigError naming ``logdir`` if it cannot be made there."""
    try:
        return _start_run_dir(Path(logdir), stem, config, name)
    except OSError as error:
        raise ConfigError(f"cannot make the run directory: {error.strerror or error}", argument="logdir",
                          expected="a writable directory", got=str(logdir)) from None


def _start_run_dir(logdir: Path, stem: str, config: dict[str, object], name: str | None) -> Path:
    run_dir = _new_run_dir(Path(logdir), stem) if name is None else _named_run_dir(Path(logdir), name)
    (run_dir / "config.json").write_text(json.dumps(config, indent=2))
    return run_dir


class Checkpointer:
    """A worker callback that saves ``agent`` to ``<checkpoints>/step_<T>`` on a schedule (``every``: env steps as
    an int, or ``"500 updates"``, ``"60 s"``: see :mod:`~rlworkbench.execution.checkpoint_schedule`; None: never).
    With ``progress`` (the worker's or algorithm's tables and counters, read when a checkpoint is written) each
    checkpoint is a resume point, written atomically (:mod:`~rlworkbench.execution.resume_points`). :attr:`last`
    is the newest checkpoint written."""

    def __init__(self, agent: Checkpointing, checkpoints: Path, every: object,
                 progress: Callable[[], HasProgress | None] | None = None):
        self.agent, self.checkpoints = agent, Path(checkpoints)
        self.schedule = CheckpointSchedule.parse(every)
        self.progress = progress
        self.last: Path | None = None

    def __call__(self, worker: Worker | Any) -> None:
        if self.schedule is not None and self.schedule.due(worker.timesteps, _updates(worker)):
            self.save(f"step_{worker.timesteps}")

    def save(self, name: str) -> Path:
        source = None if self.progress is None else self.progress()
        self.last = save_resume_point(self.agent, self.checkpoints / name, source)
        return self.last

    def resume_at(self, timesteps: int, updates: int = 0) -> None:
        """A run resumed at ``timesteps``/``updates``: the schedule goes on as if it had not stopped."""
        if self.schedule is not None:
            self.schedule.resume_at(timesteps, updates)


def _updates(worker: Any) -> int:
    agent = getattr(worker, "agent", None)
    return int(getattr(agent, "updates", 0) or 0)


def save_checkpoint(agent: Checkpointing, directory: Path) -> Path:
    """``agent.save(directory)`` (the directory made first); returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    agent.save(str(directory))
    return directory


def write_tables(worker: Worker, run_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Writes ``episodes.csv`` and ``updates.csv``; returns the two tables."""
    episodes, updates = worker.episodes, worker.updates
    episodes.to_csv(run_dir / "episodes.csv", index=False)
    updates.to_csv(run_dir / "updates.csv", index=False)
    return episodes, updates


def finish_run(worker: Worker, agent: ActorLearner, run_dir: Path) -> TrainResult:
    """The end of a run: the ``checkpoints/final`` checkpoint, the CSV tables and the summary."""
    final = save_checkpoint(agent, run_dir / "checkpoints" / "final")
    episodes, updates = write_tables(worker, run_dir)
    return TrainResult(run_dir, final, worker.summary(), episodes, updates)


def _named_run_dir(logdir: Path, name: str) -> Path:
    if safe_name(name) != name or name in (".", ".."):
        raise ConfigError("bad run directory name", argument="run_name",
                          expected="letters, digits, '-', '_' and '.'", got=repr(name))
    try:
        (logdir / name).mkdir(parents=True)
    except FileExistsError:
        raise ConfigError("this run directory exists already", argument="run_name", expected="a new name",
                          got=str(logdir / name)) from None
    return logdir / name


def safe_name(text: str) -> str:
    """``text`` with every character but letters, digits, ``-``, ``_`` and ``.`` replaced by ``_``."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def _new_run_dir(logdir: Path, stem: str) -> Path:
    stem = safe_name(stem)
    base = logdir / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    candidate, n = base, 1
    while True:
        try:
            candidate.mkdir(parents=True, exist_ok=False)
            return candidate
        except FileExistsError:
            candidate, n = base.with_name(f"{base.name}-{n}"), n + 1
