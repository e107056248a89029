"""Ape-X (Horgan et al. 2018) on Ray: sampler actors prioritise their own n-step transitions and send them
straight to replay shards; one learner samples the shards with requests in flight, learns, sends priorities back
without waiting and broadcasts its weights every ``broadcast_every`` updates.

- Samplers (:class:`~.apex_sampler.ApexSampler`) act with epsilon ``0.4 ** (1 + 7 i / (N - 1))`` (worker ``i`` of
  ``N``; 0.4 for one) — the config's exploration schedule is the learner's own — and a memory of one batch (they
  store nothing; the config's memory becomes the shards). They pick up the newest weights once they took
  ``weight_sync_steps`` env steps with the ones they hold.
- Shards (:class:`~.replay_shard.ReplayShard`): ``shards`` prioritised replays of ``memory/capacity / shards``
  records each, with the config's ``alpha`` and ``beta`` (0.6, 0.4 for a uniform memory: Ape-X prioritises).
- The learner is the DQN agent (on replica towers when built with ``devices``): ``update_with_priorities`` on a
  shard's batch with its importance weights. It keeps the agent's replay ratio as a ceiling — no more updates
  than ``update/gradient_steps`` per ``update/update_interval`` env steps after ``update/learning_starts`` — and,
  with ``max_updates_owed``, as a floor too: samplers wait while the learner lags further behind.

Faults: a sampler that dies or whose env raises is replaced (fresh envs, current weights, the shards); a shard
that dies is replaced empty, the records it held are counted as lost and the samplers get the new shard. Both
show in :meth:`ApeX.workers`, :meth:`ApeX.shards` and the updates table (``sampler_restarts``,
``shard_restarts``, ``replay_lost``, ``weights_behind``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from rlworkbench.execution.ray.actor_manager import ActorManager, CallResult, wait_for_any
from rlworkbench.execution.ray.algorithm import RayAlgorithm
from rlworkbench.execution.ray.apex_sampler import ApexSampler
from rlworkbench.execution.ray.replay_shard import ReplayShard
from rlworkbench.spaces import BoolBox, Dict, FloatBox

SHARD_COLUMNS = ("shard", "records", "capacity", "fill", "restarts", "lost")


def apex_epsilon(index: int, workers: int, base: float = 0.4, alpha: float = 7.0) -> float:
    """Ape-X's per-actor exploration: ``base ** (1 + alpha * index / (workers - 1))``."""
    return base if workers == 1 else base ** (1 + alpha * index / (workers - 1))


