"""What every distributed algorithm on Ray shares: a learner here, sampler actors there, one metrics book.

A :class:`RayAlgorithm` holds the learner (the agent itself, in this process — on replica towers when it was built
with ``devices``), ``workers`` sampler actors under an :class:`ActorManager` (restarted with a fresh env and the
current weights when they die or their env raises), the current weights as one object in Ray's store, and a
:class:`~rlworkbench.execution.metrics.MetricsBook` of every episode the samplers finished and every update the
learner made — the tables a local run has, so a :class:`~rlworkbench.workbench.run.Run` shows both alike. It also
keeps a row per worker (env steps/s, episodes, restarts, how many updates its weights are behind the learner, its
last error) and writes TensorBoard scalars when given an ``EventWriter``.

Subclasses say which sampler to start and what one :meth:`step` is (:class:`~.apex.ApeX`, :class:`~.impala.IMPALA`,
:class:`~.sync_ppo.SyncPPO`).
"""

from __future__ import annotations

import abc
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import pandas as pd

from rlworkbench.errors import ConfigError
from rlworkbench.execution.metrics import MetricsBook, MetricsSnapshot
from rlworkbench.execution.progress import Progress
from rlworkbench.execution.ray.actor_manager import ActorManager, CallResult
from rlworkbench.execution.ray.sampler import Sampler
from rlworkbench.execution.ray.session import ensure_ray
from rlworkbench.execution.ray.settings import ray_settings

if TYPE_CHECKING:
    from rlworkbench.agents import Agent

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


