"""IMPALA (Espeholt et al. 2018) on Ray: sampler actors send fixed-length fragments with the log-probs of their
actions under the weights that acted; one learner takes them from a bounded queue and learns with v-trace.

Each sampler (:class:`ImpalaSampler`) steps its ``envs_per_worker`` envs ``update/rollout_length`` times per
fragment. The learner keeps at most ``queue_size`` fragments: a sampler gets its next request only while the
queue has room, so sampling never runs away from learning. Every fragment is one ``agent.update(fragment)`` (on
replica towers when the agent was built with ``devices``); the weights are broadcast every ``broadcast_every``
updates and samplers pick them up once they took ``weight_sync_steps`` env steps with the ones they hold —
v-trace corrects for the lag, which :meth:`~.algorithm.RayAlgorithm.workers` shows as ``weights_behind``.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from rlworkbench.execution.ray.actor_manager import CallResult, wait_for_any
from rlworkbench.execution.ray.algorithm import RayAlgorithm
from rlworkbench.execution.ray.sampler import Sampler

if TYPE_CHECKING:
    from rlworkbench.agents import Agent


class ImpalaSampler(Sampler):
    """A :class:`Sampler` whose fragments carry ``behaviour_log_probs``: the agent's log-probs of its actions
    under the weights that acted (they do not change within a fragment)."""

    def sample(self, steps: int) -> dict[str, Any]:
        report = super().sample(steps)
        report["batch"]["behaviour_log_probs"] = self.agent.behaviour_log_probs(report["batch"])
        return report


class IMPALA(RayAlgorithm):
    """IMPALA with a learner ``agent`` (an IMPALA agent); see the module docstring."""

    sampler_class = ImpalaSampler

    trains = ("impala", "IMPALA on Ray trains an IMPALA agent")

    def __init__(self, agent: Agent, env: Any, settings: Any = None, *, seed: int | None = 0, log: Any = None):
        super().__init__(agent, env, settings, seed=seed, log=log)
        self.rollout_length = int(self.agent.config["update"]["rollout_length"])
        self.queue: deque[dict[str, Any]] = deque()
        self._next_sampler = 0

    def step(self, timeout: float = 0.5) -> None:
        """Asks free samplers for fragments while the queue has room, takes what arrived, learns from one."""
        room = self.settings["queue_size"] - len(self.queue) - self.samplers.in_flight()
        count = len(self.samplers)
        for _ in range(count):  # in turn from where the last round stopped: every sampler gets asked
            index = self._next_sampler
            if room <= 0:
                break
            self._next_sampler = (index + 1) % count
            if self.samplers.call(index, "sample", self.rollout_length):
                room -= 1
        if not self.queue:
            wait_for_any([self.samplers], timeout)
        for result in self.samplers.results(timeout=0):
            self._take(result)
        if self.queue:
            metrics = self.agent.update(self.queue.popleft())
            if self.agent.updates % self.settings["broadcast_every"] == 0:
                self.broadcast()
            self.record_update({**metrics, "queue": float(len(self.queue))})

    def _take(self, result: CallResult) -> None:
        if not result.ok:
            self.note_failure(result)
            return
        self.record_sample(result.value)
        self.queue.append(result.value["batch"])
        self.maybe_hand_weights(result.index)
