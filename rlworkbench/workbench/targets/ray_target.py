"""The ``"ray"`` target: an execution plan on Ray (:mod:`rlworkbench.execution.ray.plans`: the agent type's default
plan, or the one ``plan=`` or the config's ``execution/ray/plan`` names) driven from a daemon thread of this process,
behind the same :class:`~rlworkbench.workbench.run.Run` as a local run.

``promote(prototype, to="ray", workers=2, envs_per_worker=4, address=None, devices=None, **ray_settings)``:
everything that can fail fast is checked in the caller's thread — the agent type has a distributed algorithm
(else a ConfigError listing the types that do), the settings (the config's ``execution/ray`` section overridden by
keyword arguments; see :mod:`rlworkbench.execution.ray.settings`), the env's spaces, the run directory. The thread
then starts or joins Ray (``ray.init`` never blocks the kernel: the run is ``starting`` meanwhile), builds the
learner (on replica towers with ``devices``), starts the actors and trains. The learner is the prototype agent
itself, trained in place, or an agent made from the config.

The run directory is laid out as for a local run (``config.json``, TensorBoard events, ``episodes.csv``,
``updates.csv`` with the run's health columns, ``checkpoints/`` — every 5 minutes unless ``checkpoint_every`` says
otherwise, so a run whose driver dies can be resumed —, and ``dataflow.json``: the plan's dataflow, rewritten
about once a second — see :meth:`RayExecution.dataflow`). A learner made from a config is shaped by its plan's
``learner_config`` (Ape-X's gets a memory of one batch: replay lives in the shards and is not saved).
:meth:`RayExecution.workers` and
:meth:`RayExecution.shards` are live tables the Run shows. A run that ends — finished, stopped or failed — kills
its actors, so their CPUs are free for the next run; the Ray session stays up for it. ``num_envs`` and
``vector_mode`` do not apply: samplers hold ``envs_per_worker`` envs each.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from rlworkbench.core.backend import get_backend
from rlworkbench.errors import ConfigError
from rlworkbench.execution.metrics import MetricsBook, MetricsSnapshot
from rlworkbench.execution.progress import read_progress
from rlworkbench.execution.tensorboard import EventWriter
from rlworkbench.execution.train import Checkpointer, write_tables
from rlworkbench.workbench.run_spec import SETTINGS, RunSpec
from rlworkbench.workbench.targets.base import RUNNING
from rlworkbench.workbench.targets.local import check_spaces
from rlworkbench.workbench.targets.threaded import ThreadedExecution, refuse_agent_in_training

if TYPE_CHECKING:
    from rlworkbench.execution.dataflow import DataflowSnapshot
    from rlworkbench.execution.ray.plan_run import PlanRun
    from rlworkbench.execution.ray.plans import Plan

DATAFLOW_EVERY = 1.0  #: seconds between the dataflow.json files a running plan writes
CHECKPOINT_EVERY = "5 min"  #: a Ray run's checkpoint schedule unless ``checkpoint_every`` says otherwise


class RayExecution(ThreadedExecution):
    """Trains ``spec`` with the distributed algorithm of its agent type; see the module docstring."""

    def __init__(self, spec: RunSpec):
        from rlworkbench.execution.ray.plans import plan_for
        from rlworkbench.execution.ray.settings import DEFAULTS, ray_settings

        options = dict(spec.options)
        requested_devices = options.pop("devices", None)
        overrides = {key: options.pop(key) for key in list(options) if key in DEFAULTS}
        if options:
            raise ConfigError("unknown settings for the ray target", argument=", ".join(sorted(options)),
                              expected=sorted([*SETTINGS, *DEFAULTS, "devices"]), got=sorted(options))
        refuse_agent_in_training(spec.agent)
        given = ray_settings(spec.config, **overrides)  # an agent's spec holds its config
        self.plan = plan_for(spec.config.get("type"), given["plan"])
        agent = _learner(spec, self.plan)
        self.settings = ray_settings(agent.config, **overrides)
        self.tower_devices = _tower_devices(requested_devices, spec.backend)
        self.spec, self.agent = spec, agent
        run_dir = spec.new_run_dir()
        every = spec.checkpoint_every if spec.checkpoint_every is not None else CHECKPOINT_EVERY
        super().__init__(run_dir, spec.timesteps, Checkpointer(_SyncedLearner(self), run_dir / "checkpoints", every,
                                                               progress=self._progress_source))
        self.algorithm: PlanRun | None = None
        self._dataflow_written = 0.0
        self._start("ray")

    # ----- the Execution face ----------------------------------------------------------------------------------
    @property
    def devices(self) -> list[str] | None:
        return list(self.tower_devices) if self.tower_devices else None

    def snapshot(self) -> MetricsSnapshot:
        algorithm = self.algorithm
        if algorithm is None:
            book = MetricsBook(1)
            return MetricsSnapshot(0, 0, 0, 0.0, float("nan"), float("nan"), False, book.episodes(), book.updates())
        return algorithm.snapshot(running=self._state == RUNNING)

    def workers(self) -> pd.DataFrame | None:
        return None if self.algorithm is None else self.algorithm.workers()

    def shards(self) -> pd.DataFrame | None:
        return None if self.algorithm is None else self.algorithm.shards()

    def learners(self) -> pd.DataFrame | None:
        return None if self.algorithm is None else self.algorithm.learners()

    def dataflow_snapshot(self) -> DataflowSnapshot | None:
        """The plan's dataflow now (None before its actors started)."""
        return None if self.algorithm is None else self.algorithm.dataflow()

    def dataflow(self, nodes: bool = False) -> pd.DataFrame | None:
        """One row per edge of the plan's dataflow (``nodes=True``: per actor/operator); None before it started."""
        snapshot = self.dataflow_snapshot()
        return None if snapshot is None else snapshot.nodes_frame() if nodes else snapshot.edges_frame()

    def activity(self) -> str | None:
        """Where the run's thread is, and the requests under way to its actors."""
        where, algorithm = super().activity(), self.algorithm
        if algorithm is None:
            return where
        return f"{where + '; ' if where else ''}{algorithm.under_way()}"

    def stop(self) -> None:
        self._stop_asked.set()

    def _progress_source(self) -> Any:
        return self.algorithm

    # ----- the thread ----------------------------------------------------------------------------------------
    def _main(self) -> None:
        from rlworkbench.execution.ray import ActorFailed, PlanRun

        log = None
        try:
            log = EventWriter(self.logdir)
            if self.spec.threads is not None:
                get_backend(self.spec.backend).limit_threads(self.spec.threads)
            self.set_phase("building the learner")
            self._build_learner()
            if not self._stop_asked.is_set():
                self._start_ray()
                self.set_phase(f"starting {self.settings['workers']} samplers")
                self.algorithm = PlanRun(self.plan, self.agent, self.spec.env, self.settings, seed=self.spec.seed,
                                         log=log)
                if self.spec.context.resume_from is not None:
                    self.algorithm.restore_progress(read_progress(self.spec.context.resume_from))
                    self.algorithm.restore_state(self.spec.context.resume_from)  # Ape-X's saved replay, if any
                    self.checkpointer.resume_at(self.algorithm.timesteps, int(self.agent.updates))
                self._state = RUNNING
                self.algorithm.train(self.spec.timesteps, stop=self._stop_asked, callback=self._after_step)
            self.checkpointer.save("final")
        except ActorFailed as failure:  # the error that killed the actor, as it was raised there
            self._error = failure.cause if failure.cause is not None else failure
            if failure.cause is not None:
                failure.cause.add_note(str(failure))
        except BaseException as error:
            self._error = error
        finally:
            if self.algorithm is not None:
                with contextlib.suppress(Exception):
                    write_tables(self.algorithm, self.logdir)
                with contextlib.suppress(Exception):
                    self.algorithm.dataflow().write(self.logdir)
                with contextlib.suppress(Exception):
                    self.algorithm.close()  # the actors' CPUs are free for the next run
            if log is not None:
                with contextlib.suppress(Exception):
                    log.close()
            self._finish(0 if self.algorithm is None else self.algorithm.timesteps)

    def _start_ray(self) -> None:
        """Starts or joins Ray (the algorithm would, unannounced): the live view says so meanwhile."""
        import sys

        if "ray" not in sys.modules or not sys.modules["ray"].is_initialized():
            self.set_phase("starting Ray")
            from rlworkbench.execution.ray.session import ensure_ray

            ensure_ray(self.settings["address"], self.settings["num_cpus"])

    def _after_step(self, algorithm: PlanRun) -> None:
        """After every step of the algorithm: the checkpoint schedule, then a paced run's allowance (and the start
        phase ends with the first samples)."""
        if algorithm.timesteps > 0 and self._phase is not None:
            self.set_phase(None)
        now = time.monotonic()
        if now - self._dataflow_written >= DATAFLOW_EVERY:  # for the runs panel, which reads the run directory
            algorithm.dataflow().write(self.logdir)
            self._dataflow_written = now
        self.checkpointer(algorithm)
        self.pace(algorithm.timesteps)

    def _build_learner(self) -> None:
        agent = self.agent
        if agent.executor is None:
            agent.build(devices=self.tower_devices)
        elif self.tower_devices and agent.devices != self.tower_devices:
            weights = agent.get_weights()
            agent.build(devices=self.tower_devices)
            agent.set_weights(weights)
        if self.spec.context.resume_from is not None:
            agent.load(self.spec.context.resume_from)