class RayAlgorithm(abc.ABC):
    """A learner ``agent`` and sampler actors on ``env`` (a Gymnasium id or a picklable env factory), laid out by
    ``settings`` over the config's ``execution/ray`` (see :mod:`.settings`; checked: ConfigError); :meth:`step`
    advances it, :meth:`train` runs it to a number of env steps."""

    sampler_class: ClassVar[type[Sampler]] = Sampler
    max_in_flight_per_sampler: ClassVar[int] = 1
    trains: ClassVar[tuple[str, str]]  #: (the agent type it trains, the error message for any other)

    def __init__(self, agent: Agent, env: Any, settings: Mapping[str, Any] | None = None, *, seed: int | None = 0,
                 log: Any = None):
        import ray

        agent_type, refusal = self.trains
        if getattr(agent, "type_name", None) != agent_type:
            raise ConfigError(refusal, argument="agent", expected=agent_type,
                              got=getattr(agent, "type_name", type(agent).__name__))
        self.settings = ray_settings(agent.config, **(settings or {}))
        resources = ensure_ray(self.settings["address"], self.settings["num_cpus"])
        wanted = self.settings["workers"] * self.settings["sampler_cpus"]
        if self.settings["address"] is None and wanted > resources.get("CPU", 0):  # would wait for ever, silently
            raise ConfigError("the samplers ask for more CPUs than this Ray session has", key_path="execution/ray/"
                              "sampler_cpus", expected=f"workers x sampler_cpus <= {resources.get('CPU', 0):g} "
                              "(sampler_cpus=0 lets them share)", got=f"{self.settings['workers']} x "
                              f"{self.settings['sampler_cpus']:g} = {wanted:g}")
        self.agent = agent if agent.executor is not None else agent.build()
        self.env, self.seed, self.log = env, 0 if seed is None else int(seed), log
        self.backend = agent.backend or agent.executor.backend.name
        self.envs_per_worker = int(self.settings["envs_per_worker"])
        self.book = MetricsBook(self.settings["workers"] * self.envs_per_worker)
        self.first_timestep, self.first_update = int(self.agent.timesteps), int(self.agent.updates)
        self.timesteps = 0  #: env steps sampled in this run (the agent's counter goes on from where it was)
        self.version = int(self.agent.updates)
        self._weights = ray.put(self.agent.get_weights(trainable_only=True))
        self.stats = [WorkerStats(version=self.version) for _ in range(self.settings["workers"])]
        self.started = time.perf_counter()
        self._elapsed_before = 0.0  # wall time of the earlier part of a resumed run
        try:
            self._start_actors()
        except BaseException:
            self.close()  # whatever started before the failure
            raise

    # ----- actors -----------------------------------------------------------------------------------------------
    def _start_actors(self) -> None:
        self.samplers = ActorManager(self._make_sampler, self.settings["workers"],
                                     max_in_flight=self.max_in_flight_per_sampler,
                                     max_restarts=self.settings["max_restarts"], restart_on_error=True,
                                     on_restart=self._sampler_restarted)

    def sampler_config(self, index: int) -> dict[str, Any]:
        """The config sampler ``index`` builds its acting agent from (the learner's, by default)."""
        return {key: value for key, value in self.agent.config.items() if key != "execution"}

    def sampler_arguments(self, index: int) -> tuple[Any, ...]:
        """Arguments of the sampler class after the common ones."""
        return ()

    def _make_sampler(self, index: int) -> Any:
        import ray

        restarts = self.samplers.restarts[index] + 1 if hasattr(self, "samplers") else 0
        seed = self.seed + 1000 * (index + 1) + 7919 * restarts  # a restarted sampler gets fresh envs
        remote = ray.remote(num_cpus=self.settings["sampler_cpus"], max_restarts=0)(self.sampler_class)
        return remote.remote(index, self.sampler_config(index), self.env, self.envs_per_worker, self.backend, seed,
                             self._weights, self.version, *self.sampler_arguments(index))

    def _sampler_restarted(self, index: int, actor: Any) -> None:
        stats = self.stats[index]
        stats.version, stats.steps_since_sync = self.version, 0  # made with the current weights

    def note_failure(self, result: CallResult) -> None:
        """Keeps a failed sampler request's error for the worker table (the manager restarted the sampler)."""
        first_line = (str(result.error).strip().splitlines() or [""])[0]
        self.stats[result.index].last_error = f"{type(result.error).__name__}: {first_line}"

    # ----- weights ----------------------------------------------------------------------------------------------
    def broadcast(self) -> None:
        """Puts the learner's current weights into Ray's object store once; samplers pick them up from there."""
        import ray

        self.version = int(self.agent.updates)
        self._weights = ray.put(self.agent.get_weights(trainable_only=True))

    def hand_weights(self, index: int) -> None:
        """Sends sampler ``index`` the newest weights (it takes them before its next request)."""
        self.samplers.actor(index).set_weights.remote(self._weights, self.version)
        self.stats[index].version, self.stats[index].steps_since_sync = self.version, 0

    def maybe_hand_weights(self, index: int) -> None:
        """Hands sampler ``index`` newer weights once it took ``weight_sync_steps`` env steps with its own."""
        stats = self.stats[index]
        if stats.steps_since_sync >= self.settings["weight_sync_steps"] and stats.version < self.version:
            self.hand_weights(index)

    # ----- accounting -------------------------------------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        return self._elapsed_before + time.perf_counter() - self.started

    def restore_progress(self, progress: Progress) -> None:
        """Goes on from an earlier part of the same run (before the first :meth:`step`): its tables, env-step count
        and wall clock continue those of ``progress``; the learner was loaded from the same checkpoint."""
        if self.timesteps or self.book.num_updates:
            raise ConfigError("restore_progress() comes before the first step", argument="progress",
                              expected="a run that has not stepped", got=f"{self.timesteps} timesteps")
        self.timesteps = int(progress.timesteps)
        self.first_timestep = int(self.agent.timesteps) - self.timesteps
        self.book.restore(progress.episodes, progress.updates)
        self._elapsed_before = float(progress.wall_time)

    def record_sample(self, report: Mapping[str, Any]) -> None:
        """Counts a sampler's report: its env steps and the episodes that ended (global env ids)."""
        index, steps = report["index"], int(report["timesteps"])
        stats = self.stats[index]
        stats.timesteps += steps
        stats.steps_since_sync += steps
        stats.behind = int(self.agent.updates) - int(report["version"])
        self.timesteps += steps
        self.agent.timesteps = self.first_timestep + self.timesteps  # checkpoints say how far the agent went
        episodes = report["episodes"]
        for env_id, value, length, terminated, truncated in zip(*(episodes[key] for key in (
                "env_id", "return", "length", "terminated", "truncated"))):
            self.book.add_episode(index * self.envs_per_worker + env_id, value, length, self.timesteps,
                                  self.elapsed, terminated, truncated)
            stats.episodes += 1
            stats.returns.append(float(value))
            if self.log is not None:
                self.log.scalar("episode/return", value, self.timesteps)
                self.log.scalar("episode/length", length, self.timesteps)

    def record_update(self, metrics: Mapping[str, Any]) -> dict[str, Any]:
        """Adds an update's metrics and the run's health (restarts, weight staleness, …) to the updates table."""
        health = {"weights_behind": sum(s.behind for s in self.stats) / len(self.stats),
                  "sampler_restarts": float(sum(self.samplers.restarts)), **self.health()}
        row = self.book.add_update(self.timesteps, self.elapsed, {**metrics, **health})
        if self.log is not None:
            self.log.scalars("update", {k: v for k, v in row.items() if k not in ("update", "timesteps_total",
                                                                                 "wall_time")}, self.timesteps)
            self.log.scalar("throughput/env_steps_per_s", self.timesteps / max(self.elapsed, 1e-9), self.timesteps)
            self.log.maybe_flush()
        return row

    def health(self) -> dict[str, float]:
        """More columns of the updates table (Ape-X: replay size, shard restarts, items lost)."""
        return {}

    def workers(self) -> pd.DataFrame:
        """One row per sampler: ``worker, env_steps, env_steps_per_s, episodes, recent_return`` (of its last 20
        episodes), ``restarts, weights_behind`` (learner updates since its weights were broadcast), ``last_error``."""
        seconds = max(self.elapsed, 1e-9)
        rows = [(index, s.timesteps, s.timesteps / seconds, s.episodes, s.recent_return, restarts, s.behind,
                 s.last_error)
                for index, (s, restarts) in enumerate(zip(self.stats, self.samplers.restarts))]
        return pd.DataFrame(rows, columns=list(WORKER_COLUMNS))

    def shards(self) -> pd.DataFrame | None:
        """One row per replay shard (algorithms that have them)."""
        return None

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
        return self.samplers.restarts

    # ----- running ----------------------------------------------------------------------------------------------
    @abc.abstractmethod
    def step(self) -> None:
        """Advances the run: sends requests, waits a little for results and handles them."""

    def train(self, timesteps: int, stop: threading.Event | None = None,
              callback: Callable[[RayAlgorithm], Any] | None = None) -> RayAlgorithm:
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

        return evaluate_greedy(self.agent, self.env, episodes, seed=self.seed if seed is None else seed)

    def close(self) -> None:
        """Ends every actor of the run (the Ray session stays for the next run)."""
        if hasattr(self, "samplers"):
            self.samplers.close()