class ApeX(RayAlgorithm):
    """Ape-X DQN with a learner ``agent`` (a DQN agent); see the module docstring."""

    sampler_class = ApexSampler
    trains = ("dqn", "Ape-X trains a DQN agent")

    # ----- actors -----------------------------------------------------------------------------------------------
    def _start_actors(self) -> None:
        memory = self.agent.config["memory"]
        count = self.settings["shards"]
        capacity = self.settings["replay_capacity"] or int(memory["capacity"])
        self.shard_capacity = max(int(capacity) // count, 1)
        self.alpha, self.beta = float(memory.get("alpha", 0.6)), float(memory.get("beta", 0.4))
        self.sent = [0] * count     # records sent to each shard since it (re)started, as the samplers reported
        self.lost = [0] * count  # records held by each shard's replaced predecessors
        self.shard_errors: list[str] = []
        self.batch_size = int(self.agent.config["update"]["batch_size"])
        self.shard_manager = ActorManager(self._make_shard, count, max_in_flight=self.settings["replay_in_flight"],
                                          max_restarts=self.settings["max_restarts"],
                                          on_restart=self._shard_restarted)
        self._next_shard = 0
        super()._start_actors()

    def _make_shard(self, index: int) -> Any:
        import ray

        space = self.agent.preprocessed_space.strip_ranks()
        records = Dict(states=space, actions=self.agent.action_space.strip_ranks(), rewards=FloatBox(),
                       terminals=BoolBox(), next_states=space, add_batch_rank=True)
        return ray.remote(num_cpus=0, max_restarts=0)(ReplayShard).remote(
            records, self.shard_capacity, alpha=self.alpha, beta=self.beta, backend=self.backend,
            seed=self.seed + 17 * (index + 1))

    def _shard_handles(self) -> list[Any]:
        return [self.shard_manager.actor(index) for index in range(len(self.shard_manager))]

    def _shard_restarted(self, index: int, actor: Any) -> None:
        self.lost[index] += min(self.sent[index], self.shard_capacity)
        self.sent[index] = 0
        handles = self._shard_handles()
        for sampler in range(len(self.samplers)):
            self.samplers.actor(sampler).set_shards.remote(handles)

    def sampler_config(self, index: int) -> dict[str, Any]:
        config = super().sampler_config(index)
        epsilon = config["memory"].get("priority_epsilon", 1e-6)
        config["exploration"] = {**config["exploration"], "epsilon": apex_epsilon(index, self.settings["workers"])}
        config["memory"] = {"type": "replay_memory", "capacity": self.batch_size, "priority_epsilon": epsilon}
        return config

    def sampler_arguments(self, index: int) -> tuple[Any, ...]:
        return (self._shard_handles(),)

    # ----- one step ---------------------------------------------------------------------------------------------
    def step(self, timeout: float = 0.5) -> None:
        """Keeps every sampler busy and ``replay_in_flight`` requests per shard under way while updates are due,
        then handles whatever finished within ``timeout`` seconds."""
        self._request_batches()
        limit = self.settings["max_updates_owed"]  # pace the samplers only while the learner has batches coming
        if limit is None or not self.shard_manager.in_flight() or self._updates_owed(in_flight=False) <= limit:
            self.samplers.call_all("sample", self.settings["fragment_length"])
        wait_for_any([self.samplers, self.shard_manager], timeout)
        for result in self.samplers.results(timeout=0):
            self._take_fragment(result)
        for result in self.shard_manager.results(timeout=0):
            self._learn(result)

    def _updates_owed(self, in_flight: bool = True) -> int:
        """Updates the agent's schedule allows by now, minus those made (and those whose batch is on its way)."""
        schedule = self.agent.config["update"]
        if self.timesteps < schedule["learning_starts"]:
            return 0
        rounds = (self.timesteps - schedule["learning_starts"]) // schedule["update_interval"] + 1
        owed = rounds * schedule["gradient_steps"] - (self.agent.updates - self.first_update)
        return owed - self.shard_manager.in_flight() if in_flight else owed

    def _request_batches(self) -> None:
        owed = self._updates_owed()
        count = len(self.shard_manager)
        for _ in range(count):
            if owed <= 0:
                return
            index = self._next_shard
            self._next_shard = (index + 1) % count
            if self.sent[index] and self.shard_manager.call(index, "sample", self.batch_size):
                owed -= 1

    def _take_fragment(self, result: CallResult) -> None:
        if not result.ok:
            self.note_failure(result)
            return
        report = result.value
        self.record_sample(report)
        if report["shard"] >= 0:
            self.sent[report["shard"]] += report["records"]
        self.maybe_hand_weights(result.index)

    def _learn(self, result: CallResult) -> None:
        if not result.ok:  # a dead shard (replaced by the manager) or a request that raised: shown, not fatal
            self.shard_errors.append(f"shard {result.index}: {type(result.error).__name__}")
            return
        if result.value is None:  # an empty shard
            return
        records, indices, weights = result.value
        metrics, priorities = self.agent.update_with_priorities({**records, "importance_weights": weights})
        result.actor.update_priorities.remote(indices, priorities)  # the shard that drew them, even if replaced
        if self.agent.updates % self.settings["broadcast_every"] == 0:
            self.broadcast()
        self.record_update(metrics)

    # ----- accounting -------------------------------------------------------------------------------------------
    def health(self) -> dict[str, float]:
        return {"replay_records": float(sum(min(sent, self.shard_capacity) for sent in self.sent)),
                "replay_lost": float(sum(self.lost)), "shard_restarts": float(sum(self.shard_manager.restarts))}

    def shards(self) -> pd.DataFrame:
        """One row per shard: ``shard, records, capacity, fill, restarts, lost`` (records held, as counted from
        what the samplers sent; ``lost``: the records its replaced predecessors held)."""
        held = [min(sent, self.shard_capacity) for sent in self.sent]
        rows = [(index, count, self.shard_capacity, count / self.shard_capacity, restarts, lost)
                for index, (count, restarts, lost) in enumerate(zip(held, self.shard_manager.restarts, self.lost))]
        return pd.DataFrame(rows, columns=list(SHARD_COLUMNS))

    def close(self) -> None:
        super().close()
        if hasattr(self, "shard_manager"):
            self.shard_manager.close()