class _SyncedLearner:
    """What the run's checkpoints save: the agent, after it took a learner group's current variables, and what the
    plan's actors hold (:meth:`PlanRun.save_state`: Ape-X's replay with ``save_replay``)."""

    def __init__(self, execution: RayExecution):
        self.execution = execution

    def save(self, directory: str | Path) -> Path:
        algorithm = self.execution.algorithm
        if algorithm is not None:
            algorithm.sync_agent()
        saved = Path(self.execution.agent.save(directory))
        if algorithm is not None:
            algorithm.save_state(saved)
        return saved

    def load(self, directory: str | Path) -> Any:
        return self.execution.agent.load(directory)


def _learner(spec: RunSpec, plan: Plan) -> Any:
    """The prototype agent (its spaces checked against one copy of the env), or one made from the config as the
    plan shapes it (``plan.learner_config``)."""
    from rlworkbench.agents import Agent
    from rlworkbench.agents.config import load_config
    from rlworkbench.execution.envs import make_vector_env

    env = make_vector_env(spec.env, 1)
    try:
        if spec.agent is None:
            config = load_config(spec.config)
            if plan.learner_config is not None:
                config = plan.learner_config(Agent.from_env(env, config, backend=spec.backend).config)
            return Agent.from_env(env, config, backend=spec.backend, seed=spec.seed)
        check_spaces(spec.agent, env)
        return spec.agent
    finally:
        env.close()


def _tower_devices(requested: Any, backend: str) -> list[str] | None:
    if requested is None:
        return None
    from rlworkbench.components.strategies import resolve_tower_devices

    return resolve_tower_devices(requested, get_backend(backend))
