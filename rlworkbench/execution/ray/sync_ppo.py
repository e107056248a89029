"""Synchronous PPO on Ray: N sampler actors → gather → one update in the learner → one weight broadcast.

Each iteration every sampler (:class:`~rlworkbench.execution.ray.sampler.Sampler`, an actor holding a vector env
and an acting copy of the agent) steps its envs ``update/rollout_length`` times with the newest weights; the
learner — the agent itself, in this process, on the multi-device strategy when it was built with ``devices`` —
concatenates the rollouts along the env axis and runs ``agent.update(batch)``: exactly the update of one PPO agent
with ``workers x envs_per_worker`` envs. The new weights go out with one ``ray.put``. A sampler that dies (or whose
env raises) is replaced and handed the current weights by the :class:`ActorManager`; its rollout is sampled again,
so every update sees every worker's envs.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from rlworkbench import nest
from rlworkbench.errors import ConfigError
from rlworkbench.execution.ray.actor_manager import ActorManager, CallResult
from rlworkbench.execution.ray.sampler import Sampler
from rlworkbench.execution.ray.session import ensure_ray


class SyncPPO:
    """PPO with ``workers`` sampler actors of ``envs_per_worker`` envs each; :meth:`step` is one iteration."""

    def __init__(self, agent: Any, env: str, *, workers: int = 2, envs_per_worker: int = 1, seed: int = 0,
                 sampler_cpus: float = 1.0, max_restarts: int = 3, address: str | None = None,
                 num_cpus: int | None = None):
        if getattr(agent, "type_name", None) != "ppo":
            raise ConfigError("synchronous PPO on Ray trains a PPO agent", argument="agent", expected="ppo",
                              got=getattr(agent, "type_name", type(agent).__name__))
        for name, value in (("workers", workers), ("envs_per_worker", envs_per_worker)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"bad {name}", argument=name, expected="int >= 1", got=value)
        import ray

        ensure_ray(address, num_cpus)
        self.agent = agent if agent.executor is not None else agent.build()
        self.rollout_length = int(agent.config["update"]["rollout_length"])
        self.version = 0
        self._weights = ray.put(self.agent.get_weights(trainable_only=True))
        remote = ray.remote(num_cpus=sampler_cpus)(Sampler)
        config, backend = dict(agent.config), agent.backend or agent.executor.backend.name

        def make(index: int) -> Any:
            return remote.remote(index, config, env, envs_per_worker, backend, seed + 1000 * (index + 1),
                                 self._weights, self.version)

        self.samplers = ActorManager(make, workers, max_in_flight=1, max_restarts=max_restarts,
                                     restart_on_error=True, on_restart=self._hand_weights)
        self.timesteps, self.episodes = 0, 0
        self.recent_returns: list[float] = []

    def _hand_weights(self, index: int, actor: Any) -> None:
        actor.set_weights.remote(self._weights, self.version)

    def step(self, timeout: float = 300.0) -> dict[str, float]:
        """One iteration: sample on every worker, update once, broadcast; returns the update's metrics plus
        ``timesteps``, ``episodes``, ``sample_s`` and ``update_s``."""
        started = time.perf_counter()
        pending = set(range(len(self.samplers)))
        for index in pending:
            self.samplers.call(index, "sample", self.rollout_length)
        rollouts: dict[int, dict[str, Any]] = {}
        deadline = time.monotonic() + timeout
        while pending:
            if time.monotonic() > deadline:
                raise TimeoutError(f"samplers {sorted(pending)} sent nothing for {timeout:.0f} s")
            for result in self.samplers.results(timeout=1.0, wait_for=len(pending)):
                self._take(result, rollouts, pending)
        sampled = time.perf_counter()
        batch = _concatenated([rollouts[index]["batch"] for index in sorted(rollouts)])
        metrics = self.agent.update(batch)
        self._broadcast()
        steps = sum(r["timesteps"] for r in rollouts.values())
        returns = np.concatenate([r["episodes"]["return"] for r in rollouts.values()])
        self.timesteps += steps
        self.episodes += len(returns)
        self.recent_returns = (self.recent_returns + returns.tolist())[-100:]
        return {**metrics, "timesteps": float(self.timesteps), "episodes": float(self.episodes),
                "sample_s": sampled - started, "update_s": time.perf_counter() - sampled}

    def _take(self, result: CallResult, rollouts: dict[int, dict[str, Any]], pending: set[int]) -> None:
        if result.ok:
            rollouts[result.index] = result.value
            pending.discard(result.index)
        else:  # the manager replaced the sampler and handed it the weights: sample again
            self.samplers.call(result.index, "sample", self.rollout_length)

    def _broadcast(self) -> None:
        import ray

        self.version += 1
        self._weights = ray.put(self.agent.get_weights(trainable_only=True))
        for index in range(len(self.samplers)):
            self._hand_weights(index, self.samplers.actor(index))

    def train(self, timesteps: int) -> list[dict[str, float]]:
        """Iterations until ``timesteps`` env steps were sampled (over all workers); their metrics."""
        history = []
        while self.timesteps < timesteps:
            history.append(self.step())
        return history

    @property
    def restarts(self) -> list[int]:
        return self.samplers.restarts

    def close(self) -> None:
        """Ends the sampler actors (the Ray session stays for the next run)."""
        self.samplers.close()


def _concatenated(batches: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Rollouts of several samplers as one: sequences stacked along the env axis."""
    return {key: nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *[b[key] for b in batches])
            for key in batches[0]}
