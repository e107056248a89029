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
from typing import TYPE_CHECKING, Any

import numpy as np

from rlworkbench import nest
from rlworkbench.execution.ray.actor_manager import CallResult
from rlworkbench.execution.ray.algorithm import RayAlgorithm

if TYPE_CHECKING:
    from rlworkbench.agents import Agent


class SyncPPO(RayAlgorithm):
    """PPO with ``workers`` sampler actors of ``envs_per_worker`` envs each; :meth:`step` is one iteration."""

    trains = ("ppo", "synchronous PPO on Ray trains a PPO agent")

    def __init__(self, agent: Agent, env: Any, settings: Mapping[str, Any] | None = None, *, seed: int | None = 0,
                 log: Any = None):
        super().__init__(agent, env, settings, seed=seed, log=log)
        self.rollout_length = int(self.agent.config["update"]["rollout_length"])

    def step(self, timeout: float = 300.0) -> None:
        """One iteration: sample on every worker with the newest weights, update once, broadcast."""
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
        for index in sorted(rollouts):
            self.record_sample(rollouts[index])
        metrics = self.agent.update(_concatenated([rollouts[index]["batch"] for index in sorted(rollouts)]))
        self.broadcast()
        for index in range(len(self.samplers)):
            self.hand_weights(index)
        self.record_update({**metrics, "sample_s": sampled - started, "update_s": time.perf_counter() - sampled})

    def _take(self, result: CallResult, rollouts: dict[int, dict[str, Any]], pending: set[int]) -> None:
        if result.ok:
            rollouts[result.index] = result.value
            pending.discard(result.index)
        else:  # the manager replaced the sampler, made with the current weights: sample again
            self.note_failure(result)
            self.samplers.call(result.index, "sample", self.rollout_length)


def _concatenated(batches: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Rollouts of several samplers as one: sequences stacked along the env axis."""
    return {key: nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *[b[key] for b in batches])
            for key in batches[0]}
