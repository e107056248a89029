"""The run of an execution plan on Ray: the learner here, the plan's operators over actors there, one metrics book.

A :class:`PlanRun` holds what every plan shares: the learner (the agent itself, in this process — on replica towers
when it was built with ``devices`` —, or with ``execution/ray/learners`` > 1 a data-parallel
:class:`~.learner_group.LearnerGroup` of ranks the agent here mirrors: ``run.learner``), the current weights as
one object in Ray's store with their version, a
:class:`~rlworkbench.execution.metrics.MetricsBook` of every episode the samplers finished and every update the
learner made (the tables a local run has, so a :class:`~rlworkbench.workbench.run.Run` shows both alike), a row per
sampler (env steps/s, episodes, restarts, how many updates its weights are behind the learner, its last error), a
:class:`~.flow_meter.FlowMeter` of what flows where, and TensorBoard scalars when given an ``EventWriter``.

What one :meth:`step` does is the plan's (:mod:`.plans`): ``plan.build(run)`` creates the plan's operators
(:mod:`.ops`) — which start their actors and register with the run — and returns the step function.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rlworkbench.errors import ConfigError
from rlworkbench.execution.dataflow import DataflowSnapshot
from rlworkbench.execution.metrics import MetricsBook, MetricsSnapshot
from rlworkbench.execution.progress import Progress
from rlworkbench.execution.ray.flow_meter import FlowMeter
from rlworkbench.execution.ray.flow_types import SampleReport
from rlworkbench.execution.ray.learner_group import LearnerGroup, LocalLearner, learner_group, wants_group
from rlworkbench.execution.ray.session import ensure_ray
from rlworkbench.execution.ray.settings import ray_settings

if TYPE_CHECKING:
    from rlworkbench.agents import Agent
    from rlworkbench.execution.ray.ops.replay import Replay
    from rlworkbench.execution.ray.ops.rollouts import Rollouts
    from rlworkbench.execution.ray.plans.registry import Plan
    from rlworkbench.execution.tensorboard import EventWriter

EnvSource = Any
"""A Gymnasium id or a picklable callable making an env (what samplers are given)."""

LEARNER = "learner"  #: the learner's node in the dataflow


def sampler_node(index: int) -> str:
    return f"sampler {index}"


def learner_rank_node(rank: int) -> str:
    return f"learner rank {rank}"


def check_cpus(settings: Mapping[str, Any], resources: Mapping[str, float]) -> None:
    """A local session must hold the CPUs the samplers and learner ranks reserve (else they would wait for ever,
    silently): a ConfigError naming the setting."""
    if settings["address"] is not None:
        return
    have = resources.get("CPU", 0)
    samplers = (settings["workers"] + settings["spare_samplers"]) * settings["sampler_cpus"]
    learners = settings["learners"] * settings["learner_cpus"] if wants_group(settings) else 0.0
    if samplers + learners <= have:
        return
    if learners:
        raise ConfigError("the samplers and learner ranks ask for more CPUs than this Ray session has",
                          key_path="execution/ray/learner_cpus", expected=f"(workers + spare_samplers) x "
                          f"sampler_cpus + learners x learner_cpus <= {have:g}", got=f"{samplers:g} + "
                          f"{settings['learners']} x {settings['learner_cpus']:g}")
    raise ConfigError("the samplers ask for more CPUs than this Ray session has", key_path="execution/ray/"
                      "sampler_cpus", expected=f"(workers + spare_samplers) x sampler_cpus <= {have:g} (sampler_cpus=0 "
                      "lets them share)", got=f"({settings['workers']} + {settings['spare_samplers']}) x "
                      f"{settings['sampler_cpus']:g} = {samplers:g}")

#: columns of the updates table that count since the run began: a resumed run goes on from the earlier part's
RUN_COUNTS = ("sampler_restarts", "spares_adopted", "spares_lost", "shard_restarts", "replay_lost",
              "priorities_dropped", "learner_restarts", "learner_updates_lost")
WORKER_COLUMNS = ("worker", "env_steps", "env_steps_per_s", "episodes", "recent_return", "restarts", "weights_behind",
                  "last_error")


@dataclass
class WorkerStats:
    """What the learner knows of one sampler."""

    timesteps: int = 0
    episodes: int = 0
    version: int = 0          #: the learner's update count when the weights it acts with were broadcast
    behind: int = 0           #: learner updates since then, at its last report
    steps_since_sync: int = 0
    last_error: str = ""
    returns: deque[float] = field(default_factory=lambda: deque(maxlen=20))  #: of its last episodes

    @property
    def recent_return(self) -> float:
        return float(np.mean(self.returns)) if self.returns else float("nan")


class PlanRun:
    """``plan`` run with a learner ``agent`` and actors on ``env`` (a Gymnasium id or a picklable env factory),
    laid out by ``settings`` over the config's ``execution/ray`` (see :mod:`.settings`; checked: ConfigError);
    :meth:`step` advances it, :meth:`train` runs it to a number of env steps."""

    def __init__(self, plan: Plan, agent: Agent, env: EnvSource, settings: Mapping[str, object] | None = None, *,
                 seed: int | None = 0, log: EventWriter | None = None):
        if getattr(agent, "type_name", None) != plan.trains:
            raise ConfigError(f"the {plan.name} plan trains a {plan.trains} agent", argument="agent",
                              expected=plan.trains, got=getattr(agent, "type_name", type(agent).__name__))
        self.plan = plan
        self.settings = ray_settings(agent.config, **(settings or {}))
        resources = ensure_ray(self.settings["address"], self.settings["num_cpus"])
        check_cpus(self.settings, resources)
        self.agent = agent if agent.executor is not None else agent.build()
        self.env, self.seed, self.log = env, 0 if seed is None else int(seed), log
        self.backend = agent.backend or agent.executor.backend.name
        self.envs_per_worker = int(self.settings["envs_per_worker"])
        self.book = MetricsBook(self.settings["workers"] * self.envs_per_worker)
        self.first_timestep, self.first_update = int(self.agent.timesteps), int(self.agent.updates)
        self.timesteps = 0  #: env steps sampled in this run (the agent's counter goes on from where it was)
        self.version = int(self.agent.updates)
        self.learner: LocalLearner | LearnerGroup = LocalLearner(self.agent)
        self._weights = self.learner.weights_ref()  # a group starts from the same weights
        self._weight_bytes = 0
        self.stats = [WorkerStats(version=self.version) for _ in range(self.settings["workers"])]
        self.started = time.perf_counter()
        self._elapsed_before = 0.0  # wall time of the earlier part of a resumed run
        self._counted_before: dict[str, float] = {}  # RUN_COUNTS of the earlier part of a resumed run
        self.meter = FlowMeter(plan.name)
        self.meter.node(LEARNER, "learner")
        self.samplers: Rollouts | None = None
        self.replay: Replay | None = None
        self._closers: list[Callable[[], None]] = []
        try:
            if wants_group(self.settings):
                self.learner = self._learner_group()
            self._step = plan.build(self)
        except BaseException:
            self.close()  # whatever started before the failure
            raise

    def _learner_group(self) -> LearnerGroup:
        """``learners`` ranks (see :mod:`.learner_group`), closed with the run (rank 0's weights kept here)."""
        group = learner_group(self.agent, self.settings)
        for rank in range(group.shares):
            self.meter.node(learner_rank_node(rank), "learner")

        def close() -> None:
            with contextlib.suppress(Exception):
                group.sync_agent()  # the run's agent ends with what the group learnt
            group.close()
        self.on_close(close)
        return group

    # ----- operators ------------------------------------------------------------------------------------------
    def on_close(self, closer: Callable[[], None]) -> None:
        """Runs ``closer`` when the run closes (operators end their actors so)."""
        self._closers.append(closer)

    def sampler_config(self, index: int) -> dict[str, Any]:
        """The config sampler ``index`` builds its acting agent from: the learner's, as the plan adjusts it."""
        config = {key: value for key, value in self.agent.config.items() if key != "execution"}
        return self.plan.sampler_config(self, index, config) if self.plan.sampler_config else config

    # ----- weights ----------------------------------------------------------------------------------------------
    def broadcast(self) -> None:
        """Puts the learner's current weights into Ray's object store once; samplers pick them up from there."""
        self.version = int(self.agent.updates)
        self._weights = self.learner.weights_ref()

    def sync_agent(self) -> None:
        """The run's agent takes the learner's current variables (a learner group's rank 0's; one learner is the
        agent itself): before it is saved or evaluated."""
        self.learner.sync_agent()

    @property
    def weights(self) -> Any:
        """The object ref of the newest broadcast weights (``version`` says whose)."""
        return self._weights

    @property
    def weight_bytes(self) -> int:
        """Bytes of one copy of the trainable weights a sampler is handed (the same every time: measured once)."""
        if not self._weight_bytes:
            self._weight_bytes = sum(value.nbytes for value in self.agent.get_weights(trainable_only=True).values())
        return self._weight_bytes

    # ----- accounting -------------------------------------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        return self._elapsed_before + time.perf_counter() - self.started

    def save_state(self, directory: Path) -> None:
        """What the run's own actors hold beyond the learner, into a checkpoint being written: the replay shards'
        records and priorities when ``save_replay`` is on (an IMPALA or PPO run holds nothing more)."""
        if self.replay is not None and self.settings.get("save_replay"):
            self.replay.save(directory)

    def restore_state(self, directory: Path) -> None:
        """Puts back what :meth:`save_state` wrote into ``directory`` (nothing if it wrote nothing)."""
        if self.replay is not None:
            self.replay.restore(directory)

    def restore_progress(self, progress: Progress) -> None:
        """Goes on from an earlier part of the same run (before the first :meth:`step`): its tables, env-step count
        and wall clock continue those of ``progress``; the learner was loaded from the same checkpoint."""
        if self.timesteps or self.book.num_updates:
            raise ConfigError("restore_progress() comes before the first step", argument="progress",
                              expected="a run that has not stepped", got=f"{self.timesteps} timesteps")
        self.timesteps = int(progress.timesteps)
        self.first_timestep = int(self.agent.timesteps) - self.timesteps
        self.book.restore(progress.episodes, progress.updates)
        # the replay ratio counts the earlier part's updates too, or a resumed learner would owe them all again
        self.first_update = int(self.agent.updates) - self.book.num_updates
        self._elapsed_before = float(progress.wall_time)
        self._counted_before = {}  # each count's last value: a part that had no such column (no spares) skips it
        for key in RUN_COUNTS:
            if key in progress.updates.columns:
                counted = progress.updates[key].to_numpy(dtype=float)
                if len(counted := counted[np.isfinite(counted)]):
                    self._counted_before[key] = float(counted[-1])
        if self.log is not None:
            self.log.restart_at(self.timesteps)  # TensorBoard forgets what a killed part wrote past the checkpoint

    def record_sample(self, report: SampleReport) -> None:
        """Counts a sampler's report: its env steps and the episodes that ended (global env ids)."""
        stats = self.stats[report.index]
        stats.timesteps += report.timesteps
        stats.steps_since_sync += report.timesteps
        stats.behind = int(self.agent.updates) - report.version
        self.timesteps += report.timesteps
        self.agent.timesteps = self.first_timestep + self.timesteps  # checkpoints say how far the agent went
        self.meter.work(sampler_node(report.index), report.seconds, report.timesteps)
        for env_id, value, length, terminated, truncated in report.episodes.rows():
            self.book.add_episode(report.index * self.envs_per_worker + env_id, value, length, self.timesteps,
                                  self.elapsed, terminated, truncated)
            stats.episodes += 1
            stats.returns.append(float(value))
            if self.log is not None:
                self.log.scalar("episode/return", value, self.timesteps)
                self.log.scalar("episode/length", length, self.timesteps)

    def record_update(self, metrics: Mapping[str, object]) -> dict[str, Any]:
        """Adds an update's metrics and the run's health (restarts, weight staleness, …) to the updates table."""
        health = {"weights_behind": sum(s.behind for s in self.stats) / len(self.stats),
                  "sampler_restarts": float(sum(self.restarts)), **self.health()}
        values = {**metrics, **health}
        for key, before in self._counted_before.items():  # restarts and losses count over the whole run
            if key in values:
                values[key] = float(values[key]) + before  # type: ignore[arg-type]
        row = self.book.add_update(self.timesteps, self.elapsed, values)
        if self.log is not None:
            self.log.scalars("update", {k: v for k, v in row.items() if k not in ("update", "timesteps_total",
                                                                                 "wall_time")}, self.timesteps)
            self.log.scalar("throughput/env_steps_per_s", self.timesteps / max(self.elapsed, 1e-9), self.timesteps)
            self.log.maybe_flush()
        return row

    def health(self) -> dict[str, float]:
        """More columns of the updates table: with spare samplers, the restarts they served and the spares lost;
        plans with replay: replay size, shard restarts, items lost."""
        samplers = {} if self.samplers is None else self.samplers.health()
        return samplers if self.replay is None else {**samplers, **self.replay.health()}

    def workers(self) -> pd.DataFrame:
        """One row per sampler: ``worker, env_steps, env_steps_per_s, episodes, recent_return`` (of its last 20
        episodes), ``restarts, weights_behind`` (learner updates since its weights were broadcast), ``last_error``."""
        seconds = max(self.elapsed, 1e-9)
        rows = [(index, s.timesteps, s.timesteps / seconds, s.episodes, s.recent_return, restarts, s.behind,
                 s.last_error)
                for index, (s, restarts) in enumerate(zip(self.stats, self.restarts))]
        return pd.DataFrame(rows, columns=list(WORKER_COLUMNS))

    def learners(self) -> pd.DataFrame | None:
        """One row per learner rank (a learner group; None for one learner): ``rank, node, pid, updates, update_s,
        allreduce_s, restarts`` (see :meth:`.learner_group.LearnerGroup.table`)."""
        return self.learner.table()

    def shards(self) -> pd.DataFrame | None:
        """One row per replay shard (plans with replay; see :meth:`.ops.replay.Replay.table`)."""
        return None if self.replay is None else self.replay.table()

    def under_way(self) -> str:
        """The requests under way to samplers and shards and how long the oldest of each has waited."""
        parts = []
        for name, operator in (("sampler", self.samplers), ("shard", self.replay)):
            if operator is not None and (count := operator.manager.in_flight()):
                parts.append(f"{count} {name} requests under way (the oldest for {operator.manager.waiting():.0f} s)")
        return ", ".join(parts) or "no sampler or shard request under way"

    def dataflow(self) -> DataflowSnapshot:
        """The plan's dataflow now: actors and operators, what flows between them and how fast, the bottleneck."""
        return self.meter.snapshot()

    def snapshot(self, running: bool) -> MetricsSnapshot:
        seconds = self.elapsed
        return MetricsSnapshot(timesteps=self.timesteps, num_episodes=self.book.num_episodes,
                               num_updates=self.book.num_updates, wall_time=seconds,
                               steps_per_second=self.timesteps / seconds if seconds > 0 else float("nan"),
                               recent_mean_return=self.book.recent_mean_return, running=running,
                               episodes=self.book.episodes(), updates=self.book.updates())

    @property
    def episodes(self) -> pd.DataFrame:
        return self.book.episodes()

    @property
    def updates(self) -> pd.DataFrame:
        return self.book.updates()

    @property
    def restarts(self) -> list[int]:
        """Restarts per sampler."""
        return [0] * len(self.stats) if self.samplers is None else self.samplers.manager.restarts

    # ----- running ----------------------------------------------------------------------------------------------
    def step(self) -> None:
        """Advances the run by one step of its plan: sends requests, waits a little for results, handles them."""
        self._step()

    def train(self, timesteps: int, stop: threading.Event | None = None,
              callback: Callable[[PlanRun], object] | None = None) -> PlanRun:
        """Steps until ``timesteps`` env steps were sampled in all (or ``stop`` is set); ``callback(self)`` after
        every step."""
        while self.timesteps < timesteps and not (stop is not None and stop.is_set()):
            self.step()
            if callback is not None:
                callback(self)
        return self

    def evaluate(self, episodes: int = 10, seed: int | None = None) -> pd.DataFrame:
        """The learner's greedy policy on ``episodes`` episodes of a local copy of the env (learning nothing): the
        episodes table. Samplers explore — Ape-X's most with epsilon 0.4 — so their returns understate it."""
        from rlworkbench.execution import evaluate_greedy

        self.sync_agent()
        return evaluate_greedy(self.agent, self.env, episodes, seed=self.seed if seed is None else seed)

    def close(self) -> None:
        """Ends every actor of the run (the Ray session stays for the next run)."""
        for closer in reversed(getattr(self, "_closers", [])):
            closer()
        self._closers = []
